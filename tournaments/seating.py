"""Seating players at tables of three: swiss, round robin (series) and knockout.

Pure Python, no Django: players are ints (entrant ids), a filler house-bot seat is
:data:`FILLER` in a result. Two-player pairing programs cannot do this; the approach here:

* Every seating is judged by one cost, compared lexicographically through integer weights:
  first **forbidden pairs** (never together while avoidable), then **repeat meetings**
  (a pair that met ``m`` times before costs ``m²``: every earlier meeting costs, and
  repeats are spread rather than piled on one pair), then, in swiss only, the **spread of
  standing** at each table (the distance in the standings order between its best and worst
  player).
* Up to :data:`EXACT_LIMIT` seats, a branch-and-bound search finds the optimum. Beyond, a
  greedy pass walks down the order, seating the best-placed free player with the two
  cheapest companions among the next few, then a local search swaps players between
  tables while that lowers the cost (only tables with a conflict start a search, so it
  costs little when the greedy pass did well).
* Counts not divisible by 3 are met either with byes (the players with the fewest byes
  so far, lowest standing first, sit out) or with filler seats: at most one filler per
  table, and a player's filler tables count as meetings with "the filler", so they rotate.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

FILLER = -1
"""A filler seat (a house bot whose results do not count) in a seating or a history."""

EXACT_LIMIT = 12
"""Seat counts up to which the optimum is searched exhaustively (15,400 partitions at 12)."""

GREEDY_WINDOW = 8
# How many tables either side a conflicted table looks for a swap (bounds the time spent on
# conflicts that no swap can remove).
SWAP_RADIUS = 200
RESTARTS = 4
Pair = tuple[int, int]


def pair(a: int, b: int) -> Pair:
    """The history key of two players (fillers count as one, :data:`FILLER`)."""
    a = FILLER if a < 0 else a
    b = FILLER if b < 0 else b
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class History:
    """What earlier rounds and the organiser say about who may sit with whom."""

    meetings: Mapping[Pair, int] = field(default_factory=dict)
    forbidden: frozenset[Pair] = frozenset()
    byes: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def from_tables(
        cls,
        tables: Iterable[Sequence[int]],
        forbidden: Iterable[tuple[int, int]] = (),
        byes: Iterable[int] = (),
    ) -> History:
        """A history from earlier tables (filler seats as :data:`FILLER`) and byes."""
        meetings: dict[Pair, int] = {}
        for table in tables:
            for a, b in itertools.combinations(table, 2):
                key = pair(a, b)
                meetings[key] = meetings.get(key, 0) + 1
        bye_counts: dict[int, int] = {}
        for player in byes:
            bye_counts[player] = bye_counts.get(player, 0) + 1
        return cls(meetings, frozenset(pair(a, b) for a, b in forbidden), bye_counts)

    def met(self, a: int, b: int) -> int:
        return self.meetings.get(pair(a, b), 0)


@dataclass(frozen=True)
class Seating:
    """One round: tables of three (entrant ids, :data:`FILLER` for a filler seat) and byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()

    def players(self) -> list[int]:
        return [p for table in self.tables for p in table if p != FILLER]


@dataclass(frozen=True)
class Quality:
    """How good a seating is: forbidden pairs seated together, and the repeat cost."""

    forbidden: int
    repeats: int
    repeated_pairs: int


def quality(seating: Seating, history: History) -> Quality:
    forbidden = repeats = repeated = 0
    for table in seating.tables:
        for a, b in itertools.combinations(table, 2):
            if a == FILLER and b == FILLER:
                forbidden += 1
                continue
            key = pair(a, b)
            forbidden += key in history.forbidden
            met = history.meetings.get(key, 0)
            repeats += met * met
            repeated += met > 0
    return Quality(forbidden, repeats, repeated)


# --- The cost of a table --------------------------------------------------------------------


