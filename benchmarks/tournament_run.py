"""Benchmark: a whole swiss of house bots on PostgreSQL + Redis with real Celery processes.

    .venv/bin/python benchmarks/tournament_run.py [--players 60] [--rounds 5]
        [--bots house:heuristic,house:random] [--hands 3]

Creates a fresh database (``sergeant_bench_tournament``), Redis db 14, a Celery worker
(prefork, 2 processes) and beat; an organiser enters ``--players`` house bots (cycling
through ``--bots``), starts the tournament and waits for the final standings. Prints the
time of each round and the whole run, and the games and bot moves per second. Target on 2
cores: 60 players, 5 rounds in <= 10 minutes. The seating alone is measured by
``benchmarks/tournament_seating.py``.
"""

from __future__ import annotations

import argparse
import time

from common import service_platform

DB_NAME = "sergeant_bench_tournament"
REDIS_URL = "redis://127.0.0.1:6379/14"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--bots", default="house:heuristic,house:random")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args()

    with service_platform(DB_NAME, REDIS_URL):
        # Django is set up only now (the platform's settings): the project's modules after it.
        from accounts.services import register_player
        from games.models import Game, GameEvent
        from tournaments.models import Round, Tournament
        from tournaments.services import entries, running, setup

        organiser, _ = register_player("bench-organiser", password="bench-password-1")
        tournament = setup.create_tournament(
            organiser,
            values={
                "name": "Benchmark swiss",
                "rules": "classic",
                "format": "swiss",
                "rounds": args.rounds,
                "hands_per_game": args.hands,
                "move_seconds": 60,
            },
        )
        bots = args.bots.split(",")
        for i in range(args.players):
            entries.add_entrant(
                organiser, tournament_id=tournament.pk, username=bots[i % len(bots)]
            )

        started = time.monotonic()
        running.start(organiser, tournament_id=tournament.pk)
        seen_rounds: dict[int, float] = {}
        deadline = started + args.timeout
        while time.monotonic() < deadline:
            now = time.monotonic() - started
            for number in Round.objects.filter(tournament=tournament).values_list(
                "number", flat=True
            ):
                if number not in seen_rounds:
                    seen_rounds[number] = now
                    print(f"  round {number} seated at {now:7.1f} s", flush=True)
            if Tournament.objects.filter(
                pk=tournament.pk, status=Tournament.Status.FINISHED
            ).exists():
                break
            time.sleep(0.5)
        else:
            raise SystemExit(f"not finished after {args.timeout} s")
        elapsed = time.monotonic() - started
        game_ids = list(
            Game.objects.filter(tournament_table__round__tournament=tournament).values_list(
                "pk", flat=True
            )
        )
        moves = sum(Game.objects.filter(pk__in=game_ids).values_list("version", flat=True))
        timeouts = GameEvent.objects.filter(game_id__in=game_ids, type="timeout").count()
        print(
            f"{args.players} players ({', '.join(bots)}), {args.rounds} rounds, "
            f"{args.hands} hands per game: {elapsed:.1f} s ({elapsed / 60:.1f} min) for "
            f"{len(game_ids)} games, {moves} moves ({moves / elapsed:.0f} moves/s), "
            f"{timeouts} timeouts"
        )


if __name__ == "__main__":
    main()
