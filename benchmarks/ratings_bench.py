"""Ratings benchmark on PostgreSQL: the live update per game, and a rebuild of 100,000 games.

    .venv/bin/python benchmarks/ratings_bench.py [--games 100000] [--players 3000] [--live 300]

It creates a fresh PostgreSQL database (``sergeant_ratings_bench``), stores ``--games``
synthetic finished rated classic games between ``--players`` players of hidden strengths
(outcomes drawn from a Plackett-Luce model of those strengths, some ties), then measures:

1. the live update, end to end (``ratings.services.rate_game``: load the game and seats,
   lock, openskill, write ratings and changes, commit) for the first ``--live`` games, in
   ms per game; its baseline in the same run is openskill's ``rate`` alone on the same tables,
   and a repeat delivery of an already rated game (the idempotent no-op);
2. ``manage.py ratings_rebuild --pool classic`` over every game (target <= 60 s); its
   baseline is the in-memory replay alone (reading the games and rating them, no writes);
3. ``ratings_quality``'s figures on these games (how well ratings predict the winner).

Needs PostgreSQL on 127.0.0.1 (``make services``).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
DB_NAME = "sergeant_ratings_bench"


def fresh_database() -> str:
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    return f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"


def setup_django(database_url: str) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATABASE_URL=database_url,
        DATA_DIR=str(ROOT / "var" / "bench"),
        LOG_LEVEL="WARNING",
    )
    os.environ.pop("REDIS_URL", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def synthetic_ranks(strengths: list[float], rng: random.Random) -> list[int]:
    """Ranks drawn from performances ~ N(strength, 4.17); about one game in five has a tie."""
    perf = [rng.gauss(s, 25 / 6) for s in strengths]
    order = sorted(range(len(perf)), key=lambda i: -perf[i])
    ranks = [0] * len(perf)
    for position, seat in enumerate(order, start=1):
        ranks[seat] = position
    roll = rng.random()
    if roll < 0.15:  # the two last share a rank
        ranks = [min(r, 2) for r in ranks]
    elif roll < 0.2:  # the two first share it
        ranks = [1 if r <= 2 else r for r in ranks]
    return ranks


def store_games(games: int, players: int, seed: int) -> list[int]:
    from django.db import transaction

    from accounts.models import Player
    from games.models import Game, GamePlayer, Table

    rng = random.Random(seed)
    Player.objects.bulk_create(Player(username=f"bench{i}", password="!") for i in range(players))
    ids = list(Player.objects.order_by("pk").values_list("pk", flat=True))
    strength = {pk: rng.gauss(25, 5) for pk in ids}
    start = datetime(2026, 1, 1, tzinfo=UTC)
    game_ids: list[int] = []
    batch = 5_000
    for first in range(0, games, batch):
        count = min(batch, games - first)
        with transaction.atomic():
            tables = Table.objects.bulk_create(
                Table(rules={"preset": "classic"}, status="finished", seat_count=3)
                for _ in range(count)
            )
            seated = [rng.sample(ids, 3) for _ in range(count)]
            ranks = [synthetic_ranks([strength[p] for p in seats], rng) for seats in seated]
            made = Game.objects.bulk_create(
                Game(
                    table=table,
                    rules={"preset": "classic"},
                    rated=True,
                    move_seconds=60,
                    seed="bench",
                    state="{}",
                    status="finished",
                    phase="over",
                    finished_at=start + timedelta(minutes=3 * (first + i)),
                    result={"ranks": ranks[i]},
                )
                for i, table in enumerate(tables)
            )
            GamePlayer.objects.bulk_create(
                GamePlayer(game=game, seat=seat, player_id=pk, rank=ranks[i][seat], score=0)
                for i, game in enumerate(made)
                for seat, pk in enumerate(seated[i])
            )
        game_ids.extend(g.pk for g in made)
    return game_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=3_000)
    parser.add_argument("--live", type=int, default=300)
    args = parser.parse_args()

    setup_django(fresh_database())
    from django.core.management import call_command

    from ratings import services, skill
    from ratings.models import Rating
    from ratings.replay import Replay, seat_outcomes, stored_games

    t0 = time.perf_counter()
    game_ids = store_games(args.games, args.players, seed=1)
    print(f"stored {len(game_ids):,} synthetic games in {time.perf_counter() - t0:.1f} s")

    live_ids = game_ids[: args.live]
    tables = [seat_outcomes(g) for g in live_ids]
    at = datetime(2026, 1, 1, tzinfo=UTC)
    openskill_ms = []
    for seats in tables:
        t = time.perf_counter()
        skill.rate_game(seats, {}, at)
        openskill_ms.append((time.perf_counter() - t) * 1000)
    live_ms = []
    for game_id in live_ids:
        t = time.perf_counter()
        assert services.rate_game(game_id)
        live_ms.append((time.perf_counter() - t) * 1000)
    repeat_ms = []
    for game_id in live_ids[:100]:
        t = time.perf_counter()
        assert not services.rate_game(game_id)
        repeat_ms.append((time.perf_counter() - t) * 1000)

    t = time.perf_counter()
    replay = Replay()
    replayed = sum(1 for game in stored_games("classic") if replay.apply(game))
    replay_s = time.perf_counter() - t
    t, cpu = time.perf_counter(), time.process_time()
    call_command("ratings_rebuild", "--pool", "classic", stdout=io.StringIO())
    rebuild_s, rebuild_cpu = time.perf_counter() - t, time.process_time() - cpu
    assert replayed == args.games
    assert Rating.objects.filter(pool="classic").count() == len(replay.states)

    t = time.perf_counter()
    out = io.StringIO()
    call_command("ratings_quality", "--pool", "classic", stdout=out)
    quality_s = time.perf_counter() - t

    def line(name: str, values: list[float]) -> str:
        return (
            f"  {name:44} median {statistics.median(values):7.3f} ms"
            f"   p90 {sorted(values)[int(0.9 * len(values))]:7.3f} ms"
        )

    print(f"live update per game ({args.live} games, PostgreSQL):")
    print(line("baseline: openskill rate alone", openskill_ms))
    print(line("rate_game end to end (one transaction)", live_ms))
    print(line("repeat delivery of a rated game (no-op)", repeat_ms))
    print(f"rebuild of {args.games:,} games, {len(replay.states):,} players:")
    print(f"  baseline: read + replay in memory, no writes  {replay_s:7.1f} s")
    print(f"  manage.py ratings_rebuild --pool classic       {rebuild_s:7.1f} s   (target <= 60 s)")
    print(f"    of which CPU time in this process            {rebuild_cpu:7.1f} s")
    print(f"ratings_quality ({quality_s:.1f} s):")
    print(out.getvalue().rstrip())


if __name__ == "__main__":
    main()
