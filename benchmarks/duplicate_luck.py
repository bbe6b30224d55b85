"""How much duplicate deals reduce luck: house:strong minus house:heuristic, with duplicate
deals and with fresh deals, over the same number of games.

In-process on the engine (``bots.match.play_game``; no database), strong searching a fixed
number of deals per decision (``--deals``) so that the machine's load does not change it.
A *unit* is three games, house:strong at each seat in turn with house:heuristic in the two
others: with duplicate deals the three games share one seed (the same cards, as a duplicate
tournament's round deals its tables); with fresh deals each game has its own seed. Per unit,
the figure is strong's mean diff per hand minus the heuristic's; over the units, its mean and
95% interval (Student's t), as botmatch reports. The ratio of the two intervals' widths is
how much luck duplicate deals take out (the same number of games either way).

    .venv/bin/python benchmarks/duplicate_luck.py                 # about 10 min on 2 cores
    .venv/bin/python benchmarks/duplicate_luck.py --units 8       # quicker, rougher
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.match import Interval, play_game
from bots.strategies import strong
from games.engine import Rules

STRONG, HEURISTIC = "house:strong", "house:heuristic"


def seatings() -> list[tuple[str, ...]]:
    """house:strong at seat 0, 1, 2 in turn; house:heuristic in the others."""
    return [tuple(STRONG if s == seat else HEURISTIC for s in range(3)) for seat in range(3)]


def unit(args: tuple[str, bool, int, int]) -> float:
    """Strong's mean diff per hand minus the heuristic's, over one unit's three games."""
    name, duplicate, max_hands, deals = args
    strong.MAX_DEALS = deals
    rules = Rules.from_preset("classic", max_hands=max_hands)
    totals = {STRONG: 0, HEURISTIC: 0}
    hands = {STRONG: 0, HEURISTIC: 0}
    for number, seats in enumerate(seatings()):
        seed = name if duplicate else f"{name}/{number}"
        record = play_game(rules, seed, seats, budget=60.0, rng_seed=f"{name}/{number}/bots")
        for diffs in record.diffs:
            for seat, bot in enumerate(seats):
                totals[bot] += diffs[seat]
                hands[bot] += 1
    return totals[STRONG] / hands[STRONG] - totals[HEURISTIC] / hands[HEURISTIC]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=16, help="units of 3 games per mode")
    parser.add_argument("--max-hands", type=int, default=2)
    parser.add_argument("--deals", type=int, default=8, help="strong's deals per decision")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", default="luck")
    options = parser.parse_args()
    started = time.monotonic()
    results: dict[str, Interval] = {}
    for mode, duplicate in (("duplicate", True), ("fresh", False)):
        # The same unit names in both modes: duplicate unit k plays fresh unit k's first seed.
        tasks = [
            (f"{options.seed}/{k}", duplicate, options.max_hands, options.deals)
            for k in range(options.units)
        ]
        with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
            values = pool.map(unit, tasks, chunksize=1)
        results[mode] = Interval.of(values)
        spread = statistics.stdev(values)
        print(
            f"{mode:9s} {3 * options.units} games: strong - heuristic = "
            f"{results[mode].mean:+.3f} per hand, 95% [{results[mode].low:+.3f}, "
            f"{results[mode].high:+.3f}] (width {results[mode].high - results[mode].low:.3f}, "
            f"sd per unit {spread:.3f})",
            flush=True,
        )
    width = {m: r.high - r.low for m, r in results.items()}
    print(
        f"fresh / duplicate interval width: {width['fresh'] / width['duplicate']:.2f} "
        f"(the same number of games; {time.monotonic() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
