"""House bot decision times.

    .venv/bin/python benchmarks/bot_decisions.py [--budget 0.3] [--strong-decisions 60]

Collects the decisions of a few seeded classic games (all phases, every seat's view), then
times on the same views:

1. baseline, same run: ``house:random`` per decision, and the engine kernel's random
   playouts per second from the start of trick play;
2. ``house:heuristic`` per decision, p50 / p95 / max (target: well under 5 ms);
3. ``house:strong`` per card-play decision with more than one legal card, at the given
   budget (default ``DEFAULT_BUDGET_SECONDS`` = 0.3 s): p50 / p95 / max (target p95 <=
   500 ms), and its trump and discard decisions as dealer (also searched within the
   budget). With ``--deals N`` it searches exactly N deals per decision instead
   (``strong.MAX_DEALS``; the budget is then no limit), so its times measure its speed.

The code measured is this checkout's, or the one named by ``BENCH_CODE`` (a directory), e.g.
``BENCH_CODE=/work/baseline`` for a side-by-side run against the code before a change.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, os.environ.get("BENCH_CODE") or str(Path(__file__).resolve().parents[1]))

from bots.strategies import DEFAULT_BUDGET_SECONDS, choose_action
from bots.strategies import strong as strong_bot
from games.engine import Game, Rules
from games.engine.kernel import PlayoutState


def collect_views(games: int) -> list[dict[str, Any]]:
    views = []
    rng = random.Random(0)
    for number in range(games):
        game = Game.new(Rules.from_preset("classic", max_hands=2), seed=f"bench-{number}")
        while not game.is_over():
            seat = game.to_move()
            assert seat is not None
            view = game.view(seat)
            views.append(view)
            game.apply_dict(seat, choose_action("house:heuristic", view, rng))
    return views


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {p50:8.3f} ms   p95 {p95:8.3f} ms   max {ms[-1]:8.3f} ms   (n={len(ms)})"


def time_each(
    views: list[dict[str, Any]], decide: Callable[[dict[str, Any]], object]
) -> list[float]:
    out = []
    for view in views:
        start = time.perf_counter()
        decide(view)
        out.append(time.perf_counter() - start)
    return out


def playout_rate(seconds: float) -> float:
    game = Game.new("classic", seed="bench-playouts")
    while game.phase != "play":
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, game.fallback_action(seat))
    state = PlayoutState.from_game(game)
    rng = random.Random(1)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            state.random_playout(rng)
        count += 200
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_SECONDS)
    parser.add_argument("--strong-decisions", type=int, default=60)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--deals", type=int, help="house:strong searches exactly this many deals")
    args = parser.parse_args()
    if args.deals:
        strong_bot.MAX_DEALS = args.deals

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()}")
    print(f"code: {Path(strong_bot.__file__).resolve().parents[2]}")
    views = collect_views(args.games)
    plays = [v for v in views if v["phase"] == "play" and len(v["legal_actions"]) > 1]
    print(f"{len(views)} decisions from {args.games} classic games of 2 hands")
    rng = random.Random(2)

    print("\nbaseline (same run)")
    print(
        "  house:random     ",
        percentiles(time_each(views, lambda v: choose_action("house:random", v, rng))),
    )
    print(f"  kernel random playouts/s (48 cards): {playout_rate(2.0):,.0f}")

    print("\nhouse:heuristic, every decision")
    choose_action("house:heuristic", views[0], rng)  # warm the caches
    heuristic = time_each(views, lambda v: choose_action("house:heuristic", v, rng))
    print("  all phases       ", percentiles(heuristic))
    print(
        "  card play        ",
        percentiles(time_each(plays, lambda v: choose_action("house:heuristic", v, rng))),
    )

    step = max(1, len(plays) // args.strong_decisions)
    sample = plays[::step][: args.strong_decisions]
    limit = f"{args.deals} deals" if args.deals else f"budget {args.budget} s"
    print(f"\nhouse:strong, {limit}, {len(sample)} card-play decisions")
    strong = time_each(sample, lambda v: choose_action("house:strong", v, rng, args.budget))
    print("  card play        ", percentiles(strong))
    trumps = [v for v in views if v["phase"] == "trump"]
    print(
        "  trump (dealer)   ",
        percentiles(
            time_each(trumps, lambda v: choose_action("house:strong", v, rng, args.budget))
        ),
    )
    discards = [v for v in views if v["phase"] == "discard"]
    print(
        "  discard (dealer) ",
        percentiles(
            time_each(discards, lambda v: choose_action("house:strong", v, rng, args.budget))
        ),
    )
    verdict = "met" if sorted(strong)[round(0.95 * (len(strong) - 1))] <= 0.5 else "NOT met"
    print(f"  target p95 <= 500 ms at the default budget: {verdict}")


if __name__ == "__main__":
    main()
