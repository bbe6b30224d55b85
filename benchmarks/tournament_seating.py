"""Swiss seating benchmark (tournaments issue): seating 3,000 players into tables of three.

    .venv/bin/python benchmarks/tournament_seating.py [--players 3000] [--rounds 5]

Builds a swiss of ``--players`` players (with one forbidden pair per 10 players, as
households) and plays ``--rounds`` rounds with random table results, seating each round
with ``tournaments.seating``. For the last round it prints, best and median of 5 runs:

* our seating (``swiss_round``): time, forbidden pairs seated together, repeat meetings;
* the baseline measured in the same run: sort by standing and cut into threes (what a
  naive organiser's script does), its time and the same two counts.

Target: our seating of 3,000 players in <= 1 s. Pure Python, no database: the figures are
the seating itself (the service around it adds the standings query and the inserts).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.seating import (
    FILLER,
    History,
    Seating,
    first_swiss_round,
    quality,
    swiss_round,
)

RUNS = 5


def sort_and_chunk(standings: list[int], history: History, odd: str) -> Seating:
    """The baseline: tables of three straight down the standings (fillers at the bottom)."""
    slots = standings + [FILLER] * ((-len(standings)) % 3)
    return Seating(tuple(tuple(slots[k : k + 3]) for k in range(0, len(slots), 3)))


def timed(
    seat: Callable[[list[int], History, str], Seating], standings: list[int], history: History
) -> tuple[list[float], Seating]:
    times = []
    result = None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = seat(standings, history, "fillers")
        times.append(time.perf_counter() - start)
    assert result is not None
    return times, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = list(range(1, args.players + 1))
    shuffled = players[:]
    rng.shuffle(shuffled)
    forbidden = [(shuffled[2 * k], shuffled[2 * k + 1]) for k in range(args.players // 10)]
    points: Counter[int] = Counter()
    tables: list[tuple[int, ...]] = []
    history = History.from_tables(tables, forbidden)
    for number in range(1, args.rounds):
        history = History.from_tables(tables, forbidden)
        order = sorted(players, key=lambda p: (-points[p], p))
        seating = (
            swiss_round(order, history)
            if number > 1
            else first_swiss_round(None, players, history, rng=rng)
        )
        for table in seating.tables:
            tables.append(table)
            seated = [p for p in table if p != FILLER]
            for place, player in enumerate(rng.sample(seated, len(seated))):
                points[player] += (3, 1, 0)[place]
    history = History.from_tables(tables, forbidden)
    standings = sorted(players, key=lambda p: (-points[p], p))

    ours_times, ours = timed(swiss_round, standings, history)
    base_times, base = timed(sort_and_chunk, standings, history)

    print(
        f"swiss round {args.rounds} of {args.players} players "
        f"({len(forbidden)} forbidden pairs, {len(history.meetings)} earlier meetings); "
        f"best / median of {RUNS} runs"
    )
    for name, times, seating in (
        ("tournaments.seating.swiss_round", ours_times, ours),
        ("baseline: sort and chunk", base_times, base),
    ):
        q = quality(seating, history)
        print(
            f"  {name:34s} {min(times) * 1000:9.1f} ms / {statistics.median(times) * 1000:9.1f} ms"
            f"   forbidden together: {q.forbidden:4d}   repeated pairs: {q.repeated_pairs:4d}"
        )
    best = min(ours_times)
    print(f"  target <= 1000 ms: {'met' if best <= 1.0 else 'NOT met'} ({best * 1000:.1f} ms)")
    print(f"  ours / baseline time: {best / min(base_times):.0f}x")


if __name__ == "__main__":
    main()
