"""Chat through the API (docs/api.md "Chat"): a game's players' room and spectators' room kept
apart on every read and on the wire of their live streams, the tournament's room, the text's
rules, the rate limit, muting and deletion by staff. Real server; both modes."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.models import Player
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer
from tests.game_helpers import play_to_the_end, start_table
from tests.live_client import LiveReader, Message

pytestmark = pytest.mark.django_db(transaction=True)

ONE_HAND = {"preset": "classic", "max_hands": 1}


def edit(username: str, **fields: object) -> None:
    """Change an account as the admin would (saved: the web processes forget what they kept
    of its tokens)."""
    player = Player.objects.get(username=username)
    for name, value in fields.items():
        setattr(player, name, value)
    player.save()


def chat(game_id: int, channel: str) -> str:
    return f"/games/{game_id}/chat?channel={channel}"


def texts(client: Client, path: str) -> list[str]:
    return [m["text"] for m in client.ok("GET", path)["results"]]


def room_reader(url: str, path: str, client: Client) -> LiveReader:
    return LiveReader(url, 0, token=client.token, path=f"/api/v1{path}")


def wire(messages: list[Message]) -> str:
    """Everything a stream sent, as one text."""
    return json.dumps([m.data for m in messages])


def sent_texts(messages: list[Message]) -> list[str]:
    return [m["text"] for message in messages for m in message.data["messages"]]


def test_players_and_spectators_chat_apart_until_the_game_ends(api_server: LiveServer) -> None:
    url = api_server.url
    ann, bob, cat = (register(url, f"chatp{i}") for i in range(3))
    sam = register(url, "chats0")  # a spectator
    game_id = start_table(ann, [bob, cat], rules=ONE_HAND)
    players_room = room_reader(url, f"/games/{game_id}/chat/live?channel=players", ann)
    rail = room_reader(url, f"/games/{game_id}/chat/live?channel=spectators", sam)
    first = players_room.wait_for(lambda found: len(found) >= 1)[0]
    assert first.event == "chat" and first.data["reset"] and first.data["messages"] == []
    rail.wait_for(lambda found: len(found) >= 1)

    bob.ok("POST", chat(game_id, "players"), 201, json={"text": "good luck all"})
    said = sam.ok("POST", chat(game_id, "spectators"), 201, json={"text": "ann holds the ace"})
    assert said["author"] == "chats0" and said["text"] == "ann holds the ace"

    seen = players_room.wait_for(lambda found: "good luck all" in sent_texts(found))
    rail.wait_for(lambda found: "ann holds the ace" in sent_texts(found))
    assert seen[-1].id == seen[-1].data["version"]
    # Neither room's words reach the other's readers: on the wire, and on every read.
    assert "ann holds the ace" not in wire(players_room.messages)
    assert "good luck all" not in wire(rail.messages)
    assert texts(cat, chat(game_id, "players")) == ["good luck all"]
    assert texts(sam, chat(game_id, "spectators")) == ["ann holds the ace"]
    for player in (ann, bob, cat):
        error_of(player.get(chat(game_id, "spectators")), 403, "chat_not_allowed")
        response = player.post(chat(game_id, "spectators"), json={"text": "hello rail"})
        error_of(response, 403, "chat_not_allowed")
    error_of(sam.get(chat(game_id, "players")), 403, "chat_not_allowed")
    error_of(sam.post(chat(game_id, "players"), json={"text": "psst"}), 403, "chat_not_allowed")
    for reader, path in (
        (ann, f"/games/{game_id}/chat/live?channel=spectators"),
        (sam, f"/games/{game_id}/chat/live?channel=players"),
    ):
        refused = room_reader(url, path, reader)
        refused.wait_for_end(10)
        assert refused.status == 403 and not refused.messages

    play_to_the_end([ann, bob, cat], game_id, random.Random(5))
    # Over: the players read (and join) the spectators' room; theirs stays their own.
    assert texts(ann, chat(game_id, "spectators")) == ["ann holds the ace"]
    ann.ok("POST", chat(game_id, "spectators"), 201, json={"text": "I did"})
    rail.wait_for(lambda found: "I did" in sent_texts(found))
    error_of(sam.get(chat(game_id, "players")), 403, "chat_not_allowed")
    assert "good luck all" not in wire(rail.messages)
    players_room.stop()
    rail.stop()


def test_the_text_is_kept_as_written_within_its_length(api_server: LiveServer) -> None:
    url = api_server.url
    ann, bob, cat = (register(url, f"chatt{i}") for i in range(3))
    game_id = start_table(ann, [bob, cat])
    path = chat(game_id, "players")

    too_long = error_of(ann.post(path, json={"text": "x" * 501}), 400, "invalid")
    assert "text" in too_long["fields"]
    assert "text" in error_of(ann.post(path, json={"text": "   "}), 400, "invalid")["fields"]
    error_of(ann.post(path, json={}), 400, "invalid")
    error_of(ann.post(path, json={"text": "hi", "to": "bob"}), 400, "invalid")
    error_of(ann.post(f"/games/{game_id}/chat", json={"text": "hi"}), 400, "invalid")
    assert ann.ok("POST", path, 201, json={"text": "y" * 500})["text"] == "y" * 500
    markup = '<script>alert("x")</script> see https://example.com'
    said = ann.ok("POST", path, 201, json={"text": f"  {markup} "})
    assert said["text"] == markup  # trimmed, never altered: escaping is the reader's
    assert said["links"] is False  # a new account's links are not made links

    edit(bob.username, date_joined=timezone.now() - timedelta(days=2))
    assert bob.ok("POST", path, 201, json={"text": "https://example.com"})["links"] is True
    error_of(register(url, "chatt9").post(path, json={"text": "hi"}), 403, "chat_not_allowed")
    error_of(ann.post(chat(10**12, "players"), json={"text": "hi"}), 404, "not_found")


def test_a_fast_writer_is_held_back(api_server: LiveServer) -> None:
    url = api_server.url
    ann, bob, cat = (register(url, f"chatr{i}") for i in range(3))
    game_id = start_table(ann, [bob, cat])
    path = chat(game_id, "players")

    for index in range(settings.CHAT_BURST):
        ann.ok("POST", path, 201, json={"text": f"spam {index}"})
    refused = ann.post(path, json={"text": "one more"})

    error_of(refused, 429, "chat_rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1
    bob.ok("POST", path, 201, json={"text": "others still talk"})


def test_a_person_mutes_an_author_and_staff_delete_a_message(api_server: LiveServer) -> None:
    url = api_server.url
    ann, bob, cat = (register(url, f"chatm{i}") for i in range(3))
    mod = register(url, "chatmod")
    edit(mod.username, is_staff=True)
    game_id = start_table(ann, [bob, cat])
    path = chat(game_id, "players")
    rude = bob.ok("POST", path, 201, json={"text": "rude words"})
    cat.ok("POST", path, 201, json={"text": "kind words"})
    reader = room_reader(url, f"/games/{game_id}/chat/live?channel=players", cat)
    reader.wait_for(lambda found: "rude words" in sent_texts(found))

    ann.ok("PUT", f"/chat/mutes/{bob.username}", 204)
    ann.ok("PUT", f"/chat/mutes/{bob.username}", 204)
    assert texts(ann, path) == ["kind words"]
    assert texts(cat, path) == ["kind words", "rude words"]
    assert ann.ok("GET", "/chat/mutes")["results"] == [{"username": bob.username}]
    error_of(ann.request("PUT", f"/chat/mutes/{ann.username}"), 400, "cannot_mute_self")
    error_of(ann.request("PUT", "/chat/mutes/nobody-at-all"), 404, "not_found")
    ann.ok("DELETE", f"/chat/mutes/{bob.username}", 204)
    assert texts(ann, path) == ["kind words", "rude words"]

    error_of(cat.request("DELETE", f"/chat/messages/{rude['id']}"), 403, "not_moderator")
    mod.ok("DELETE", f"/chat/messages/{rude['id']}", 204)
    mod.ok("DELETE", f"/chat/messages/{rude['id']}", 204)
    assert texts(cat, path) == ["kind words"]
    assert texts(mod, path) == ["kind words"]  # staff read the players' room
    gone = reader.wait_for(lambda found: rude["id"] in found[-1].data["deleted"])
    assert gone[-1].data["messages"] == []
    error_of(mod.post(path, json={"text": "moderating"}), 403, "chat_not_allowed")
    error_of(mod.request("DELETE", "/chat/messages/999999999"), 404, "not_found")
    later = room_reader(url, f"/games/{game_id}/chat/live?channel=players", cat)
    fresh = later.wait_for(lambda found: len(found) >= 1)[0]
    assert sent_texts([fresh]) == ["kind words"] and fresh.data["reset"]
    for each in (reader, later):
        each.stop()


def test_a_tournament_room_is_read_by_all_and_written_by_its_people(
    api_server: LiveServer,
) -> None:
    url = api_server.url
    org, ent, out = (register(url, f"chatu{i}") for i in range(3))
    body = {"name": "Chat cup", "format": "swiss", "rounds": 1}
    tournament_id = org.ok("POST", "/tournaments", 201, json=body)["id"]
    ent.ok("POST", f"/tournaments/{tournament_id}/register", 201)
    path = f"/tournaments/{tournament_id}/chat"
    reader = room_reader(url, f"{path}/live", out)
    reader.wait_for(lambda found: len(found) >= 1)

    org.ok("POST", path, 201, json={"text": "welcome"})
    ent.ok("POST", path, 201, json={"text": "thanks"})
    error_of(out.post(path, json={"text": "let me in"}), 403, "chat_not_allowed")

    assert texts(out, path) == ["thanks", "welcome"]
    reader.wait_for(lambda found: sent_texts(found)[-2:] == ["welcome", "thanks"])
    error_of(Client(url).get(path), 401, "not_authenticated")
    reader.stop()


def test_a_duplicate_round_closes_the_room_to_entrants_and_the_rail(
    api_server: LiveServer,
) -> None:
    url = api_server.url
    org, helper, mod = (register(url, f"chatd{n}") for n in ("org", "helper", "mod"))
    edit(mod.username, is_staff=True)
    entrants = [register(url, f"chatd{i}") for i in range(2)]
    body = {"name": "Dup cup", "format": "swiss", "rounds": 1, "duplicate": True}
    tournament_id = org.ok("POST", "/tournaments", 201, json=body)["id"]
    org.ok(
        "POST", f"/tournaments/{tournament_id}/organisers", 201, json={"username": "chatdhelper"}
    )
    for entrant in [org, *entrants]:  # the organiser plays too
        entrant.ok("POST", f"/tournaments/{tournament_id}/register", 201)
    org.ok("POST", f"/tournaments/{tournament_id}/start")
    path = f"/tournaments/{tournament_id}/chat"

    for entrant in [org, *entrants]:
        refused = entrant.post(path, json={"text": "board 1 is wild"})
        error_of(refused, 403, "chat_not_allowed")
    helper.ok("POST", path, 201, json={"text": "round 1 is on"})
    mod.ok("POST", path, 201, json={"text": "play fair"})
    assert texts(entrants[1], path) == ["play fair", "round 1 is on"]
    game_id = org.ok("GET", f"/tournaments/{tournament_id}/rounds/1")["tables"][0]["game"]
    for onlooker in (helper, mod):
        error_of(onlooker.get(chat(game_id, "spectators")), 409, "deals_embargoed")
    error_of(mod.get(chat(game_id, "players")), 409, "deals_embargoed")
    entrants[0].ok("POST", chat(game_id, "players"), 201, json={"text": "gl"})