class _Scorer:
    """The cost of one table: forbidden ≫ repeats ≫ spread, as one integer."""

    def __init__(self, history: History, slots: int, position: Mapping[int, int] | None):
        self.meetings = history.meetings
        self.forbidden = history.forbidden
        self.position = position
        # Weights make the order strict: all the spread of a round is below one repeat, all
        # the repeats of a round below one forbidden pair.
        spread_total = slots * slots + 1 if position is not None else 1
        most_met = max(history.meetings.values(), default=0) + 1
        self.repeat_weight = spread_total
        self.forbidden_weight = spread_total * (slots * most_met * most_met + 1)

    def pair_cost(self, a: int, b: int) -> int:
        if a < 0 and b < 0:
            return self.forbidden_weight
        key = pair(a, b)
        if key in self.forbidden:
            return self.forbidden_weight
        met = self.meetings.get(key)
        return met * met * self.repeat_weight if met else 0

    def table(self, a: int, b: int, c: int) -> int:
        cost = self.pair_cost(a, b) + self.pair_cost(a, c) + self.pair_cost(b, c)
        if self.position is not None:
            pa, pb, pc = self.position[a], self.position[b], self.position[c]
            cost += max(pa, pb, pc) - min(pa, pb, pc)
        return cost

    def has_conflict(self, cost: int) -> bool:
        return cost >= self.repeat_weight


# --- Searches -------------------------------------------------------------------------------


def _greedy(order: Sequence[int], scorer: _Scorer, window: int) -> list[list[int]]:
    """Seat the first free player with the cheapest two among the next ``window`` free ones
    (looking four times further when those would all repeat a meeting)."""
    seated: set[int] = set()
    tables: list[list[int]] = []
    n = len(order)
    start = 0
    while True:
        while start < n and order[start] in seated:
            start += 1
        if start >= n:
            return tables
        pivot = order[start]
        seated.add(pivot)
        candidates: list[int] = []
        best: tuple[int, int, int] | None = None
        for limit in (window, window * 4):
            j = start + 1
            candidates = []
            while j < n and len(candidates) < limit:
                if order[j] not in seated:
                    candidates.append(order[j])
                j += 1
            for x, y in itertools.combinations(range(len(candidates)), 2):
                cost = scorer.table(pivot, candidates[x], candidates[y])
                if best is None or cost < best[0]:
                    best = (cost, x, y)
            if best is not None and not scorer.has_conflict(best[0]):
                break
        if best is None:
            raise ValueError("the number of seats must be a multiple of 3")
        a, b = candidates[best[1]], candidates[best[2]]
        seated.update((a, b))
        tables.append([pivot, a, b])


def _improve(tables: list[list[int]], scorer: _Scorer, max_passes: int = 8) -> None:
    """Swap players between tables while that lowers the cost, starting from each table with
    a conflict (forbidden pair or repeat) and trying the nearest tables first."""
    costs = [scorer.table(*t) for t in tables]
    count = len(tables)
    for _ in range(max_passes):
        changed = False
        for i in range(count):
            if not scorer.has_conflict(costs[i]):
                continue
            done = False
            for distance in range(1, min(count, SWAP_RADIUS)):
                for j in (i - distance, i + distance):
                    if not 0 <= j < count:
                        continue
                    if _best_swap(tables, costs, i, j, scorer):
                        changed = done = True
                        break
                if done or not scorer.has_conflict(costs[i]):
                    break
        if not changed:
            return


def _best_swap(tables: list[list[int]], costs: list[int], i: int, j: int, scorer: _Scorer) -> bool:
    """Make the best improving exchange of one player between tables i and j, if any."""
    ti, tj = tables[i], tables[j]
    before = costs[i] + costs[j]
    best: tuple[int, int, int, int, int] | None = None
    for x in range(3):
        for y in range(3):
            new_i = ti[:]
            new_j = tj[:]
            new_i[x], new_j[y] = tj[y], ti[x]
            ci, cj = scorer.table(*new_i), scorer.table(*new_j)
            if ci + cj < before and (best is None or ci + cj < best[0]):
                best = (ci + cj, x, y, ci, cj)
    if best is None:
        return False
    _, x, y, ci, cj = best
    ti[x], tj[y] = tj[y], ti[x]
    costs[i], costs[j] = ci, cj
    return True


