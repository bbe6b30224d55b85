"""Managing one's games and bots through the API: resign, cancel an open table, a bot's
fresh token, and how a bot is reached (issue #32), against the live server."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from django.test import override_settings

from accounts.models import Player
from bots.models import BotAccount
from bots.services import change_bot_reach
from core.errors import Invalid
from ratings.services import rate_game
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.game_helpers import (
    choose_action,
    play_to_the_end,
    seat_to_act,
    start_table,
    three_players,
)
from tests.support import wait_until
from tests.test_token_revocation import END_WITHIN_SECONDS, StreamReader
from tests.test_webhook_bots import Answer, BotServer, bot_server, legal_answer

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["bot_server"]  # the fixture, used here too

SHORT_GAME = {"preset": "classic", "max_hands": 2}


def test_it_hands_a_resigned_seat_to_the_house_bot_and_ranks_the_resigner_last(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    players = three_players(api_server.url, "resign")
    game_id = start_table(players[0], players[1:], rules=SHORT_GAME)
    rng = random.Random(7)
    for _ in range(6):  # into the game: a few moves by whoever is to act
        actor, view = seat_to_act(players, game_id)
        actor.ok("POST", f"/games/{game_id}/actions", json=choose_action(view, rng))
    actor, _ = seat_to_act(players, game_id)
    resigner = next(p for p in players if p is not actor)
    others = [p for p in players if p is not resigner]
    at = players.index(resigner)
    spectator = register(api_server.url, "resignwatcher")
    before = resigner.ok("GET", f"/games/{game_id}")
    seen = resigner.ok("GET", f"/games/{game_id}/events")["last_seq"]
    actors_stream = StreamReader(api_server.url, actor.token or "")
    assert actors_stream.wait_for_lines(1)[0]["version"] == before["version"]

    view = resigner.ok("POST", f"/games/{game_id}/resign")

    # The player to act is told on its stream: its turn, at the game's new version.
    turn = actors_stream.wait_for_lines(2)[1]
    assert (turn["type"], turn["version"]) == ("your_turn", view["version"])
    assert turn["view"]["seats"][at]["played_by"] == "house:heuristic"
    assert view["your_seat"] == at and view["status"] == "playing"
    assert view["legal_actions"] == []
    assert view["version"] == before["version"] + 1
    assert view["seats"][at] == {
        "seat": at,
        "username": resigner.username,
        "is_bot": False,
        "played_by": "house:heuristic",
    }
    events = resigner.ok("GET", f"/games/{game_id}/events?after={seen}")
    assert [(e["type"], e["seat"]) for e in events["events"][:2]] == [
        ("resign", at),
        ("seat_handover", at),
    ]
    error_of(resigner.post(f"/games/{game_id}/resign"), 409, "seat_handed_over")
    error_of(spectator.post(f"/games/{game_id}/resign"), 403, "not_seated")
    error_of(resigner.post(f"/games/{game_id}/resign", json={"seat": 1}), 400, "invalid")

    final = play_to_the_end(others, game_id, rng)

    assert final["seats"][at]["played_by"] == "house:heuristic"
    entry = resigner.ok("GET", f"/players/{resigner.username}/games")["results"][0]
    assert entry["game"] == game_id
    assert (entry["rank"], entry["result"]) == (3, "loss")
    ranks = {s["username"]: s["rank"] for s in entry["seats"]}
    assert sorted(ranks[p.username] for p in others) in ([1, 2], [1, 1])
    # Rated as the last of three (by the worker's task itself: the suite's servers queue no
    # ratings, tests/test_ratings_worker.py covers the queueing).
    assert rate_game(game_id)
    points = resigner.ok("GET", f"/players/{resigner.username}/ratings?pool=classic")["results"]
    assert [(p["game"], p["rank"]) for p in points] == [(game_id, 3)]
    error_of(others[0].post(f"/games/{game_id}/resign"), 409, "game_finished")


def test_it_lets_the_creator_cancel_an_open_table_only(api_server: LiveServer) -> None:
    ann, bob, _ = three_players(api_server.url, "cancel")
    table = ann.ok("POST", "/tables", 201, json={"rules": "classic", "move_seconds": 600})
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    bobs_stream = StreamReader(api_server.url, str(bob.token))
    wait_until(lambda: bobs_stream.status == 200, timeout=10, what="Bob's stream to open")
    time.sleep(0.5)  # the stream has made its cursor (lines from before it are not sent)

    error_of(bob.request("DELETE", f"/tables/{table['id']}"), 403, "not_table_creator")
    error_of(
        Client(api_server.url).request("DELETE", f"/tables/{table['id']}"), 401, "not_authenticated"
    )
    assert ann.request("DELETE", f"/tables/{table['id']}").status_code == 204
    # Bob, seated there, is told at once and need not wait for a game that will not come.
    assert {"type": "table_canceled", "table": table["id"]} in bobs_stream.wait_for_lines(1)

    error_of(ann.get(f"/tables/{table['id']}"), 404, "not_found")
    error_of(ann.request("DELETE", f"/tables/{table['id']}"), 404, "not_found")
    assert table["id"] not in [t["id"] for t in ann.ok("GET", "/tables?status=open")["results"]]


def test_it_refuses_to_cancel_a_table_whose_game_started(api_server: LiveServer) -> None:
    ann, bob, carl = three_players(api_server.url, "cancelled")
    table = ann.ok("POST", "/tables", 201, json={"rules": "classic", "move_seconds": 600})
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    carl.ok("POST", f"/tables/{table['id']}/join", json={})

    error_of(ann.request("DELETE", f"/tables/{table['id']}"), 409, "table_not_open")
    assert ann.ok("GET", f"/tables/{table['id']}")["status"] == "playing"


def test_it_ends_the_old_tokens_and_their_streams_when_a_bot_gets_a_fresh_one(
    api_server: LiveServer,
) -> None:
    owner = register(api_server.url, "rotowner")
    stranger = register(api_server.url, "rotstranger")
    old_key = owner.ok("POST", "/bots", 201, json={"username": "rotbot"})["token"]
    old = Client(api_server.url, token=old_key)
    reader = StreamReader(api_server.url, old_key)
    wait_until(lambda: reader.status == 200, timeout=10, what="the bot's stream to open")
    time.sleep(0.5)  # the stream waits now (its first look done)

    error_of(stranger.post("/bots/rotbot/token"), 403, "not_bot_owner")
    error_of(old.post("/bots/rotbot/token"), 403, "not_bot_owner")
    error_of(owner.post("/bots/nobot/token"), 404, "not_found")
    assert old.ok("GET", "/me")["username"] == "rotbot"  # the refusals changed nothing
    rotated_at = time.monotonic()
    new_key = owner.ok("POST", "/bots/rotbot/token", 201)["token"]

    ended = reader.wait_for_end(10)
    assert ended is not None, "the old token's stream stayed open"
    assert ended - rotated_at < END_WITHIN_SECONDS, ended - rotated_at
    error_of(old.get("/me"), 401, "invalid_token")
    fresh = Client(api_server.url, token=new_key)
    me = fresh.ok("GET", "/me")
    assert (me["username"], me["is_bot"]) == ("rotbot", True)
    tokens = fresh.ok("GET", "/me/tokens")["results"]
    assert len(tokens) == 1 and set(tokens[0]["scopes"]) == {"play", "bot"}


def test_it_changes_how_a_bot_is_reached(
    api_server: LiveServer,
    celery_worker: WorkerInfo,
    bot_server: Callable[[Answer], BotServer],
) -> None:
    server = bot_server(lambda view, nth: (200, legal_answer(view)))
    owner, other, _ = three_players(api_server.url, "reach")
    owner.ok("POST", "/bots", 201, json={"username": "reachbot"})

    error_of(other.request("PATCH", "/bots/reachbot", json={"mode": "poll"}), 403, "not_bot_owner")
    refused = error_of(
        owner.request("PATCH", "/bots/reachbot", json={"mode": "webhook"}), 400, "invalid"
    )
    assert "webhook_url" in refused["fields"]
    refused = error_of(
        owner.request("PATCH", "/bots/reachbot", json={"webhook_url": server.url}), 400, "invalid"
    )
    assert "webhook_url" in refused["fields"]
    error_of(owner.request("PATCH", "/bots/reachbot", json={"mode": "pigeon"}), 400, "invalid")

    changed = owner.ok(
        "PATCH", "/bots/reachbot", json={"mode": "webhook", "webhook_url": server.url}
    )
    assert changed["mode"] == "webhook" and changed["webhook_url"] == server.url
    server.secret = changed["webhook_secret"]
    moved = owner.ok("PATCH", "/bots/reachbot", json={"webhook_url": server.url + "?v=2"})
    assert moved["webhook_url"] == server.url + "?v=2" and "webhook_secret" not in moved

    # The bot now plays by webhook: a game with it and two house bots ends, every push signed
    # with the secret the change returned.
    table = owner.ok(
        "POST", "/tables", 201, json={"rules": SHORT_GAME, "move_seconds": 30, "seat": None}
    )
    for bot in ("reachbot", "house:random", "house:random"):
        table = owner.ok("POST", f"/tables/{table['id']}/bots", json={"bot": bot})
    wait_until(
        lambda: owner.ok("GET", f"/games/{table['game']}")["status"] == "finished",
        timeout=120,
        interval=0.2,
        what="the webhook bot's game to end",
    )
    assert server.pushes and all(signed for _, signed in server.pushes)

    back = owner.ok("PATCH", "/bots/reachbot", json={"mode": "poll"})
    assert back == {"username": "reachbot", "mode": "poll", "webhook_url": ""}


def test_it_refuses_a_private_webhook_address_on_a_change() -> None:
    owner = Player.objects.create_user("privchange", password="correct horse battery")
    bot = Player.objects.create(username="privchangebot", is_bot=True, owner=owner)
    BotAccount.objects.create(player=bot)

    with override_settings(BOT_WEBHOOK_ALLOW_PRIVATE=False), pytest.raises(Invalid) as refused:
        change_bot_reach(
            owner, username=bot.username, mode="webhook", webhook_url="http://127.0.0.1:9/turn"
        )

    assert "webhook_url" in refused.value.details["fields"]
    assert BotAccount.objects.get(player=bot).mode == BotAccount.Mode.POLL
