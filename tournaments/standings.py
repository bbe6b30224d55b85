"""A round's points and standings from round results (pure Python, no Django).

A table's ranks give tournament points (:func:`points_for_ranks`), and in a duplicate
tournament its game scores are set against the same seats at the round's other tables
(:func:`duplicate_scores`).

The standings: tournament points first, then the tiebreaks in order: total stakes (the
game scores), the sum of the table-mates' points (each table-mate counted once per shared
table), and head to head among those still tied (+1 per shared table finished ahead of
another, -1 behind). A knockout ranks first by how far each entrant got, then by the rank
at its last table. A duplicate tournament ranks first by the duplicate score (the sum, over
the rounds, of the game score minus the mean score of the same seat of the same deals at
the round's other tables), then as above. Entrants tied on everything share a rank.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


def points_for_ranks(ranks: Sequence[int], points_by_rank: Sequence[float]) -> list[float]:
    """Tournament points by table rank; tied seats share the points of the places they
    cover (ranks [1, 1, 3] with 3/1/0 give 2, 2, 0)."""

    def place(k: int) -> float:
        return float(points_by_rank[k]) if k < len(points_by_rank) else 0.0

    out = []
    for rank in ranks:
        tied = ranks.count(rank)
        out.append(sum(place(rank - 1 + k) for k in range(tied)) / tied)
    return out


def duplicate_scores(scores_by_table: Sequence[Sequence[int]]) -> list[list[float]]:
    """Each table's seats' duplicate scores: the seat's game score minus the mean score of
    the same seat (the same cards) at the round's other tables; 0 with no other table.
    ``duplicate_scores([[10, 2, -4], [4, 8, -4]])`` → ``[[6, -6, 0], [-6, 6, 0]]``."""
    count = len(scores_by_table)
    if count < 2:
        return [[0.0] * len(scores) for scores in scores_by_table]
    seats = len(scores_by_table[0])
    totals = [sum(scores[seat] for scores in scores_by_table) for seat in range(seats)]
    return [
        [scores[seat] - (totals[seat] - scores[seat]) / (count - 1) for seat in range(seats)]
        for scores in scores_by_table
    ]


@dataclass(frozen=True)
class Entry:
    entrant: int
    seed: int = 0
    eliminated_in_round: int | None = None


@dataclass(frozen=True)
class RoundResult:
    """One entrant's round: at a table (its id), or a bye (``table`` None)."""

    entrant: int
    round: int
    points: float
    score: int = 0
    rank: int | None = None
    table: int | None = None
    duplicate_score: float = 0.0


@dataclass
class Line:
    entrant: int
    points: float = 0.0
    duplicate_score: float = 0.0
    stakes: int = 0
    games: int = 0
    byes: int = 0
    mates: list[int] = field(default_factory=list)
    opponents_points: float = 0.0
    head_to_head: int = 0
    reached: int = 0
    last_rank: int = 0
    rank: int = 0
    round_points: float | None = None


def rank_standings(
    entries: Sequence[Entry],
    results: Iterable[RoundResult],
    tables: Mapping[int, Sequence[int]],
    knockout: bool = False,
    up_to_round: int | None = None,
    duplicate: bool = False,
) -> list[Line]:
    """Every entry, best first, with its rank. ``tables`` gives each table's entrants."""
    lines = {e.entrant: Line(e.entrant) for e in entries}
    seeds = {e.entrant: e.seed for e in entries}
    ranks_at_table: dict[int, dict[int, int]] = defaultdict(dict)
    last_round: dict[int, int] = {}
    counted = [r for r in results if up_to_round is None or r.round <= up_to_round]
    for result in sorted(counted, key=lambda r: r.round):
        line = lines[result.entrant]
        line.points += result.points
        line.duplicate_score += result.duplicate_score
        line.stakes += result.score
        line.last_rank = result.rank or 0
        last_round[result.entrant] = result.round
        if result.table is None:
            line.byes += 1
        else:
            line.games += 1
            line.mates.extend(e for e in tables[result.table] if e != result.entrant)
            ranks_at_table[result.table][result.entrant] = result.rank or 0
        if result.round == up_to_round:
            line.round_points = result.points
    for entry in entries:
        line = lines[entry.entrant]
        line.opponents_points = sum(lines[m].points for m in line.mates)
        out = entry.eliminated_in_round
        if out is not None and (up_to_round is None or out <= up_to_round):
            line.reached = out
        else:
            line.reached = last_round.get(entry.entrant, 0) + 1

    def key(line: Line) -> tuple[Any, ...]:
        stage = (-line.reached, line.last_rank) if knockout else ()
        if duplicate:
            stage = (*stage, -round(line.duplicate_score, 6))
        return (*stage, -round(line.points, 6), -line.stakes, -round(line.opponents_points, 6))

    group = {entrant: key(line) for entrant, line in lines.items()}
    for ranks in ranks_at_table.values():
        for a, b in itertools.combinations(ranks, 2):
            if group[a] != group[b] or ranks[a] == ranks[b]:
                continue
            ahead, behind = (a, b) if ranks[a] < ranks[b] else (b, a)
            lines[ahead].head_to_head += 1
            lines[behind].head_to_head -= 1

    ordered = sorted(
        lines.values(),
        key=lambda line: (*key(line), -line.head_to_head, seeds[line.entrant], line.entrant),
    )
    previous: tuple[Any, ...] | None = None
    for position, line in enumerate(ordered, start=1):
        current = (*key(line), line.head_to_head)
        line.rank = ordered[position - 2].rank if current == previous else position
        previous = current
    return ordered
