"""How often a run of tests/test_ratings_bot_strength.py would rank the house bots wrongly.

Plays duplicate deal sets of house:random, house:heuristic and house:strong in-process on the
engine (``bots.match``; no database), strong searching a fixed number of deals per decision
as in the test. Then, many times over, it draws as many deal sets as the test plays (with
replacement), rates their games with ``ratings.replay.Replay`` (``ratings.skill.rate_game``,
as the live update and the rebuild do) -- set after set as the test plays them, and also all
mixed up -- and counts the runs whose leaderboard (by ordinal) is not
strong > heuristic > random.

    .venv/bin/python benchmarks/bot_strength_order.py                 # about 6 min on 2 cores
    .venv/bin/python benchmarks/bot_strength_order.py --sets 8 --runs 2000   # quicker

The deal sets drawn are the ones played here, so the figure is an estimate (it cannot
show a kind of deal set that this sample lacks); more ``--sets`` make it better.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="bot-strength-order-"))
import django

django.setup()  # ratings.replay reads no database here, but imports the models

from bots.match import GameRecord, arrangements, duplicate_match  # noqa: E402
from bots.strategies import strong  # noqa: E402
from ratings.replay import Replay, StoredGame  # noqa: E402
from ratings.skill import SeatOutcome  # noqa: E402

BOTS = ("house:random", "house:heuristic", "house:strong")
ORDER = ["house:strong", "house:heuristic", "house:random"]
PLAYER_IDS = {bot: number for number, bot in enumerate(BOTS)}
AT = datetime(2026, 1, 1, tzinfo=UTC)


def strong_vs_heuristic(game: GameRecord) -> int:
    """1 if strong finished above the heuristic, -1 if below, 0 if they shared a rank."""
    strong_rank = game.ranks[game.seats.index("house:strong")]
    heuristic_rank = game.ranks[game.seats.index("house:heuristic")]
    return (strong_rank < heuristic_rank) - (strong_rank > heuristic_rank)


def leaderboard(games: Sequence[GameRecord]) -> list[str]:
    """The bots by ordinal after rating ``games`` in order, as the ratings service does."""
    replay = Replay()
    for number, game in enumerate(games):
        seats = [
            SeatOutcome(seat, PLAYER_IDS[bot], rank)
            for seat, (bot, rank) in enumerate(zip(game.seats, game.ranks, strict=True))
        ]
        replay.apply(StoredGame(number, AT, seats))
    return sorted(BOTS, key=lambda bot: -replay.states[PLAYER_IDS[bot]].skill.ordinal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", type=int, default=24, help="deal sets to play (6 games each)")
    parser.add_argument("--preset", default="all-sixteen")
    parser.add_argument("--hands", type=int, default=12, help="max_hands of each game")
    parser.add_argument("--deals", type=int, default=16, help="house:strong's deals a decision")
    parser.add_argument("--test-sets", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--runs", type=int, default=20000, help="resampled test runs per size")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", default="strength-order")
    args = parser.parse_args()

    strong.MAX_DEALS = args.deals  # after django.setup(), which sets it; forks inherit it
    started = time.perf_counter()
    match = duplicate_match(
        BOTS, args.sets, args.seed, args.preset, 60.0, max_hands=args.hands, jobs=args.jobs
    )
    played = time.perf_counter() - started
    games = [game for deal_set in match.games for game in deal_set]
    above = sum(strong_vs_heuristic(g) > 0 for g in games)
    below = sum(strong_vs_heuristic(g) < 0 for g in games)
    hands = sum(len(g.diffs) for g in games)
    print(
        f"{len(games)} games ({args.preset}, max_hands {args.hands}, strong {args.deals} deals"
        f" a decision), {hands} hands, played in {played:.0f} s"
    )
    print(f"strong finished above the heuristic in {above}, below in {below}")
    nets = sorted(sum(strong_vs_heuristic(g) for g in deal_set) for deal_set in match.games)
    print(f"per deal set, games above minus below: {nets}")
    rng = random.Random(args.seed)
    per_set = len(arrangements(BOTS))
    for size in args.test_sets:
        # "by set": one deal set after the other, as the test plays them (in rounds), each
        # set's games in a random order; "mixed": all the games in a random order.
        wrong = {"by set": 0, "mixed": 0}
        for _ in range(args.runs):
            drawn = rng.choices(match.games, k=size)
            by_set = [game for deal_set in drawn for game in rng.sample(deal_set, per_set)]
            wrong["by set"] += leaderboard(by_set) != ORDER
            wrong["mixed"] += leaderboard(rng.sample(by_set, len(by_set))) != ORDER
        print(
            f"test of {size} deal sets ({per_set * size} games): wrong order in"
            f" {wrong['by set']} of {args.runs} resampled runs rated set by set"
            f" ({wrong['by set'] / args.runs:.3%}), {wrong['mixed']} mixed"
            f" ({wrong['mixed'] / args.runs:.3%})"
        )


if __name__ == "__main__":
    main()
