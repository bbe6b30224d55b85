"""Move timeouts, kept by a real move timer process (manage.py movetimer, games/timekeeper.py):
the fallback at the deadline, the race with a move just in time, a beat that was down, a
game whose row is locked."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Player
from accounts.services import register_player
from games import play, selectors, tables, timekeeper
from games.engine import Game as Engine
from games.models import Game, GameEvent, GamePlayer
from tests.conftest import WorkerInfo
from tests.game_helpers import choose_action
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def humans(prefix: str, count: int = 3) -> list[Player]:
    return [
        register_player(f"{prefix}{i}", password="correct horse battery")[0] for i in range(count)
    ]


def game_of(players: list[Player | str], move_seconds: int, rules: Any = "classic") -> Game:
    """A started game with these seats (players, or house bot names), in seat order."""
    owner = next(p for p in players if isinstance(p, Player))
    table = tables.create_table(
        owner, rules=rules, rated=True, move_seconds=move_seconds, seat=None
    )
    for seat, who in enumerate(players):
        if isinstance(who, Player):
            tables.join_table(who, table_id=table.pk, seat=seat)
        else:
            tables.seat_bot(owner, table_id=table.pk, bot=who, seat=seat)
    return Game.objects.get(table=table)


@contextlib.contextmanager
def row_held_by_another_change(game_id: int, **changes: Any) -> Iterator[None]:
    """Inside: another connection's transaction has updated the game's row with
    ``changes`` and holds its lock; it commits on leaving."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                Game.objects.filter(pk=game_id).update(**changes)
                holding.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(timeout=30)
        yield
    finally:
        release.set()
        holder.join()


def timeout_events(game_id: int) -> list[dict[str, Any]]:
    return [
        {"seq": e.seq, **e.payload}
        for e in GameEvent.objects.filter(game_id=game_id, type="timeout").order_by("seq")
    ]


def test_it_plays_the_fallback_once_when_the_deadline_passes(celery_worker: WorkerInfo) -> None:
    game = game_of(humans("late"), move_seconds=2)
    engine = Engine.from_json(game.state)
    (seat,) = engine.to_act()
    expected = Engine.from_json(game.state)
    expected.apply(seat, expected.fallback_action(seat))

    moved = wait_until(
        lambda: Game.objects.filter(pk=game.pk, version__gt=game.version).first(),
        timeout=15,
        what="the move timer",
    )
    (timeout,) = GameEvent.objects.filter(game_id=game.pk, type="timeout")
    late_by = timeout.at - game.deadline
    assert moved.version == game.version + 1
    assert moved.state == expected.to_json()
    assert timeout_events(game.pk) == [
        {"seq": timeout_events(game.pk)[0]["seq"], "seat": seat, "timeouts": 1}
    ]
    assert GamePlayer.objects.get(game=game, seat=seat).timeouts == 1
    assert timedelta(0) <= late_by < timedelta(seconds=2)
    # The timer looks again and again: nothing more happens before the next deadline.
    time.sleep(1.0)
    assert Game.objects.get(pk=game.pk).version == moved.version
    assert len(timeout_events(game.pk)) == 1


