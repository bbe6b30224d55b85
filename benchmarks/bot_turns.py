"""Benchmark of bot turns and move timers on PostgreSQL + Redis with real Celery processes.

    .venv/bin/python benchmarks/bot_turns.py [--tables 6] [--hands 4] [--timeout-tables 4]

Creates a fresh database (``sergeant_bench_bots``), uses Redis db 13, starts a Celery worker
(prefork, 2 processes) and beat, then measures in one run:

1. baseline: the Celery round trip of a no-op task (enqueue -> the task runs), 50 times;
2. bot turn latency: tables of three ``house:heuristic`` bots, first one table alone, then
   ``--tables`` at once; latency = from one change of a game being written to the bot's
   answering change being written (the ``at`` of their events; the last commit is not
   included). Target: p50 <= 20 ms;
3. timeout lateness: ``--timeout-tables`` tables of absent humans (1 s move time): how long
   after its deadline each timeout was played. Target: <= 1 s.
"""

from __future__ import annotations

import argparse
import itertools
import time
from datetime import timedelta
from typing import Any

from common import percentile, service_platform

DB_NAME = "sergeant_bench_bots"
REDIS_URL = "redis://127.0.0.1:6379/13"


def summary(values: list[float]) -> str:
    if not values:
        return "no samples"
    ms = [v * 1000 for v in values]
    return (
        f"n={len(ms)}  p50 {percentile(ms, 0.5):.1f} ms  p90 {percentile(ms, 0.9):.1f} ms  "
        f"p99 {percentile(ms, 0.99):.1f} ms  max {max(ms):.1f} ms"
    )


def celery_round_trips(count: int) -> list[float]:

    from core.heartbeats import HEARTBEAT_KEY, heartbeat_store
    from health.tasks import record_heartbeat

    samples = []
    for _ in range(count):
        sent = time.time()
        record_heartbeat.apply_async()
        while True:
            beat = heartbeat_store().get(HEARTBEAT_KEY)
            if beat and beat["at"] >= sent:
                samples.append(beat["at"] - sent)
                break
            time.sleep(0.0005)
        time.sleep(0.01)
    return samples


def change_times(game_id: int) -> list[Any]:
    """The write time of every change of a game, in order (one ``at`` per change)."""
    from games.models import GameEvent

    times = GameEvent.objects.filter(game_id=game_id).order_by("seq").values_list("at", flat=True)
    distinct: list[Any] = []
    for at in times:
        if not distinct or at != distinct[-1]:
            distinct.append(at)
    return distinct


def bot_tables(owner: Any, count: int, hands: int, bot: str) -> list[int]:
    from games import tables
    from games.models import Game

    ids = []
    for _ in range(count):
        table = tables.create_table(
            owner,
            rules={"preset": "classic", "max_hands": hands},
            rated=True,
            move_seconds=30,
            seat=None,
        )
        for seat in range(3):
            tables.seat_bot(owner, table_id=table.pk, bot=bot, seat=seat)
        ids.append(Game.objects.get(table=table).pk)
    return ids


def wait_finished(game_ids: list[int], timeout: float) -> None:
    from games.models import Game

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Game.objects.filter(pk__in=game_ids, status=Game.Status.PLAYING).exists():
            return
        time.sleep(0.2)
    raise RuntimeError("games did not finish in time")


def turn_latencies(game_ids: list[int]) -> list[float]:
    latencies = []
    for game_id in game_ids:
        times = change_times(game_id)
        latencies += [(b - a).total_seconds() for a, b in itertools.pairwise(times)]
    return latencies


def timeout_lateness(tables: int, seconds: float) -> list[float]:
    from accounts.services import register_player
    from games.models import Game, GameEvent
    from games.tables import create_table, join_table

    ids = []
    for t in range(tables):
        players = [
            register_player(f"absent{t}x{i}", password="bench-password-1")[0] for i in range(3)
        ]
        table = create_table(players[0], rules="classic", rated=True, move_seconds=1, seat=0)
        join_table(players[1], table_id=table.pk, seat=1)
        join_table(players[2], table_id=table.pk, seat=2)
        ids.append(Game.objects.get(table=table).pk)
    time.sleep(seconds)
    lateness = []
    for game_id in ids:
        times = change_times(game_id)
        timeouts = {
            e.at for e in GameEvent.objects.filter(game_id=game_id, type="timeout").only("at")
        }
        for before, at in itertools.pairwise(times):
            if at in timeouts:
                lateness.append((at - (before + timedelta(seconds=1))).total_seconds())
    return lateness


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--timeout-tables", type=int, default=4)
    parser.add_argument("--timeout-seconds", type=float, default=8.0)
    parser.add_argument("--bot", default="house:heuristic")
    args = parser.parse_args()

    with service_platform(DB_NAME, REDIS_URL):
        # Django is set up only now (the platform's settings): the project's modules after it.
        from accounts.services import register_player

        print(f"Celery round trip (baseline):     {summary(celery_round_trips(50))}")
        owner, _ = register_player("bench-host", password="bench-password-1")
        alone = bot_tables(owner, 1, args.hands, args.bot)
        wait_finished(alone, 300)
        print(f"{args.bot} turn, one table:   {summary(turn_latencies(alone))}")
        many = bot_tables(owner, args.tables, args.hands, args.bot)
        started = time.monotonic()
        wait_finished(many, 600)
        elapsed = time.monotonic() - started
        moves = sum(len(change_times(g)) - 1 for g in many)
        print(
            f"{args.bot} turn, {args.tables} tables: {summary(turn_latencies(many))}  "
            f"({moves / elapsed:.0f} bot moves/s)"
        )
        lateness = timeout_lateness(args.timeout_tables, args.timeout_seconds)
        print(f"timeout lateness after deadline:  {summary(lateness)}")


if __name__ == "__main__":
    main()
