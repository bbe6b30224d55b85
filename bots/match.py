"""Duplicate matches between house bots, in-process on the engine (no database).

A match is a number of *deal sets*. A deal set is one game seed played once per seating
arrangement of the bots (all 6 permutations for 3 seats, 24 for four-handed): the same
deals and first dealer each time, with the bots rotated through the seats, so luck of the
cards cancels out within a set. (Hands after the first open with the exchange, which
depends on earlier play, and a Woburn auction may change who deals, and so how the next
deck is dealt; the first hand of every arrangement is exactly the same deal.)

The figure per bot is its mean (tricks - target) per hand, i.e. its mean diff per hand (at
misère ``MIZ`` the diff is target - tricks). The deal sets are the independent units: per
set, each bot's mean diff per hand over all its hands in all arrangements; the match mean is
the mean of these per-set means, and its 95% confidence interval is
``mean ± t(0.975, sets - 1) · sd / sqrt(sets)`` (Student's t over the per-set means). A
pairwise difference (bot A - bot B) uses the per-set differences the same way.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bots.strategies import DEFAULT_BUDGET_SECONDS, choose_action, strategy_for
from games.engine import Game, Rules

# Student's t, two-sided 95%, by degrees of freedom (1..30); 1.96 beyond.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    return _T975[df - 1] if 1 <= df <= len(_T975) else 1.96


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    samples: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        mean = statistics.fmean(values)
        if len(values) < 2:
            return cls(mean, math.nan, math.nan, len(values))
        half = t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
        return cls(mean, mean - half, mean + half, len(values))


@dataclass
class GameRecord:
    """One game of a deal set: which bot sat where, its first deal, every hand's diffs, the
    final ranks by seat (docs/rules.md "Standings for a game", what ratings use) and the final
    game scores by seat (what a duplicate tournament compares)."""

    seed: str
    seats: tuple[str, ...]
    first_deal: list[list[str]]
    first_dealer: int
    diffs: list[list[int]] = field(default_factory=list)
    ranks: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()


@dataclass
class MatchResult:
    bots: tuple[str, ...]
    preset: str
    games: list[list[GameRecord]]  # per deal set, one game per arrangement

    def per_set_means(self) -> dict[str, list[float]]:
        """Per bot name: its mean diff per hand in each deal set."""
        out: dict[str, list[float]] = {name: [] for name in dict.fromkeys(self.bots)}
        for deal_set in self.games:
            totals = dict.fromkeys(out, 0)
            hands = dict.fromkeys(out, 0)
            for game in deal_set:
                for diffs in game.diffs:
                    for seat, name in enumerate(game.seats):
                        totals[name] += diffs[seat]
                        hands[name] += 1
            for name in out:
                out[name].append(totals[name] / hands[name] if hands[name] else 0.0)
        return out

    def intervals(self) -> dict[str, Interval]:
        return {name: Interval.of(v) for name, v in self.per_set_means().items()}

    def differences(self) -> dict[tuple[str, str], Interval]:
        means = self.per_set_means()
        return {
            (a, b): Interval.of([x - y for x, y in zip(means[a], means[b], strict=True)])
            for a, b in itertools.combinations(means, 2)
        }


def arrangements(bots: Sequence[str]) -> list[tuple[str, ...]]:
    """Every seating of the bots (bots[i] at seat perm[i]), as bot names by seat."""
    out = []
    for perm in itertools.permutations(range(len(bots))):
        seats = [""] * len(bots)
        for i, seat in enumerate(perm):
            seats[seat] = bots[i]
        out.append(tuple(seats))
    return out


def play_game(
    rules: Rules, seed: str, seats: Sequence[str], budget: float, rng_seed: str
) -> GameRecord:
    """One whole game with the bots ``seats[seat]``, each deciding from its seat's view."""
    game = Game.new(rules, seed=seed)
    first = game.view(None)
    record = GameRecord(
        seed=seed,
        seats=tuple(seats),
        first_deal=[list(game.view(s)["your_hand"]) for s in range(rules.players)],
        first_dealer=first["dealer"],
    )
    rngs = [random.Random(f"{rng_seed}/{seat}") for seat in range(rules.players)]
    while not game.is_over():
        seat = game.to_move()
        if seat is None:  # pragma: no cover - seeded games never run out of deals
            break
        action = choose_action(seats[seat], game.view(seat), rngs[seat], budget)
        game.apply_dict(seat, action)
    record.diffs = [list(h["diffs"]) for h in game.history]
    outcome = game.standings()
    record.ranks, record.scores = outcome.ranks, outcome.scores
    return record


def play_deal_set(bots: Sequence[str], rules: Rules, seed: str, budget: float) -> list[GameRecord]:
    """The game ``seed`` once per seating arrangement of ``bots``."""
    return [
        play_game(rules, seed, seats, budget, rng_seed=f"{seed}/{number}")
        for number, seats in enumerate(arrangements(bots))
    ]


def _play_deal_set_args(args: tuple[Sequence[str], dict[str, Any], str, float]) -> list[GameRecord]:
    bots, rules, seed, budget = args
    return play_deal_set(bots, Rules.from_dict(rules), seed, budget)


def duplicate_match(
    bots: Sequence[str],
    deal_sets: int,
    seed: int | str = 0,
    preset: str = "classic",
    budget: float = DEFAULT_BUDGET_SECONDS,
    max_hands: int | None = 4,
    jobs: int = 1,
) -> MatchResult:
    """Play ``deal_sets`` deal sets of a duplicate match; ``max_hands`` caps each game."""
    for name in bots:
        strategy_for(name)  # KeyError early for an unknown bot
    options: dict[str, Any] = {} if max_hands is None else {"max_hands": max_hands}
    rules = Rules.from_preset(preset, **options)
    if len(bots) != rules.players:
        raise ValueError(f"{preset} needs {rules.players} bots, got {len(bots)}")
    tasks = [
        (tuple(bots), rules.to_dict(), f"botmatch/{seed}/{number}", budget)
        for number in range(deal_sets)
    ]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            games = pool.map(_play_deal_set_args, tasks, chunksize=1)
    else:
        games = [_play_deal_set_args(task) for task in tasks]
    return MatchResult(bots=tuple(bots), preset=preset, games=games)
