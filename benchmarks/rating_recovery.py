"""After how many games ratings recover a known strength order: duplicate against fresh deals.

Swiss (or round robin) tournaments of 3-seat tables among a field of bots whose strength
order is known, once with fresh deals (every table its own seed) and once with duplicate
deals (every table of a round dealt from the round's seed), rated game after game. After
each round the field is put in order by each rating input's ordinal (``mu - 3 sigma``, the
leaderboard's order); a tournament *recovers* the order after the round from which on that
order equals the known one up to the last round (``exact``), or is at most one pair out of
it by Kendall's tau (``near``: tau >= 0.86, at most one pair out of six bots, four of 12,
ten of 18; ``rough``: tau >= 0.7, two of six, nine of 12, 22 of 18). Over many tournaments
of different seeds: the median number of games per bot, its 95% interval (bootstrap) and
quartiles. A tournament that has not recovered the order by its last round counts as never
(``>R``).

Rating inputs:

* ``fresh / table ranks``: a plain tournament, each game rated by its own ranks;
* ``duplicate / table ranks``: a duplicate tournament rated as the platform rates it today:
  each game by its own ranks (ratings knows nothing of duplicate rounds);
* ``duplicate / seat comparison``: each round, for each seat, the players who held that
  seat's cards at the round's tables ranked against each other by game score (ties share a
  rank), rated as one OpenSkill match; each player is in exactly one such match a round;
* ``duplicate / both``: the table ranks and the seat comparisons, both rated;
* ``duplicate / round score``: each round as one match of all its players, ranked by their
  duplicate scores for the round (``duplicate_scores``: the game score minus the mean score
  of the same seat at the round's other tables);
* ``* / standings``: the tournament's own standings (the duplicate score first in a duplicate
  tournament, tournament points in a plain one), for comparison.

Platform code used in-process (no database, no servers): the engine and the house bots
through ``bots.match.play_game``; the rating model through ``ratings.replay.Replay``
(``ratings.skill.rate_game`` and ``next_state``, as the live update and the rebuild);
``tournaments.seating.first_swiss_round``/``swiss_round`` and ``History.from_tables`` for the
pairings (``round_robin_round`` with ``--format round-robin``: tables mixed regardless of
standing); ``tournaments.standings.rank_standings`` for the standings a swiss round seats
from, and its ``points_for_ranks`` and ``duplicate_scores`` for a round's results. The
field's variants (the heuristic taking house:random's decision with probability p) are
strategies registered in this process only.

    nice -n 10 .venv/bin/python benchmarks/rating_recovery.py     # about 270 s of CPU, 2 jobs
    nice -n 10 .venv/bin/python benchmarks/rating_recovery.py --tournaments 8 --rounds 12
    nice -n 10 .venv/bin/python benchmarks/rating_recovery.py --format round-robin
    nice -n 19 .venv/bin/python benchmarks/rating_recovery.py --field 12 --tournaments 40

``--field N`` (a multiple of 3) sets the field's size: the heuristic, the heuristic taking
house:random's decision with probability k/(N-1) for k = 1..N-2, and house:random; N/3
tables a round, so a seat's comparison ranks N/3 players.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="rating-recovery-"))
import django

django.setup()  # the models are imported (default points by rank); nothing reads a database

from bots.match import Interval, play_game  # noqa: E402
from bots.strategies import STRATEGIES, Strategy  # noqa: E402
from bots.strategies.heuristic import choose_heuristic  # noqa: E402
from bots.strategies.random_bot import choose_random  # noqa: E402
from games.engine import Rules  # noqa: E402
from ratings.replay import Replay, StoredGame  # noqa: E402
from ratings.skill import SeatOutcome  # noqa: E402
from tournaments import seating  # noqa: E402
from tournaments.models import default_points_by_rank  # noqa: E402
from tournaments.standings import (  # noqa: E402
    Entry,
    RoundResult,
    duplicate_scores,
    points_for_ranks,
    rank_standings,
)

AT = datetime(2026, 1, 1, tzinfo=UTC)


def sloppy(p: float) -> Strategy:
    """The heuristic, but each decision (trump, discard, card) is house:random's with
    probability ``p``: the strength falls from the heuristic's (0) to the random bot's (1)."""

    def choose(view: Mapping[str, Any], rng: random.Random, budget: float) -> dict[str, Any]:
        if rng.random() < p:
            return choose_random(view, rng, budget)
        return choose_heuristic(view, rng, budget)

    return choose


def ladder(size: int) -> tuple[tuple[str, Strategy], ...]:
    """The field, strongest first (the order to recover; the calibration lines check it):
    the random decisions' probability in equal steps from the heuristic to house:random.
    Only the fast bots: house:strong at 2 or 4 deals a decision was not measurably above
    the heuristic in a trial run, and at 8 deals it is too slow for a field of many games."""
    steps = [k / (size - 1) for k in range(1, size - 1)]
    return (
        ("heuristic", choose_heuristic),
        *((f"heuristic~{round(100 * p)}", sloppy(p)) for p in steps),
        ("random", choose_random),
    )


#: Kendall's tau from which an order counts as near the known one (one pair out of six),
#: and as roughly it (two pairs out of six; for the larger fields' finer steps).
NEAR_TAU = 0.86
ROUGH_TAU = 0.7
INPUTS = {
    False: ("fresh / table ranks", "fresh / standings"),
    True: (
        "duplicate / table ranks",
        "duplicate / seat comparison",
        "duplicate / both",
        "duplicate / round score",
        "duplicate / standings",
    ),
}


@dataclass(frozen=True)
class Task:
    number: int
    duplicate: bool
    rounds: int
    max_hands: int
    seed: str
    round_robin: bool = False
    size: int = 6


@dataclass
class Run:
    """One tournament: per rating input, the field's order (best first) after each round."""

    task: Task
    orders: dict[str, list[list[int]]] = field(default_factory=dict)
    diff_per_hand: list[float] = field(default_factory=list)  # per bot, its mean diff a hand
    duplicate_score: list[float] = field(default_factory=list)  # per bot, its mean a round
    seconds: float = 0.0