def _exact(slots: Sequence[int], scorer: _Scorer, bound: int) -> list[list[int]] | None:
    """The cheapest partition into tables of three costing less than ``bound`` (or None)."""
    best_cost = bound
    best: list[list[int]] | None = None
    chosen: list[list[int]] = []

    def search(remaining: list[int], cost: int) -> None:
        nonlocal best_cost, best
        if not remaining:
            best_cost, best = cost, [t[:] for t in chosen]
            return
        first, rest = remaining[0], remaining[1:]
        for x, y in itertools.combinations(range(len(rest)), 2):
            total = cost + scorer.table(first, rest[x], rest[y])
            if total >= best_cost:
                continue
            chosen.append([first, rest[x], rest[y]])
            search([p for k, p in enumerate(rest) if k != x and k != y], total)
            chosen.pop()

    search(list(slots), 0)
    return best


def _optimise(
    orders: Sequence[Sequence[int]], scorer: _Scorer, window: int = GREEDY_WINDOW
) -> list[list[int]]:
    """The best seating found from each starting order (exact for small counts)."""
    best: list[list[int]] | None = None
    best_cost = 0
    for order in orders:
        tables = _greedy(order, scorer, window)
        _improve(tables, scorer)
        cost = sum(scorer.table(*t) for t in tables)
        if best is None or cost < best_cost:
            best, best_cost = tables, cost
    assert best is not None
    if len(orders[0]) <= EXACT_LIMIT and best_cost > 0:
        exact = _exact(orders[0], scorer, best_cost)
        if exact is not None:
            best = exact
    return best


# --- Odd counts -----------------------------------------------------------------------------


def choose_byes(bottom_first: Sequence[int], byes: Mapping[int, int], count: int) -> list[int]:
    """``count`` players to sit out: the fewest byes so far first, then the order given."""
    ranked = sorted(range(len(bottom_first)), key=lambda k: (byes.get(bottom_first[k], 0), k))
    return [bottom_first[k] for k in ranked[:count]]


def _with_odd_count(
    players: Sequence[int], history: History, odd: str, bottom_first: Sequence[int]
) -> tuple[list[int], list[int], list[int]]:
    """(players to seat, filler slot ids, byes) for ``odd`` = "fillers" or "byes"."""
    if odd not in ("fillers", "byes"):
        raise ValueError(f"odd must be 'fillers' or 'byes', not {odd!r}")
    remainder = len(players) % 3
    if remainder == 0:
        return list(players), [], []
    if odd == "byes" and len(players) > 3:
        byes = choose_byes(bottom_first, history.byes, remainder)
        out = set(byes)
        return [p for p in players if p not in out], [], byes
    fillers = [FILLER - k for k in range(3 - remainder)]
    return list(players), fillers, []


def _finish(tables: Iterable[Sequence[int]], byes: Sequence[int]) -> Seating:
    return Seating(
        tuple(tuple(FILLER if p < 0 else p for p in table) for table in tables), tuple(byes)
    )


# --- Formats --------------------------------------------------------------------------------


def swiss_round(
    standings: Sequence[int], history: History, odd: str = "fillers", window: int = GREEDY_WINDOW
) -> Seating:
    """A later swiss round: ``standings`` best first; players of similar standing sit
    together, with as few repeat meetings as possible and no forbidden pair."""
    bottom_first = list(reversed(standings))
    players, fillers, byes = _with_odd_count(standings, history, odd, bottom_first)
    # Filler seats go with the bottom of the standings, as a bye would.
    slots = players + fillers
    position = {p: k for k, p in enumerate(slots)}
    scorer = _Scorer(history, len(slots), position)
    tables = _optimise([slots], scorer, window)
    cost = sum(scorer.table(*t) for t in tables)
    if scorer.has_conflict(cost):
        # The standings order leaves a repeat: search wider, from shuffled orders too (the
        # cost still prefers similar standings among seatings with as few repeats), so that
        # fewer late rounds of a small swiss are left with a repeat.
        rng = random.Random(len(slots))
        orders = [slots] + [rng.sample(slots, len(slots)) for _ in range(2 * RESTARTS)]
        wider = _optimise(orders, scorer, window=16)
        if sum(scorer.table(*t) for t in wider) < cost:
            tables = wider
    return _finish(tables, byes)


