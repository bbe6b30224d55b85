"""How often a run of tests/test_ratings_bot_strength.py would rank the house bots wrongly.

Plays duplicate deal sets of house:random, house:heuristic and house:strong in-process on the
engine (``bots.match``; no database), strong searching a fixed number of deals per decision
as in the test. Then, many times over, it draws as many deal sets as the test plays (with
replacement), rates their games one after another with the pools' model
(``ratings.skill.rate_game``, as the ratings service does) and counts the runs whose
leaderboard (by ordinal) is not strong > heuristic > random.

    .venv/bin/python benchmarks/bot_strength_order.py                 # about 8 min on 2 cores
    .venv/bin/python benchmarks/bot_strength_order.py --sets 8 --runs 2000   # quicker

The deal sets drawn are the ones played here, so the figure is an estimate (it cannot
show a kind of deal set that this sample lacks); more ``--sets`` make it better.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.match import GameRecord, duplicate_match
from bots.strategies import strong
from ratings import skill

BOTS = ("house:random", "house:heuristic", "house:strong")
ORDER = ["house:strong", "house:heuristic", "house:random"]
AT = datetime(2026, 1, 1, tzinfo=UTC)


def rank_of(game: GameRecord, bot: str) -> int:
    return game.ranks[game.seats.index(bot)]


def leaderboard(games: Sequence[GameRecord]) -> list[str]:
    """The bots by ordinal after rating ``games`` in order, as the ratings service would."""
    ids = {bot: number for number, bot in enumerate(BOTS)}
    states: dict[int, skill.PlayerState | None] = dict.fromkeys(ids.values())
    for game in games:
        seats = [
            skill.SeatOutcome(seat, ids[bot], rank)
            for seat, (bot, rank) in enumerate(zip(game.seats, game.ranks, strict=True))
        ]
        for change in skill.rate_game(seats, states, AT):
            states[change.player_id] = skill.next_state(states[change.player_id], change, AT)

    def ordinal(bot: str) -> float:
        state = states[ids[bot]]
        assert state is not None
        return state.skill.ordinal

    return sorted(BOTS, key=lambda bot: -ordinal(bot))


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

    strong.MAX_DEALS = args.deals  # the forked players inherit it
    started = time.perf_counter()
    match = duplicate_match(
        BOTS, args.sets, args.seed, args.preset, 60.0, max_hands=args.hands, jobs=args.jobs
    )
    played = time.perf_counter() - started
    games = [game for deal_set in match.games for game in deal_set]
    above = sum(rank_of(g, "house:strong") < rank_of(g, "house:heuristic") for g in games)
    below = sum(rank_of(g, "house:strong") > rank_of(g, "house:heuristic") for g in games)
    hands = sum(len(g.diffs) for g in games)
    print(
        f"{len(games)} games ({args.preset}, max_hands {args.hands}, strong {args.deals} deals"
        f" a decision), {hands} hands, played in {played:.0f} s"
    )
    print(f"strong finished above the heuristic in {above}, below in {below}")
    nets = sorted(
        sum(
            (rank_of(g, "house:strong") < rank_of(g, "house:heuristic"))
            - (rank_of(g, "house:strong") > rank_of(g, "house:heuristic"))
            for g in deal_set
        )
        for deal_set in match.games
    )
    print(f"per deal set, games above minus below: {nets}")
    rng = random.Random(args.seed)
    for size in args.test_sets:
        wrong = 0
        for _ in range(args.runs):
            drawn = rng.choices(match.games, k=size)
            run = [game for deal_set in drawn for game in rng.sample(deal_set, len(deal_set))]
            wrong += leaderboard(run) != ORDER
        print(
            f"test of {size} deal sets ({6 * size} games): wrong order in {wrong} of"
            f" {args.runs} resampled runs ({wrong / args.runs:.3%})"
        )


if __name__ == "__main__":
    main()
