"""Rules engine benchmark (issue #3), on one core.

    .venv/bin/python benchmarks/engine_bench.py [--seconds 3]

Prints:

1. full classic hands per second through the public API: a new seeded game (deal), trump,
   discard and the 48 plays, each chosen at random from ``legal_actions`` and made with
   ``apply`` (events, validation, the next deal and all) -- target >= 2,000; and the same
   hands made with ``apply_dict`` on each action's JSON form (the web server's path);
2. random playouts per second of the trick-play kernel (``PlayoutState.random_playout``)
   over a whole hand (48 cards) from the start of the play phase -- target >= 20,000;
3. the compact JSON state: saves + loads per second (what the platform does per action);
4. if OpenSpiel is importable (``pip install open-spiel``, an optional extra), OpenSpiel's
   C++ ``hearts`` random playouts per second timed in the same run -- 52 card plays from the
   start of trick play, run inside C++ by ``RandomRolloutEvaluator`` under a one-simulation
   ``MCTSBot`` -- and the ratio of our kernel's rate to it.

Side by side with another checkout (e.g. the code before a change)::

    .venv/bin/python benchmarks/engine_bench.py --seconds 2 --against /work/baseline

runs this script in fresh processes, alternately on the other checkout's engine and on this
one's (``--alternations`` times each, the other first), and prints each figure of each round
and the ratios this / other. (A child measures the engine of the checkout named by
``ENGINE_BENCH_CODE``; the figures are the same as above, OpenSpiel left out.)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The checkout whose engine is measured: this one, unless --against's children are told.
sys.path.insert(0, os.environ.get("ENGINE_BENCH_CODE") or str(Path(__file__).resolve().parents[1]))

from games.engine import Game, Rules
from games.engine.kernel import PlayoutState


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def bench_api_hands(seconds: float, json_actions: bool = False) -> tuple[float, int]:
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
                action = rng.choice(game.legal_actions(seat))
                if json_actions:
                    game.apply_dict(seat, action.to_dict())
                else:
                    game.apply(seat, action)
            hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, hands


def bench_api_json_hands(seconds: float) -> tuple[float, int]:
    return bench_api_hands(seconds, json_actions=True)


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


def measure(seconds: float, rounds: int) -> dict[str, float]:
    """Every figure but OpenSpiel's: the best rate of ``rounds`` rounds (the median too)."""
    api, api_median, api_hands = rounds_of(bench_api_hands, seconds, rounds)
    json_actions, json_median, json_hands = rounds_of(bench_api_json_hands, seconds, rounds)
    kernel, kernel_median, playouts = rounds_of(bench_kernel, seconds, rounds)
    return {
        "api": api,
        "api_median": api_median,
        "api_hands": api_hands,
        "json_actions": json_actions,
        "json_actions_median": json_median,
        "json_actions_hands": json_hands,
        "kernel": kernel,
        "kernel_median": kernel_median,
        "playouts": playouts,
        "state_json": bench_json(min(seconds, 1.0)),
    }


def report(figures: dict[str, float]) -> None:
    verdict = "ok" if figures["api"] >= 2000 else "BELOW TARGET"
    print(
        f"public API: {figures['api']:,.0f} full classic hands/s (median "
        f"{figures['api_median']:,.0f}; {figures['api_hands']:.0f} hands; target >= 2,000: "
        f"{verdict})"
    )
    print(
        f"public API, JSON actions (apply_dict): {figures['json_actions']:,.0f} full classic "
        f"hands/s (median {figures['json_actions_median']:,.0f}; "
        f"{figures['json_actions_hands']:.0f} hands)"
    )
    verdict = "ok" if figures["kernel"] >= 20000 else "BELOW TARGET"
    print(
        f"kernel: {figures['kernel']:,.0f} random playouts/s of a full hand (median "
        f"{figures['kernel_median']:,.0f}; {figures['playouts']:.0f} playouts; target >= "
        f"20,000: {verdict})"
    )
    print(f"state JSON: {figures['state_json']:,.0f} save+load round trips/s")


#: The figures compared side by side, with their names.
COMPARED = {
    "api": "public API hands/s",
    "json_actions": "JSON actions hands/s",
    "kernel": "kernel playouts/s",
    "state_json": "state JSON round trips/s",
}


def side_by_side(other: str, alternations: int, seconds: float, rounds: int) -> None:
    """Alternate fresh processes on ``other``'s engine and this checkout's; print the
    figures of every round and the ratios this / other."""
    this = str(Path(__file__).resolve().parents[1])
    runs: dict[str, list[dict[str, Any]]] = {"other": [], "this": []}
    command = [sys.executable, __file__, "--json", f"--seconds={seconds}", f"--rounds={rounds}"]
    for number in range(1, alternations + 1):
        for side, code in (("other", other), ("this", this)):
            # No bytecode written into the other checkout (it may be read-only).
            env = {**os.environ, "ENGINE_BENCH_CODE": code, "PYTHONDONTWRITEBYTECODE": "1"}
            done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
            figures = json.loads(done.stdout.splitlines()[-1])
            runs[side].append(figures)
            shown = ", ".join(f"{COMPARED[k]} {figures[k]:,.0f}" for k in COMPARED)
            print(f"round {number} {side:5} ({figures['engine']}): {shown}", flush=True)
    print(f"ratios this / other ({this} / {other}):")
    for key, label in COMPARED.items():
        each = [t[key] / o[key] for o, t in zip(runs["other"], runs["this"], strict=True)]
        best = max(t[key] for t in runs["this"]) / max(o[key] for o in runs["other"])
        rounds_text = ", ".join(f"{r:.3f}" for r in each)
        print(f"  {label}: per round {rounds_text}; best / best {best:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per measurement")
    parser.add_argument("--against", metavar="DIR", help="compare with the engine in DIR")
    parser.add_argument("--alternations", type=int, default=2, help="runs of each, alternating")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = parser.parse_args()
    if args.against:
        side_by_side(args.against, args.alternations, args.seconds, args.rounds)
        return 0
    pinned = pin_to_one_core()
    if args.json:
        engine = str(Path(sys.modules[Game.__module__].__file__ or "").parent)
        print(json.dumps({"engine": engine, **measure(args.seconds, args.rounds)}))
        return 0
    print(f"python {sys.version.split()[0]}, {pinned}, best of {args.rounds} rounds")
    figures = measure(args.seconds, args.rounds)
    report(figures)
    spiel_rate, note = bench_openspiel(args.seconds, args.rounds)
    if spiel_rate is None:
        print(f"OpenSpiel hearts: not measured: {note}")
    else:
        print(
            f"OpenSpiel hearts (C++, {note}): {spiel_rate:,.0f} random playouts/s (best); "
            f"ratio ours/OpenSpiel = {figures['kernel'] / spiel_rate:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
