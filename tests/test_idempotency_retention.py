"""Idempotency-Key records (docs/api.md "Games"): kept per caller for at least 24 h.

A retry of ``POST /games/{id}/actions`` with the same ``Idempotency-Key`` gets the first
response again and acts once (tests/test_api_concurrency.py, against the live server). Here,
in process (DRF's APIClient, so a test can age a record with a queryset update): how long a
record holds, what ``purge_expired_records`` (the periodic task) drops, and that keys are
per caller.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Player
from accounts.services import register_player
from games import play
from games.models import Game, GameEvent, IdempotencyRecord
from tests.api_client import error_of
from tests.game_helpers import choose_action
from tests.rating_helpers import start_game

pytestmark = pytest.mark.django_db

ALMOST_A_DAY = timedelta(hours=23, minutes=59)
OVER_A_DAY = timedelta(hours=24, minutes=1)


@dataclass
class Table:
    """A started game of classic (one hand) with three players, each with an API client."""

    game_id: int
    players: list[Player]  # by seat
    clients: list[APIClient]  # by seat

    @property
    def path(self) -> str:
        return f"/api/v1/games/{self.game_id}"

    def version(self) -> int:
        return Game.objects.get(pk=self.game_id).version

    def events(self) -> int:
        return GameEvent.objects.filter(game_id=self.game_id).count()

    def to_act(self) -> int:
        return int(Game.objects.get(pk=self.game_id).to_act[0])

    def action(self, seat: int, rng: random.Random) -> dict[str, Any]:
        """A legal action for ``seat``, with the version it was chosen at."""
        view = self.clients[seat].get(self.path).json()
        return {**choose_action(view, rng), "expected_version": view["version"]}

    def post(self, seat: int, body: dict[str, Any], key: str | None = None) -> Any:
        headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
        return self.clients[seat].post(f"{self.path}/actions", body, format="json", **headers)

    def move_on(self, rng: random.Random) -> None:
        """One action, without a key, by whoever is to act."""
        seat = self.to_act()
        assert self.post(seat, self.action(seat, rng)).status_code == 200


def signed_up(username: str) -> tuple[Player, APIClient]:
    """A new player and an API client with its token."""
    player, token = register_player(username, password="correct horse battery")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return player, client


@pytest.fixture
def table() -> Table:
    players, clients = zip(*(signed_up(f"keep{seat}") for seat in range(3)), strict=True)
    return Table(start_game(list(players)), list(players), list(clients))


def age(player: Player, key: str, by: timedelta) -> None:
    """Make the record of ``player``'s ``key`` as old as ``by``."""
    aged = IdempotencyRecord.objects.filter(player=player, key=key).update(
        created_at=timezone.now() - by
    )
    assert aged == 1


def test_it_answers_a_retry_a_minute_before_the_day_is_out_with_the_first_response(
    table: Table,
) -> None:
    rng = random.Random(3)
    seat = table.to_act()
    body = table.action(seat, rng)
    key = str(uuid.uuid4())
    first = table.post(seat, body, key)
    assert first.status_code == 200, first.content
    table.move_on(rng)  # the game moves on: acting again would be refused
    version, events = table.version(), table.events()
    age(table.players[seat], key, ALMOST_A_DAY)

    retry = table.post(seat, body, key)

    assert retry.status_code == 200, retry.content
    assert retry.content == first.content
    assert (table.version(), table.events()) == (version, events)
    # The record still binds the key to its request.
    other = {**body, "expected_version": version}
    error_of(table.post(seat, other, key), 409, "idempotency_key_reused")


def test_it_takes_a_key_used_over_a_day_ago_as_a_new_request(table: Table) -> None:
    rng = random.Random(4)
    seat = table.to_act()
    body = table.action(seat, rng)
    key = str(uuid.uuid4())
    assert table.post(seat, body, key).status_code == 200
    version = table.version()
    age(table.players[seat], key, OVER_A_DAY)

    retry = table.post(seat, body, key)

    # Not the stored answer: the request is checked afresh (its version is stale now).
    error = error_of(retry, 409, "version_conflict")
    assert error["version"] == version
    assert table.version() == version


def test_it_purges_records_older_than_a_day_and_keeps_younger_ones(table: Table) -> None:
    rng = random.Random(5)
    keys: dict[str, tuple[Player, dict[str, Any], bytes]] = {}
    for name in ("old", "young", "new"):
        seat = table.to_act()
        body = table.action(seat, rng)
        response = table.post(seat, body, name)
        assert response.status_code == 200, response.content
        keys[name] = (table.players[seat], body, response.content)
    age(keys["old"][0], "old", OVER_A_DAY)
    age(keys["young"][0], "young", ALMOST_A_DAY)

    purged = play.purge_expired_records()

    assert purged == 1
    kept = IdempotencyRecord.objects.values_list("player_id", "key")
    assert sorted(kept) == sorted((keys[k][0].pk, k) for k in ("young", "new"))
    for name in ("young", "new"):
        player, body, content = keys[name]
        retry = table.post(table.players.index(player), body, name)
        assert (retry.status_code, retry.content) == (200, content), name


def test_it_keeps_each_callers_keys_apart(table: Table) -> None:
    rng = random.Random(6)
    key = "the-same-key"
    first_seat = table.to_act()
    first_body = table.action(first_seat, rng)
    first = table.post(first_seat, first_body, key)
    assert first.status_code == 200, first.content
    while table.to_act() == first_seat:
        table.move_on(rng)
    second_seat = table.to_act()
    second_body = table.action(second_seat, rng)
    version, events = table.version(), table.events()

    second = table.post(second_seat, second_body, key)

    # The second caller's request is acted on, not answered with the first caller's response.
    assert second.status_code == 200, second.content
    assert second.content != first.content
    assert json.loads(second.content)["your_seat"] == second_seat
    assert table.version() == version + 1 and table.events() > events
    records = IdempotencyRecord.objects.filter(key=key)
    assert sorted(records.values_list("player_id", flat=True)) == sorted(
        table.players[s].pk for s in (first_seat, second_seat)
    )
    # Each retry gets its own caller's first response; an outsider's use of the key is a
    # request of its own (refused: it has no seat), not an answer stored for another.
    assert table.post(first_seat, first_body, key).content == first.content
    assert table.post(second_seat, second_body, key).content == second.content
    _, outsider = signed_up("keep3")
    refused = outsider.post(
        f"{table.path}/actions", first_body, format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    error_of(refused, 403, "not_seated")
    assert table.version() == version + 1
    assert records.count() == 2


def test_it_says_when_the_service_replays_a_kept_view(table: Table) -> None:
    """In process: ``submit_action`` tells a retry's kept view from a new one; the API
    answers both 200."""
    rng = random.Random(7)
    seat = table.to_act()
    body = table.action(seat, rng)
    player, action = table.players[seat], {k: v for k, v in body.items() if k != "expected_version"}
    fingerprint = play.request_fingerprint(path=f"{table.path}/actions", body=body)

    def submit() -> play.Acted:
        return play.submit_action(
            player,
            game_id=table.game_id,
            action=action,
            expected_version=body["expected_version"],
            idempotency_key="in-process",
            fingerprint=fingerprint,
        )

    first = submit()
    version, events = table.version(), table.events()
    again = submit()

    assert not first.replayed and again.replayed
    assert again.view["version"] == first.view["version"] == version
    assert again.view["your_seat"] == seat
    assert (table.version(), table.events()) == (version, events)
    # The record's status stays what processes of the previous version read.
    assert IdempotencyRecord.objects.get(player=player, key="in-process").status_code == 200
