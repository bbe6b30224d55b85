"""Long polls and the stream: waiting clients are woken by moves, and kept alive."""

from __future__ import annotations

import json
import random
import threading
import time
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.game_helpers import choose_action, seat_to_act, start_table, three_players

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_wakes_a_long_poll_when_the_next_event_arrives(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "poll")
    game_id = start_table(players[0], players[1:])
    watcher = players[1]
    last = watcher.ok("GET", f"/games/{game_id}/events?after=0")["last_seq"]
    result: dict[str, Any] = {}

    def wait_for_events() -> None:
        started = time.monotonic()
        result["body"] = watcher.ok("GET", f"/games/{game_id}/events?after={last}&wait=20")
        result["elapsed"] = time.monotonic() - started

    waiter = threading.Thread(target=wait_for_events)
    waiter.start()
    time.sleep(1.0)
    assert waiter.is_alive(), "the long poll returned before anything happened"
    actor, view = seat_to_act(players, game_id)
    actor.ok("POST", f"/games/{game_id}/actions", json=choose_action(view, random.Random(2)))
    waiter.join(timeout=20)

    assert 1.0 <= result["elapsed"] < 5.0
    events = result["body"]["events"]
    assert events and events[0]["seq"] > last
    assert result["body"]["version"] == view["version"] + 1


def test_it_ends_a_long_poll_with_no_events_after_the_wait(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "idle")
    game_id = start_table(players[0], players[1:])
    last = players[0].ok("GET", f"/games/{game_id}/events")["last_seq"]

    started = time.monotonic()
    body = players[0].ok("GET", f"/games/{game_id}/events?after={last}&wait=1")

    assert body["events"] == []
    assert 1.0 <= time.monotonic() - started < 4.0


def test_it_refuses_waits_over_60_seconds(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "long")
    game_id = start_table(players[0], players[1:])

    response = players[0].get(f"/games/{game_id}/events?wait=61")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def read_stream(url: str, token: str, lines: list[str], stop: threading.Event) -> None:
    with httpx.stream(
        "GET", url + "/api/v1/stream", headers={"Authorization": f"Token {token}"}, timeout=30
    ) as response:
        for line in response.iter_lines():
            lines.append(line)
            if stop.is_set():
                return


def test_it_streams_pending_turns_on_connect_then_new_ones_and_keepalives(
    api_server: LiveServer,
) -> None:
    players = three_players(api_server.url, "stream")
    game_id = start_table(players[0], players[1:])
    actor, view = seat_to_act(players, game_id)
    lines: list[str] = []
    stop = threading.Event()
    reader = threading.Thread(
        target=read_stream, args=(api_server.url, actor.token, lines, stop), daemon=True
    )
    started = time.monotonic()
    reader.start()

    def parsed() -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(lines) if line.strip()]

    deadline = time.monotonic() + 10
    while not parsed() and time.monotonic() < deadline:
        time.sleep(0.05)
    first = parsed()[0]
    assert first == {
        "type": "your_turn",
        "game": game_id,
        "seat": view["your_seat"],
        "version": view["version"],
        "phase": view["phase"],
        "deadline": view["deadline"],
        "view": view,
    }

    # The dealer acts twice in a row (trump, then discard): a new your_turn follows.
    actor.ok("POST", f"/games/{game_id}/actions", json=choose_action(view, random.Random(3)))
    deadline = time.monotonic() + 10
    while len(parsed()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    second = parsed()[1]
    assert second["type"] == "your_turn"
    assert second["version"] == view["version"] + 1
    assert second["view"] == actor.ok("GET", f"/games/{game_id}")

    deadline = started + 12
    while "" not in lines and time.monotonic() < deadline:
        time.sleep(0.1)
    stop.set()
    assert "" in lines, "no keep-alive line within 10 s"


def test_it_refuses_the_stream_without_a_token(api_server: LiveServer) -> None:
    response = httpx.get(api_server.url + "/api/v1/stream", timeout=10)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
