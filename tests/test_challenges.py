"""Challenges against the live server with a real worker (and beat): bots challenge, accept
and play; decline, cancel, expiry, rematch; every refusal; and the stream lines of each."""

from __future__ import annotations

import contextlib
import json
import random
import threading
from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.utils import timezone

from accounts.models import Player
from challenges.models import Challenge
from games.models import Table
from ratings.services import rate_game
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.game_helpers import play_to_the_end
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"preset": "classic", "max_hands": 1}


class Stream(threading.Thread):
    """A client's stream, read in a thread: its lines, decoded."""

    def __init__(self, client: Client) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.lines: list[dict[str, Any]] = []

    def run(self) -> None:
        # (The server closes the stream when the suite stops it.)
        with contextlib.suppress(httpx.HTTPError, AssertionError):
            for line in self.client.stream_lines():
                if line.strip():
                    self.lines.append(json.loads(line))

    def find(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Wait for a line of type ``kind`` whose challenge (or itself) has ``fields``."""

        def found() -> dict[str, Any] | None:
            for line in list(self.lines):
                about = line.get("challenge", line)
                if line["type"] == kind and all(about.get(k) == v for k, v in fields.items()):
                    return line
            return None

        return wait_until(found, timeout=20, what=f"a {kind} line {fields} for {self.client}")

    def types(self) -> list[str]:
        return [line["type"] for line in self.lines]


def bot_of(owner: Client, username: str) -> Client:
    token = owner.ok("POST", "/bots", 201, json={"username": username})["token"]
    return Client(owner.base_url, token=token, username=username)


def challenge(client: Client, to: list[str], **settings: Any) -> dict[str, Any]:
    body = {"to": to, "rules": SHORT, "move_seconds": 600, **settings}
    created: dict[str, Any] = client.ok("POST", "/challenges", 201, json=body)
    return created


def listening(client: Client, helper: Client) -> Stream:
    """``client``'s stream, once it is surely connected: ``helper`` challenges it, the stream
    shows the challenge (streams send pending challenges on connect, then what comes after),
    and ``helper`` cancels it again."""
    asked = challenge(helper, [client.username, "house:random"])
    stream = Stream(client)
    stream.start()
    stream.find("challenge", id=asked["id"])
    helper.ok("POST", f"/challenges/{asked['id']}/cancel")
    stream.find("challenge_canceled", id=asked["id"], status="canceled")
    return stream


def test_it_lets_two_bots_challenge_accept_play_and_ask_a_rematch(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    owner = register(api_server.url, "botkeeper")
    left, right = bot_of(owner, "leftbot"), bot_of(owner, "rightbot")
    left_stream = listening(left, owner)

    asked = challenge(left, ["rightbot", "house:random"], rated=True)
    right_stream = Stream(right)
    right_stream.start()
    line = right_stream.find("challenge", id=asked["id"])
    accepted = right.ok("POST", f"/challenges/{asked['id']}/accept")

    assert asked["status"] == "pending" and asked["game"] is None
    assert asked["from"] == "leftbot" and asked["to"] == ["rightbot", "house:random"]
    assert [s["answer"] for s in asked["seats"]] == ["accepted", "pending", "accepted"]
    assert line["challenge"] == asked
    assert accepted["status"] == "accepted" and isinstance(accepted["game"], int)
    game_id = accepted["game"]
    for stream in (left_stream, right_stream):
        assert stream.find("game_start", game=game_id)
        assert stream.find("challenge_accepted", id=asked["id"], game=game_id)
    seats = left.ok("GET", f"/games/{game_id}")["seats"]
    assert [s["username"] for s in seats] == ["leftbot", "rightbot", "house:random"]
    # Not before the end, and only for its players.
    error_of(left.post("/challenges", json={"rematch_of": game_id}), 409, "game_in_progress")
    error_of(owner.post("/challenges", json={"rematch_of": game_id}), 403, "not_seated")

    final = play_to_the_end([left, right], game_id, random.Random(32))

    assert final["status"] == "finished"
    for stream in (left_stream, right_stream):
        assert stream.find("game_finish", game=game_id)
    history = left.ok("GET", "/players/rightbot/games")["results"]
    assert [entry["game"] for entry in history] == [game_id]
    # Rated (by the worker's task itself: the suite's servers queue no ratings).
    assert rate_game(game_id)
    for bot in ("leftbot", "rightbot"):
        points = left.ok("GET", f"/players/{bot}/ratings?pool=classic")["results"]
        assert [p["game"] for p in points] == [game_id]
    assert Table.objects.get(game__id=game_id).created_by.username == "leftbot"

    rematch = right.ok("POST", "/challenges", 201, json={"rematch_of": game_id})
    left_stream.find("challenge", id=rematch["id"])
    started = left.ok("POST", f"/challenges/{rematch['id']}/accept")

    assert rematch["from"] == "rightbot" and rematch["rematch_of"] == game_id
    assert [s["username"] for s in rematch["seats"]] == ["leftbot", "rightbot", "house:random"]
    assert rematch["to"] == ["leftbot", "house:random"]
    assert (rematch["rules"], rematch["rated"], rematch["move_seconds"]) == (SHORT, True, 600)
    again = right.ok("GET", f"/games/{started['game']}")
    assert [s["username"] for s in again["seats"]] == ["leftbot", "rightbot", "house:random"]
    assert right_stream.find("game_start", game=started["game"])


def test_it_ends_a_challenge_one_invitee_declines(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("dann", "dbob", "dcat"))
    ann_stream, cat_stream = listening(ann, bob), listening(cat, bob)

    asked = challenge(ann, ["dbob", "dcat"])
    declined = bob.ok("POST", f"/challenges/{asked['id']}/decline")

    assert declined["status"] == "declined"
    assert [s["answer"] for s in declined["seats"]] == ["accepted", "declined", "pending"]
    for stream in (ann_stream, cat_stream):
        line = stream.find("challenge_declined", id=asked["id"], status="declined")
        assert line["by"] == "dbob"
    late = error_of(cat.post(f"/challenges/{asked['id']}/accept"), 409, "challenge_not_pending")
    assert late["status"] == "declined"
    assert ann.ok("GET", "/challenges")["results"] == []
    assert ann.ok("GET", f"/challenges/{asked['id']}")["status"] == "declined"


def test_it_expires_an_unanswered_challenge(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann, bob = register(api_server.url, "eann"), register(api_server.url, "ebob")
    ann_stream, bob_stream = listening(ann, bob), listening(bob, ann)

    asked = challenge(ann, ["ebob", "house:heuristic"], expires_in=1)

    # Beat's sweep tells both sides, nobody asking.
    for stream in (ann_stream, bob_stream):
        stream.find("challenge_expired", id=asked["id"], status="expired")
    late = error_of(bob.post(f"/challenges/{asked['id']}/accept"), 409, "challenge_not_pending")
    assert late["status"] == "expired"
    assert ann.ok("GET", "/challenges")["count"] == 0


def test_it_treats_a_challenge_past_its_time_as_expired_before_the_sweep(
    api_server: LiveServer,
) -> None:
    ann, bob = register(api_server.url, "xann"), register(api_server.url, "xbob")
    asked = challenge(ann, ["xbob", "house:random"], expires_in=1)
    Challenge.objects.filter(pk=asked["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    shown = bob.ok("GET", f"/challenges/{asked['id']}")
    refused = error_of(bob.post(f"/challenges/{asked['id']}/accept"), 409, "challenge_not_pending")

    assert shown["status"] == "expired"
    assert refused["status"] == "expired"
    assert Challenge.objects.get(pk=asked["id"]).status == "expired"
    assert bob.ok("GET", "/challenges")["count"] == 0


def test_it_lets_the_challenger_cancel_and_no_one_else(api_server: LiveServer) -> None:
    ann, bob, olga = (register(api_server.url, name) for name in ("cann", "cbob", "colga"))
    bob_stream = listening(bob, olga)
    asked = challenge(ann, ["cbob", "house:strong"])
    bob_stream.find("challenge", id=asked["id"])

    error_of(bob.post(f"/challenges/{asked['id']}/cancel"), 403, "not_challenger")
    error_of(olga.post(f"/challenges/{asked['id']}/accept"), 403, "not_invited")
    error_of(olga.post(f"/challenges/{asked['id']}/decline"), 403, "not_invited")
    error_of(ann.post(f"/challenges/{asked['id']}/accept"), 403, "not_invited")
    error_of(olga.get(f"/challenges/{asked['id']}"), 404, "not_found")
    listed = {c["id"] for c in bob.ok("GET", "/challenges")["results"]}
    canceled = ann.ok("POST", f"/challenges/{asked['id']}/cancel")

    assert listed == {asked["id"]}
    assert canceled["status"] == "canceled"
    bob_stream.find("challenge_canceled", id=asked["id"])
    error_of(bob.post(f"/challenges/{asked['id']}/accept"), 409, "challenge_not_pending")
    error_of(ann.post(f"/challenges/{asked['id']}/cancel"), 409, "challenge_not_pending")
    error_of(ann.post("/challenges/999999/accept"), 404, "not_found")


def test_it_lists_the_callers_pending_challenges_in_and_out(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("lann", "lbob", "lcat"))
    out = challenge(ann, ["lbob", "house:random"])
    incoming = challenge(cat, ["lann", "lbob"])
    elsewhere = challenge(bob, ["lcat", "house:random"])
    answered = challenge(cat, ["lann", "house:random"])
    ann.ok("POST", f"/challenges/{answered['id']}/decline")

    listed = ann.ok("GET", "/challenges")

    assert [c["id"] for c in listed["results"]] == [incoming["id"], out["id"]]
    assert listed["count"] == 2 and elsewhere["id"] not in {c["id"] for c in listed["results"]}


def accept_together(clients: list[Client], challenge_id: int) -> list[dict[str, Any]]:
    """Each of ``clients`` accepts the challenge in its own thread, all at the same moment."""
    barrier = threading.Barrier(len(clients))
    answers: list[dict[str, Any]] = []

    def accept(client: Client) -> None:
        barrier.wait()
        answers.append(client.ok("POST", f"/challenges/{challenge_id}/accept"))

    threads = [threading.Thread(target=accept, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_it_starts_exactly_one_game_when_the_last_two_accept_at_once(
    api_server: LiveServer,
) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("rann", "rbob", "rcat"))
    for _ in range(3):
        asked = challenge(ann, ["rbob", "rcat"])

        answers = accept_together([bob, cat], asked["id"])

        games = {a["game"] for a in answers} - {None}
        assert len(answers) == 2 and len(games) == 1, answers
        assert Challenge.objects.get(pk=asked["id"]).game_id in games
    assert Table.objects.filter(created_by__username="rann").count() == 3


def test_it_starts_at_once_a_challenge_of_house_bots_only(api_server: LiveServer) -> None:
    ann = register(api_server.url, "hann")

    started = challenge(ann, ["house:random", "house:random"])

    assert started["status"] == "accepted" and isinstance(started["game"], int)
    seats = ann.ok("GET", f"/games/{started['game']}")["seats"]
    assert [s["username"] for s in seats] == ["hann", "house:random", "house:random"]


def test_it_refuses_challenges_it_cannot_seat(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "fann"), register(api_server.url, "fbob")
    register(api_server.url, "fgone")
    Player.objects.filter(username="fgone").update(is_active=False)

    def refused(body: Any, status: int, code: str) -> dict[str, Any]:
        return error_of(ann.post("/challenges", json=body), status, code)

    assert "to" in refused({"to": ["fbob"]}, 400, "invalid")["fields"]
    refused({"to": ["fbob", "house:random"], "rules": "four-handed"}, 400, "invalid")
    refused({"to": ["fann", "fbob"]}, 400, "cannot_challenge_yourself")
    refused({"to": ["fbob", "fbob"]}, 400, "duplicate_player")
    refused({"to": ["fbob", "nobody-here"]}, 404, "not_found")
    refused({"to": ["fbob", "fgone"]}, 404, "not_found")
    refused({"to": ["fbob", "house:genius"]}, 400, "unknown_bot")
    refused({"to": ["fbob", "house:random"], "rules": "whist"}, 400, "invalid_rules")
    refused({"to": ["fbob", "house:random"], "expires_in": 0}, 400, "invalid")
    refused({"rules": "classic"}, 400, "invalid")
    refused({"rematch_of": 1, "to": ["fbob", "house:random"]}, 400, "invalid")
    refused({"rematch_of": 999999}, 404, "not_found")
    refused({"to": "fbob"}, 400, "invalid")
    assert ann.ok("GET", "/challenges")["count"] == 0
    assert bob.ok("GET", "/challenges")["count"] == 0
