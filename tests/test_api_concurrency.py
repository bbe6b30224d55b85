"""Concurrent submissions against the live server: one game changes one step at a time."""

from __future__ import annotations

import random
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.game_helpers import choose_action, seat_to_act, start_table, three_players

pytestmark = pytest.mark.django_db(transaction=True)

CONCURRENT = 50


def post_many(
    url: str, token: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> list[httpx.Response]:
    def send(_: int) -> httpx.Response:
        return httpx.post(
            url,
            json=body,
            headers={"Authorization": f"Token {token}", **(headers or {})},
            timeout=60,
        )

    with ThreadPoolExecutor(max_workers=CONCURRENT) as pool:
        return list(pool.map(send, range(CONCURRENT)))


def test_it_applies_exactly_one_of_50_simultaneous_identical_actions(
    api_server: LiveServer,
) -> None:
    players = three_players(api_server.url, "race")
    game_id = start_table(players[0], players[1:])
    actor, view = seat_to_act(players, game_id)
    action = view["legal_actions"][0]
    url = f"{api_server.url}/api/v1/games/{game_id}/actions"

    responses = post_many(url, str(actor.token), action)

    codes = sorted(r.status_code for r in responses)
    assert codes.count(200) == 1, codes
    assert all(r.status_code in (200, 400, 409) for r in responses), codes
    after = actor.ok("GET", f"/games/{game_id}")
    assert after["version"] == view["version"] + 1
    events = actor.ok("GET", f"/games/{game_id}/events?after=0")["events"]
    assert sum(1 for e in events if e["type"] == action["type"]) == 1


def test_it_refuses_stale_versions_with_409_version_conflict(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "stale")
    game_id = start_table(players[0], players[1:])
    actor, view = seat_to_act(players, game_id)
    url = f"{api_server.url}/api/v1/games/{game_id}/actions"
    body = {**view["legal_actions"][0], "expected_version": view["version"]}

    responses = post_many(url, str(actor.token), body)

    assert [r.status_code for r in responses].count(200) == 1
    conflicts = [r.json()["error"] for r in responses if r.status_code == 409]
    assert len(conflicts) == CONCURRENT - 1
    assert {c["code"] for c in conflicts} == {"version_conflict"}
    assert {c["version"] for c in conflicts} == {view["version"] + 1}


def test_it_answers_idempotent_retries_with_the_first_response_and_acts_once(
    api_server: LiveServer,
) -> None:
    players = three_players(api_server.url, "idem")
    game_id = start_table(players[0], players[1:])
    actor, view = seat_to_act(players, game_id)
    url = f"{api_server.url}/api/v1/games/{game_id}/actions"
    key = str(uuid.uuid4())
    body = view["legal_actions"][0]

    responses = post_many(url, str(actor.token), body, {"Idempotency-Key": key})

    assert {r.status_code for r in responses} == {200}
    assert len({r.text for r in responses}) == 1
    assert actor.ok("GET", f"/games/{game_id}")["version"] == view["version"] + 1

    # Later, after the game moved on, the same retry still gets the first answer.
    mover, moved = seat_to_act(players, game_id)
    mover.ok("POST", f"/games/{game_id}/actions", json=choose_action(moved, random.Random(1)))
    again = actor.post(f"/games/{game_id}/actions", json=body, headers={"Idempotency-Key": key})
    assert again.status_code == 200
    assert again.text == responses[0].text

    other = actor.post(
        f"/games/{game_id}/actions",
        json={"type": "pass"},
        headers={"Idempotency-Key": key},
    )
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_key_reused"