def seat_comparison(
    tables: Sequence[Sequence[int]], scores: Sequence[Sequence[int]]
) -> list[list[SeatOutcome]]:
    """Per seat: the players who held that seat's cards, ranked by their game scores."""
    matches = []
    for seat in range(len(tables[0])):
        held = [score[seat] for score in scores]
        matches.append(
            [
                SeatOutcome(number, table[seat], 1 + sum(other > mine for other in held))
                for number, (table, mine) in enumerate(zip(tables, held, strict=True))
            ]
        )
    return matches


def round_by_duplicate_score(
    tables: Sequence[Sequence[int]], against: Sequence[Sequence[float]]
) -> list[SeatOutcome]:
    """The whole round as one match, every player ranked by its duplicate score."""
    held = [
        (entrant, score)
        for table, scores in zip(tables, against, strict=True)
        for entrant, score in zip(table, scores, strict=True)
    ]
    return [
        SeatOutcome(k, entrant, 1 + sum(other > mine for _, other in held))
        for k, (entrant, mine) in enumerate(held)
    ]


def tournament(task: Task) -> Run:
    started = time.process_time()
    field_ = ladder(task.size)
    for name, strategy in field_:
        STRATEGIES.setdefault(name, strategy)
    names = [name for name, _ in field_]
    truth = list(range(task.size))
    rules = Rules.from_preset("classic", max_hands=task.max_hands)
    points_by_rank = default_points_by_rank()
    base = f"{task.seed}/{task.number}"
    entries = [Entry(e) for e in truth]
    results: list[RoundResult] = []
    tables_by_id: dict[int, Sequence[int]] = {}
    replays = {name: Replay() for name in INPUTS[task.duplicate] if "standings" not in name}
    run = Run(task, {name: [] for name in INPUTS[task.duplicate]})
    diffs = [0] * task.size
    hands = [0] * task.size
    duplicate_total = [0.0] * task.size
    for number in range(1, task.rounds + 1):
        history = seating.History.from_tables(tables_by_id.values())
        if task.round_robin:
            plan = seating.round_robin_round(truth, history, seed=f"{base}:{number}")
        elif number == 1:
            plan = seating.first_swiss_round(None, truth, history, rng=random.Random(base))
        else:
            lines = rank_standings(entries, results, tables_by_id, duplicate=task.duplicate)
            plan = seating.swiss_round([line.entrant for line in lines], history)
        assert not plan.byes and all(seating.FILLER not in t for t in plan.tables)
        records = [
            play_game(
                rules,
                f"{base}/{number}" if task.duplicate else f"{base}/{number}/{t}",
                [names[e] for e in table],
                budget=60.0,
                rng_seed=f"{base}/{number}/{t}/bots",
            )
            for t, table in enumerate(plan.tables)
        ]
        against = duplicate_scores([r.scores for r in records]) if task.duplicate else None
        for t, (table, record) in enumerate(zip(plan.tables, records, strict=True)):
            table_id = len(tables_by_id)
            tables_by_id[table_id] = table
            points = points_for_ranks(record.ranks, points_by_rank)
            for seat, entrant in enumerate(table):
                score = against[t][seat] if against else 0.0
                duplicate_total[entrant] += score
                results.append(
                    RoundResult(
                        entrant,
                        number,
                        points[seat],
                        record.scores[seat],
                        record.ranks[seat],
                        table_id,
                        score,
                    )
                )
                for hand in record.diffs:
                    diffs[entrant] += hand[seat]
                    hands[entrant] += 1
            outcomes = [
                SeatOutcome(s, e, r)
                for s, (e, r) in enumerate(zip(table, record.ranks, strict=True))
            ]
            replays[INPUTS[task.duplicate][0]].apply(StoredGame(table_id, AT, outcomes))
            if task.duplicate:
                replays["duplicate / both"].apply(StoredGame(table_id, AT, outcomes))
        if against is not None:
            for match in seat_comparison(plan.tables, [r.scores for r in records]):
                replays["duplicate / seat comparison"].apply(StoredGame(0, AT, match))
                replays["duplicate / both"].apply(StoredGame(0, AT, match))
            replays["duplicate / round score"].apply(
                StoredGame(0, AT, round_by_duplicate_score(plan.tables, against))
            )
        for name, replay in replays.items():
            # Equal ordinals are ordered weakest first: a tie never counts as recovered.
            ordinal = {e: replay.states[e].skill.ordinal for e in truth}
            run.orders[name].append(sorted(truth, key=lambda e: (-ordinal[e], -e)))
        standings = rank_standings(entries, results, tables_by_id, duplicate=task.duplicate)
        by_rank = sorted(standings, key=lambda line: (line.rank, -line.entrant))
        run.orders[INPUTS[task.duplicate][-1]].append([line.entrant for line in by_rank])
    run.diff_per_hand = [d / h for d, h in zip(diffs, hands, strict=True)]
    run.duplicate_score = [total / task.rounds for total in duplicate_total]
    run.seconds = time.process_time() - started
    return run


