"""Rules engine benchmark (issue #3), on one core.

    .venv/bin/python benchmarks/engine_bench.py [--seconds 3]

Prints:

1. full classic hands per second through the public API: a new seeded game (deal), trump,
   discard and the 48 plays, each chosen at random from ``legal_actions`` and made with
   ``apply`` (events, validation, the next deal and all) -- target >= 2,000;
2. random playouts per second of the trick-play kernel (``PlayoutState.random_playout``)
   over a whole hand (48 cards) from the start of the play phase -- target >= 20,000;
3. the compact JSON state: saves + loads per second (what the platform does per action);
4. if OpenSpiel is importable (``pip install open-spiel``, an optional extra), OpenSpiel's
   C++ ``hearts`` random playouts per second timed in the same run -- 52 card plays from the
   start of trick play, run inside C++ by ``RandomRolloutEvaluator`` under a one-simulation
   ``MCTSBot`` -- and the ratio of our kernel's rate to it.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import Game, Rules
from games.engine.kernel import PlayoutState


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def bench_api_hands(seconds: float) -> tuple[float, int]:
    rules = Rules.from_preset("classic")
    rng = random.Random(1)
    hands = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            game = Game.new(rules, seed=seed)
            seed += 1
            while game.hand_number == 1 and not game.is_over():
                seat = game.to_move()
                assert seat is not None
                game.apply(seat, rng.choice(game.legal_actions(seat)))
            hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, hands


def play_positions(count: int) -> list[PlayoutState]:
    """Kernels at the start of the play phase of ``count`` seeded classic first hands."""
    rng = random.Random(2)
    states = []
    for seed in range(count):
        game = Game.new("classic", seed=f"bench-{seed}")
        while game.phase != "play":
            seat = game.to_move()
            assert seat is not None
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        states.append(PlayoutState.from_game(game))
    return states


def bench_kernel(seconds: float) -> tuple[float, int]:
    states = play_positions(20)
    rng = random.Random(3)
    playouts = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for state in states:
            for _ in range(50):
                state.random_playout(rng)
            playouts += 50
    elapsed = time.perf_counter() - start
    return playouts / elapsed, playouts


def bench_json(seconds: float) -> float:
    game = Game.new("classic", seed="json")
    rng = random.Random(4)
    for _ in range(30):
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            game = Game.from_json(game.to_json())
        count += 100
    return count / (time.perf_counter() - start)


def bench_openspiel(seconds: float, rounds: int) -> tuple[float | None, str]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None, "open-spiel is not installed (optional: pip install open-spiel)"
    game = pyspiel.load_game("hearts")
    rng = random.Random(5)
    state = game.new_initial_state()
    # Deal (chance) and pass cards (12 actions) at random, to the first card of trick 1.
    while len(state.history()) < 52 + 12:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    batch = 2000
    rates = []
    for _ in range(rounds):
        rollouts = 0
        start = time.perf_counter()
        deadline = start + seconds / rounds
        while time.perf_counter() < deadline:
            evaluator = pyspiel.RandomRolloutEvaluator(batch, rollouts + 1)
            bot = pyspiel.MCTSBot(game, evaluator, 2.0, 1, 1000, False, rollouts + 1, False)
            bot.step(state)  # one simulation: `batch` random rollouts in C++
            rollouts += batch
        rates.append(rollouts / (time.perf_counter() - start))
    return max(rates), f"open-spiel {getattr(pyspiel, '__version__', '')}".strip()


def rounds_of(
    bench: Callable[[float], tuple[float, int]], seconds: float, rounds: int
) -> tuple[float, float, int]:
    """Best and median rate over ``rounds`` runs (the best is the least disturbed by other
    processes on the machine), and the total count."""
    rates = []
    total = 0
    for _ in range(rounds):
        rate, count = bench(seconds / rounds)
        rates.append(rate)
        total += count
    return max(rates), statistics.median(rates), total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per measurement")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {pin_to_one_core()}, best of {args.rounds} rounds")
    api_rate, api_median, api_hands = rounds_of(bench_api_hands, args.seconds, args.rounds)
    verdict = "ok" if api_rate >= 2000 else "BELOW TARGET"
    print(
        f"public API: {api_rate:,.0f} full classic hands/s (median {api_median:,.0f}; "
        f"{api_hands} hands; target >= 2,000: {verdict})"
    )
    kernel_rate, kernel_median, playouts = rounds_of(bench_kernel, args.seconds, args.rounds)
    verdict = "ok" if kernel_rate >= 20000 else "BELOW TARGET"
    print(
        f"kernel: {kernel_rate:,.0f} random playouts/s of a full hand (median "
        f"{kernel_median:,.0f}; {playouts} playouts; target >= 20,000: {verdict})"
    )
    print(f"state JSON: {bench_json(min(args.seconds, 1.0)):,.0f} save+load round trips/s")
    spiel_rate, note = bench_openspiel(args.seconds, args.rounds)
    if spiel_rate is None:
        print(f"OpenSpiel hearts: not measured: {note}")
    else:
        print(
            f"OpenSpiel hearts (C++, {note}): {spiel_rate:,.0f} random playouts/s (best); "
            f"ratio ours/OpenSpiel = {kernel_rate / spiel_rate:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