def first_swiss_round(
    ranking: Sequence[int] | None,
    players: Sequence[int],
    history: History,
    odd: str = "fillers",
    rng: random.Random | None = None,
) -> Seating:
    """Round 1 of a swiss: with a rating ``ranking`` (best first) each table takes one
    player from each third (the top third's best with the middle third's best and the
    bottom third's best, and so on); unrated, a random draw. Forbidden pairs are then
    moved apart with as little change as possible."""
    if ranking is None:
        order = list(players)
        (rng or random.Random(0)).shuffle(order)
    else:
        order = list(ranking)
    seated, fillers, byes = _with_odd_count(order, history, odd, list(reversed(order)))
    slots = seated + fillers
    tables = len(slots) // 3
    folded = [slots[k + tables * part] for k in range(tables) for part in range(3)]
    position = {p: k for k, p in enumerate(folded)}
    scorer = _Scorer(history, len(folded), position)
    return _finish(_optimise([folded], scorer), byes)


def round_robin_round(
    players: Sequence[int], history: History, odd: str = "fillers", seed: int | str = 0
) -> Seating:
    """A round of a series: meetings spread as evenly as possible (social-golfer style),
    the pairs that met least sitting together first; byes rotate."""
    rng = random.Random(str(seed))
    order = list(players)
    rng.shuffle(order)
    seated, fillers, byes = _with_odd_count(order, history, odd, order)
    slots = seated + fillers
    scorer = _Scorer(history, len(slots), None)
    orders = [slots]
    for _ in range(RESTARTS - 1):
        shuffled = slots[:]
        rng.shuffle(shuffled)
        orders.append(shuffled)
    # Without standings every free player is as good a companion as the next: look wide.
    return _finish(_optimise(orders, scorer, window=16), byes)


def knockout_round(seeds: Sequence[int], history: History, odd: str = "fillers") -> Seating:
    """A knockout round, ``seeds`` best first, dealt to tables in a snake (1, 2, 3 ... then
    back) so that each table has a strong, a middle and a weak seed. Filler seats (or byes)
    go to the best seeds. Forbidden pairs are moved apart."""
    players, fillers, byes = _with_odd_count(seeds, history, odd, list(seeds))
    tables_count = math.ceil(len(players) / 3)
    tables: list[list[int]] = [[] for _ in range(tables_count)]
    with_filler = len(fillers)
    for index, player in enumerate(players):
        lap, place = divmod(index, tables_count)
        if lap == 0:
            tables[place].append(player)
        elif lap == 1:
            tables[tables_count - 1 - place].append(player)
        else:
            tables[with_filler + place].append(player)
    for k, filler in enumerate(fillers):
        tables[k].append(filler)
    scorer = _Scorer(History(forbidden=history.forbidden), len(players) + len(fillers), None)
    _improve(tables, scorer)
    return _finish(tables, byes)


@dataclass(frozen=True)
class TableResult:
    """One entrant's result at a knockout table (fillers are not entrants)."""

    entrant: int
    rank: int
    score: int
    seed: int


def knockout_advancers(results: Sequence[TableResult], per_table: int) -> list[int]:
    """Who goes through from one table: the best ``per_table`` by rank, then game score,
    then seed; always at least one and never everyone (each table must eliminate)."""
    ordered = sorted(results, key=lambda r: (r.rank, -r.score, r.seed))
    count = max(1, min(per_table, len(ordered) - 1))
    return [r.entrant for r in ordered[:count]]
