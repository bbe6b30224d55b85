"""What one accepted move costs the databases below the view: its PostgreSQL statements,
whether any runs inside a transaction (a ``BEGIN`` and a ``COMMIT``, two more round trips),
and its Redis commands. Counts, not timings: a change that adds a round trip to the move
path fails here."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection

from accounts.models import Player
from core import background
from games import game_cache, play, selectors
from games.models import Game
from tests.game_helpers import choose_action
from tests.test_game_cache import move, subscribe, three_players

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def service_mode() -> Iterator[None]:
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("the one-statement move and its publish are service mode's")
    subscribe()
    game_cache.written_here.clear()
    yield
    game_cache.written_here.clear()


Statement = tuple[str, bool]  # (its SQL, whether it ran inside a transaction)


def statements_of(act: Callable[[], Any]) -> list[Statement]:
    """Every statement ``act`` sends, each with whether a transaction was open around it."""
    sent: list[Statement] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        sent.append((sql, not connection.get_autocommit() or connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        act()
    return sent


def redis_commands_of(act: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Redis commands ``act`` sends, from any thread but the subscription's, counting
    those it leaves to the background thread (which is let finish first). What earlier
    work left to that thread (the publish of the move before) is sent before counting."""
    sent: list[str] = []
    execute = redis.Redis.execute_command

    def record(client: redis.Redis, *args: Any, **options: Any) -> Any:
        if threading.current_thread().name != "pubsub-listener":
            sent.append(str(args[0]).upper())
        return execute(client, *args, **options)

    background_drained()
    monkeypatch.setattr(redis.Redis, "execute_command", record)
    act()
    background_drained()
    monkeypatch.undo()
    return sent


def background_drained() -> None:
    """Once the background thread has run everything queued to it so far."""
    drained = threading.Event()
    background.run_soon(drained.set)
    assert drained.wait(10)


def next_move(players: list[Player], game_id: int, rng: random.Random) -> Callable[[], Any]:
    """The service call of the next seat's move, its action chosen now (the reads for that
    are not the move's)."""
    (seat,) = Game.objects.get(pk=game_id).to_act
    action = choose_action(selectors.game_view_for(game_id, players[seat]), rng)
    return lambda: play.submit_action(
        players[seat], game_id=game_id, action=action, expected_version=None
    )


def test_it_writes_a_move_on_the_kept_row_in_one_statement_without_a_transaction(
    service_mode: None,
) -> None:
    players, game_id = three_players()
    rng = random.Random(11)
    move(players, game_id, rng)  # this process keeps the row it wrote
    version = Game.objects.get(pk=game_id).version
    act = next_move(players, game_id, rng)

    sent = statements_of(act)

    assert [inside for _, inside in sent] == [False]
    assert sent[0][0].startswith("WITH changed AS (UPDATE")
    assert Game.objects.get(pk=game_id).version == version + 1


def test_it_reads_and_writes_a_move_without_a_kept_row_in_two_statements(
    service_mode: None,
) -> None:
    players, game_id = three_players()
    rng = random.Random(12)
    move(players, game_id, rng)
    act = next_move(players, game_id, rng)
    game_cache.written_here.clear()  # as after another process's change

    sent = statements_of(act)

    assert [inside for _, inside in sent] == [False, False]
    assert "FROM games_game WHERE id" in sent[0][0]
    assert sent[1][0].startswith("WITH changed AS (UPDATE")


def test_it_publishes_a_move_with_one_redis_command(
    service_mode: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    players, game_id = three_players()
    rng = random.Random(13)
    move(players, game_id, rng)
    act = next_move(players, game_id, rng)

    assert redis_commands_of(act, monkeypatch) == ["PUBLISH"]
