"""A web process starts a move from the game row it wrote last (games/game_cache.py), and
never answers from a stale one."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from core.errors import DomainError
from games import game_cache, play, selectors
from games.models import Game
from realtime import hub
from tests.game_helpers import choose_action
from tests.rating_helpers import new_players, start_game

pytestmark = pytest.mark.django_db(transaction=True)

cache = game_cache.written_here


def subscribe() -> None:
    """Start this process's Redis subscription and wait until it is up."""

    async def until_subscribed() -> bool:
        with hub.listening(hub.player_channel(0)):
            return await hub.wait_subscribed(10)

    assert asyncio.run(until_subscribed())


@pytest.fixture
def subscribed() -> Iterator[None]:
    if not settings.REDIS_URL:
        pytest.skip("the cache needs the Redis subscription (service mode)")
    subscribe()
    cache.clear()
    yield
    cache.clear()


def three_players() -> tuple[list[Player], int]:
    players = new_players("cache", 3)
    return players, start_game(list(players), {"preset": "classic"})


def move(players: list[Player], game_id: int, rng: random.Random) -> dict[str, Any]:
    """The seat to act plays a random legal action through the service; its response."""
    game = Game.objects.get(pk=game_id)
    (seat,) = game.to_act
    view = selectors.game_view_for(game_id, players[seat])
    return play.submit_action(
        players[seat], game_id=game_id, action=choose_action(view, rng), expected_version=None
    ).view


def game_with_a_kept_row(seed: int) -> tuple[list[Player], int, random.Random, Game]:
    """A game whose first move this process made: the row it kept."""
    players, game_id = three_players()
    rng = random.Random(seed)
    move(players, game_id, rng)
    kept = cache.get(game_id)
    assert kept is not None
    return players, game_id, rng, kept


def game_reads(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if "FROM games_game WHERE id" in q["sql"]]


def test_it_starts_the_next_move_from_the_row_it_wrote(subscribed: None) -> None:
    players, game_id, rng, kept = game_with_a_kept_row(1)
    assert kept.version == Game.objects.get(pk=game_id).version

    with CaptureQueriesContext(connection) as queries:
        after = move(players, game_id, rng)

    assert game_reads(queries) == []  # the row came from the cache
    stored = Game.objects.get(pk=game_id)
    assert after["version"] == stored.version == kept.version + 1
    assert cache.get(game_id).state == stored.state  # type: ignore[union-attr]


def test_it_reads_the_game_when_the_cache_is_not_current() -> None:
    """Embedded default, or no subscription yet: nothing is kept, every move reads."""
    if settings.REDIS_URL:
        pytest.skip("the embedded default keeps nothing")
    players, game_id = three_players()
    rng = random.Random(2)
    move(players, game_id, rng)
    assert cache.get(game_id) is None and len(cache) == 0

    with CaptureQueriesContext(connection) as queries:
        move(players, game_id, rng)

    assert len(game_reads(queries)) == 1


def test_it_plays_a_move_the_stale_row_refuses_on_the_fresh_row(subscribed: None) -> None:
    players, game_id, rng, stale = game_with_a_kept_row(3)
    # Another process plays the next move (its wake-up never reaches this one).
    game_cache.written_here.clear()
    move(players, game_id, rng)
    cache.clear()
    cache.put(stale)
    fresh = Game.objects.get(pk=game_id)
    (seat,) = fresh.to_act
    assert seat not in stale.to_act  # on the stale row, not this seat's turn

    view = selectors.game_view_for(game_id, players[seat])
    acted = play.submit_action(
        players[seat],
        game_id=game_id,
        action=choose_action(view, rng),
        expected_version=fresh.version,
    )

    assert not acted.replayed
    assert acted.view["version"] == fresh.version + 1 == Game.objects.get(pk=game_id).version


def test_it_stores_nothing_from_a_stale_row(subscribed: None) -> None:
    """A move the stale row allows but the game no longer does: not stored, and refused
    as the fresh row says."""
    players, game_id, rng, stale = game_with_a_kept_row(4)
    (stale_seat,) = stale.to_act
    view = selectors.game_view_for(game_id, players[stale_seat])
    cache.clear()
    move(players, game_id, rng)  # "another process" moves on
    cache.clear()
    cache.put(stale)
    before = Game.objects.get(pk=game_id)
    assert stale_seat not in before.to_act

    with pytest.raises(DomainError) as refused:
        play.submit_action(
            players[stale_seat],
            game_id=game_id,
            action=choose_action(view, rng),
            expected_version=None,
        )

    assert refused.value.code == "not_your_turn"
    after = Game.objects.get(pk=game_id)
    assert (after.version, after.state) == (before.version, before.state)


def test_it_forgets_a_game_another_process_changed(subscribed: None) -> None:
    players, game_id = three_players()
    move(players, game_id, random.Random(5))
    assert cache.get(game_id) is not None
    other = redis.Redis.from_url(settings.REDIS_URL)
    channel = hub.game_channel(game_id)

    other.publish(hub.REDIS_CHANNEL, hub.wire_message([channel], {}, "another-process"))

    deadline = time.monotonic() + 10
    while cache.get(game_id) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cache.get(game_id) is None


def test_it_forgets_every_game_when_the_subscription_starts_again(subscribed: None) -> None:
    players, game_id = three_players()
    move(players, game_id, random.Random(6))
    assert cache.get(game_id) is not None
    other = redis.Redis.from_url(settings.REDIS_URL)
    (listener,) = [c for c in other.client_list() if c["name"] == hub.listener_name()]

    assert other.client_kill_filter(_id=listener["id"]) == 1  # wake-ups may be lost now

    deadline = time.monotonic() + 10
    while len(cache) and time.monotonic() < deadline:
        time.sleep(0.01)
    subscribe()
    assert len(cache) == 0


def test_it_keeps_no_row_of_a_change_rolled_back(subscribed: None) -> None:
    players, game_id, rng, kept = game_with_a_kept_row(7)

    with pytest.raises(RuntimeError), transaction.atomic():
        move(players, game_id, rng)
        raise RuntimeError("rolled back")

    assert cache.get(game_id).version == kept.version  # type: ignore[union-attr]
    assert Game.objects.get(pk=game_id).version == kept.version