def discordant(order: Sequence[int]) -> int:
    """Pairs of the field in the wrong order (Kendall's distance to the known order)."""
    return sum(order[i] > order[j] for i in range(len(order)) for j in range(i + 1, len(order)))


def recovered_after(orders: Sequence[Sequence[int]], ok: Callable[[Sequence[int]], bool]) -> float:
    """Games per bot after which every order up to the last is ``ok`` (inf if the last is not)."""
    games = float("inf")
    for number in range(len(orders), 0, -1):
        if not ok(orders[number - 1]):
            break
        games = number
    return games


def nearest_rank(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def median_interval(values: Sequence[float], resamples: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of the median (nearest rank, so never-recovered runs stay inf)."""
    rng = random.Random(0)
    medians = sorted(
        nearest_rank([rng.choice(values) for _ in values], 0.5) for _ in range(resamples)
    )
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def shown(value: float, rounds: int) -> str:
    return f">{rounds}" if value == float("inf") else f"{value:.0f}"


def summary(values: Sequence[float], rounds: int) -> tuple[str, float]:
    low, high = median_interval(values)
    median = nearest_rank(values, 0.5)
    done = sum(v != float("inf") for v in values) / len(values)
    text = (
        f"{shown(median, rounds):>4s} [{shown(low, rounds)}, {shown(high, rounds)}] "
        f"(quartiles {shown(nearest_rank(values, 0.25), rounds)}-"
        f"{shown(nearest_rank(values, 0.75), rounds)}, recovered by the end {done:.0%})"
    )
    return text, median


def calibration(runs: Sequence[Run], names: Sequence[str]) -> None:
    """Adjacent bots' differences over all tournaments (each tournament one sample)."""
    dup = [r for r in runs if r.task.duplicate]
    for label, values, pool in (
        ("duplicate score a game (duplicate tournaments)", "duplicate_score", dup),
        ("diff a hand (all tournaments)", "diff_per_hand", runs),
    ):
        parts = []
        for k in range(len(names) - 1):
            gap = Interval.of([getattr(r, values)[k] - getattr(r, values)[k + 1] for r in pool])
            parts.append(
                f"{names[k]} - {names[k + 1]} {gap.mean:+.2f} [{gap.low:+.2f}, {gap.high:+.2f}]"
            )
        print(f"  {label}:\n    " + "\n    ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tournaments", type=int, default=80, help="tournaments per mode")
    parser.add_argument("--rounds", type=int, default=40, help="rounds (games per bot)")
    parser.add_argument("--max-hands", type=int, default=3, help="hands_per_game (default 3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", default="recovery")
    parser.add_argument("--format", choices=["swiss", "round-robin"], default="swiss")
    parser.add_argument("--field", type=int, default=6, help="bots, a multiple of 3 (default 6)")
    options = parser.parse_args()
    if options.field < 6 or options.field % 3:
        parser.error("--field must be a multiple of 3, at least 6")
    names = [name for name, _ in ladder(options.field)]
    truth = list(range(options.field))
    pairs = options.field * (options.field - 1) // 2
    near, rough = (
        max(d for d in range(pairs) if 1 - 2 * d / pairs >= t) for t in (NEAR_TAU, ROUGH_TAU)
    )
    started = time.monotonic()
    tasks = [
        Task(
            number,
            duplicate,
            options.rounds,
            options.max_hands,
            options.seed,
            round_robin=options.format == "round-robin",
            size=options.field,
        )
        for number in range(options.tournaments)
        for duplicate in (True, False)
    ]
    with multiprocessing.get_context("fork").Pool(options.jobs) as pool:
        runs = pool.map(tournament, tasks, chunksize=1)
    cpu = {mode: sum(r.seconds for r in runs if r.task.duplicate == mode) for mode in (True, False)}
    print(
        f"{options.tournaments} {options.format} tournaments a mode, {options.field} bots, "
        f"{options.rounds} rounds (games per bot), classic max_hands {options.max_hands}; "
        f"CPU {cpu[True]:.0f} s duplicate, {cpu[False]:.0f} s fresh; "
        f"{time.monotonic() - started:.0f} s wall"
    )
    print("field, expected order: " + " > ".join(names))
    print("calibration, adjacent differences, mean [95% interval over tournaments]:")
    calibration(runs, names)
    medians: dict[tuple[str, str], float] = {}
    for criterion, ok in (
        ("exact order", lambda order: list(order) == truth),
        (
            f"near order (at most {near} pair{'s' * (near > 1)} swapped)",
            lambda order: discordant(order) <= near,
        ),
        (
            f"rough order (at most {rough} pairs swapped)",
            lambda order: discordant(order) <= rough,
        ),
    ):
        print(f"games per bot until the ratings hold the {criterion} to the end, median [95%]:")
        for duplicate in (False, True):
            for name in INPUTS[duplicate]:
                values = [
                    recovered_after(r.orders[name], ok)
                    for r in runs
                    if r.task.duplicate == duplicate
                ]
                text, medians[(criterion, name)] = summary(values, options.rounds)
                print(f"  {name:28s} {text}")
        fresh = medians[(criterion, "fresh / table ranks")]
        for name in INPUTS[True][:-1]:
            other = medians[(criterion, name)]
            ratio = "n/a" if float("inf") in (fresh, other) else f"{fresh / other:.2f}"
            print(f"  fresh / table ranks needs {ratio} times the games of {name}")


if __name__ == "__main__":
    main()