def test_it_lets_a_move_just_before_the_deadline_win(celery_worker: WorkerInfo) -> None:
    players = humans("intime")
    game = game_of(players, move_seconds=3)
    (seat,) = game.to_act
    time.sleep(max(0.0, (game.deadline - timezone.now()).total_seconds() - 0.3))
    view = selectors.game_view_for(game.pk, players[seat])
    acted = play.submit_action(
        players[seat],
        game_id=game.pk,
        action=choose_action(view, random.Random(1)),
        expected_version=game.version,
    )
    assert acted.view["version"] == game.version + 1
    # Past the old deadline: the move timer found the deadline moved on.
    time.sleep(1.8)
    assert timeout_events(game.pk) == []
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_it_plays_for_late_seats_once_the_move_timer_is_back(celery_worker: WorkerInfo) -> None:
    game = game_of(humans("lost"), move_seconds=2)
    celery_worker.kill_timer()
    try:
        time.sleep(max(0.0, (game.deadline - timezone.now()).total_seconds()) + 1.0)
        assert Game.objects.get(pk=game.pk).version == game.version, "nobody keeps the time"
    finally:
        celery_worker.start_timer()
    moved = wait_until(
        lambda: Game.objects.filter(pk=game.pk, version__gt=game.version).first(),
        timeout=20,
        what="the restarted move timer to play for the late seat",
    )
    assert moved.version == game.version + 1
    assert len(timeout_events(game.pk)) == 1


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite has no row locks: one writer at a time"
)
def test_it_skips_a_game_whose_row_is_locked_without_waiting() -> None:
    """A change holding the row (a timeout, a ruling; a move holds it only while its one
    statement runs): the move timer goes on to the next game, and finds this one at its
    next look if it is still overdue."""
    game = game_of(humans("locked"), move_seconds=3600)
    # The overdue deadline is written under the lock: the suite's timer cannot see it.
    with row_held_by_another_change(game.pk, deadline=timezone.now() - timedelta(seconds=1)):
        with connection.cursor() as cursor:  # waiting for the lock would fail here
            cursor.execute("SET lock_timeout = '2s'")
        try:
            skipped = play.expire_turns(game.pk)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET lock_timeout")

    assert skipped is False
    assert timeout_events(game.pk) == []
    # The row is free: this call plays for the late seat, or the suite's timer does (and
    # this call then skips the row it holds): either way, exactly once.
    play.expire_turns(game.pk)
    wait_until(lambda: len(timeout_events(game.pk)) == 1, timeout=10, what="the timeout")
    time.sleep(0.5)
    assert len(timeout_events(game.pk)) == 1


# The tests below run in one transaction that the suite's move timer (in beat) cannot see.


@pytest.mark.django_db
def test_it_lets_a_move_after_the_deadline_win_if_it_comes_before_the_timer() -> None:
    players = humans("race")
    game = game_of(players, move_seconds=60)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    (seat,) = game.to_act
    view = selectors.game_view_for(game.pk, players[seat])
    acted = play.submit_action(
        players[seat],
        game_id=game.pk,
        action=choose_action(view, random.Random(3)),
        expected_version=game.version,
    )
    assert acted.view["version"] == game.version + 1

    assert play.expire_turns(game.pk) is False  # the move set a new deadline
    assert timeout_events(game.pk) == []
    assert Game.objects.get(pk=game.pk).version == game.version + 1


@pytest.mark.django_db
def test_it_sleeps_until_the_nearest_deadline_and_looks_again_at_least_every_look() -> None:
    timer = timekeeper.MoveTimer()
    game = game_of(humans("look"), move_seconds=3600)
    assert timer.seconds_to_next_look() == settings.MOVE_TIMER_LOOK_SECONDS
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() + timedelta(seconds=0.1))
    assert timekeeper.MIN_WAIT_SECONDS <= timer.seconds_to_next_look() <= 0.1
    # Still overdue after a look (its row was locked): looked at again soon, not at once.
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert timer.seconds_to_next_look() == timekeeper.MIN_WAIT_SECONDS


@pytest.mark.django_db
def test_it_leaves_a_game_whose_timeout_fails_alone_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = game_of(humans("broken"), move_seconds=60)
    sound = game_of(humans("sound"), move_seconds=60)
    overdue = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk__in=[broken.pk, sound.pk]).update(deadline=overdue)
    expire_turns = play.expire_turns
    tried: list[int] = []

    def expire_or_fail(game_id: int) -> bool:
        tried.append(game_id)
        if game_id == broken.pk:
            raise RuntimeError("a broken game")
        return expire_turns(game_id)

    monkeypatch.setattr(play, "expire_turns", expire_or_fail)
    timer = timekeeper.MoveTimer()

    assert timer.play_overdue_turns() == 1
    assert timer.play_overdue_turns() == 0
    assert sorted(tried) == sorted([broken.pk, sound.pk])  # the broken one was tried once
    assert len(timeout_events(sound.pk)) == 1
    # Not counted as the nearest deadline either: no busy loop on it.
    assert timer.seconds_to_next_look() == settings.MOVE_TIMER_LOOK_SECONDS
