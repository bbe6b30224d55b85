"""Seating tables of three (tournaments.seating, pure Python): properties over random
instances, and the optimum checked against a brute force on small ones."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.seating import (
    FILLER,
    History,
    Seating,
    TableResult,
    first_swiss_round,
    knockout_advancers,
    knockout_round,
    quality,
    round_robin_round,
    swiss_round,
)
from tournaments.standings import points_for_ranks

FORMATS = ("swiss", "round_robin")


def seat(fmt: str, players: list[int], history: History, odd: str) -> Seating:
    if fmt == "swiss":
        return swiss_round(players, history, odd)
    return round_robin_round(players, history, odd, seed=len(history.meetings))


def random_history(
    players: list[int], rounds: int, rng: random.Random, forbidden: Sequence[tuple[int, int]] = ()
) -> History:
    tables = []
    for _ in range(rounds):
        shuffled = players[:]
        rng.shuffle(shuffled)
        tables.extend(shuffled[k : k + 3] for k in range(0, len(shuffled) - 2, 3))
    return History.from_tables(tables, forbidden)


def households(players: list[int], count: int, rng: random.Random) -> list[tuple[int, int]]:
    """``count`` disjoint forbidden pairs (couples): always avoidable from six players on."""
    shuffled = players[:]
    rng.shuffle(shuffled)
    return [(shuffled[2 * k], shuffled[2 * k + 1]) for k in range(min(count, len(players) // 2))]


def check_shape(seating: Seating, players: list[int], odd: str) -> None:
    assert all(len(table) == 3 for table in seating.tables)
    seated = seating.players()
    assert sorted(seated + list(seating.byes)) == sorted(players)  # everyone exactly once
    assert all(table.count(FILLER) <= 1 for table in seating.tables)
    if odd == "byes" and len(players) > 3:
        assert len(seating.byes) == len(players) % 3
        assert FILLER not in [p for t in seating.tables for p in t]
    else:
        assert seating.byes == ()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 45),
    earlier=st.integers(0, 5),
    couples=st.integers(0, 10),
    odd=st.sampled_from(["fillers", "byes"]),
    fmt=st.sampled_from(FORMATS),
    seed=st.integers(0, 10**6),
)
def test_it_seats_everyone_once_and_keeps_forbidden_pairs_apart(
    n: int, earlier: int, couples: int, odd: str, fmt: str, seed: int
) -> None:
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    forbidden = households(players, couples, rng) if n >= 6 else []
    history = random_history(players, earlier, rng, forbidden)

    seating = seat(fmt, players, history, odd)

    check_shape(seating, players, odd)
    assert quality(seating, history).forbidden == 0


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(3, 40),
    couples=st.integers(0, 6),
    odd=st.sampled_from(["fillers", "byes"]),
    rated=st.booleans(),
    seed=st.integers(0, 10**6),
)
def test_it_seats_a_first_swiss_round_one_from_each_third(
    n: int, couples: int, odd: str, rated: bool, seed: int
) -> None:
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    forbidden = households(players, couples, rng) if n >= 6 else []
    history = History.from_tables([], forbidden)

    seating = first_swiss_round(players if rated else None, players, history, odd, rng)

    check_shape(seating, players, odd)
    assert quality(seating, history).forbidden == 0
    if rated and not forbidden and n % 3 == 0:
        thirds = n // 3
        for table in seating.tables:
            assert sorted((p - 1) // thirds for p in table) == [0, 1, 2]


def partitions(items: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to split ``items`` into tables of three."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for a, b in itertools.combinations(rest, 2):
        remaining = [p for p in rest if p != a and p != b]
        for tail in partitions(remaining):
            yield [(first, a, b), *tail]


def brute_force_best(players: list[int], fillers: int, history: History) -> tuple[int, int]:
    slots = players + [FILLER - k for k in range(fillers)]
    best = None
    for tables in partitions(slots):
        seated = tuple(tuple(FILLER if p < 0 else p for p in t) for t in tables)
        q = quality(Seating(seated), history)
        key = (q.forbidden, q.repeats)
        best = key if best is None else min(best, key)
    assert best is not None
    return best


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3, 10),
    earlier=st.integers(1, 6),
    couples=st.integers(0, 3),
    fmt=st.sampled_from(FORMATS),
    seed=st.integers(0, 10**6),
)
def test_it_repeats_meetings_no_more_than_the_brute_force_optimum(
    n: int, earlier: int, couples: int, fmt: str, seed: int
) -> None:
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    forbidden = households(players, couples, rng)
    history = random_history(players, earlier, rng, forbidden)

    seating = seat(fmt, players, history, "fillers")

    found = quality(seating, history)
    assert (found.forbidden, found.repeats) <= brute_force_best(players, (-n) % 3, history)


@settings(max_examples=15, deadline=None)
# Three rounds: in a fourth, the standings sometimes leave a repeat in a small swiss
# (tournaments/seating.py swiss_round), so no repeat at all is not a property there.
@given(n=st.integers(15, 60), rounds=st.integers(2, 3), seed=st.integers(0, 10**6))
def test_it_needs_no_repeat_meeting_in_a_few_rounds_of_a_larger_swiss(
    n: int, rounds: int, seed: int
) -> None:
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    points: Counter[int] = Counter()
    tables: list[tuple[int, ...]] = []
    for number in range(rounds):
        history = History.from_tables(tables)
        order = sorted(players, key=lambda p: (-points[p], p))
        seating = (
            swiss_round(order, history)
            if number
            else first_swiss_round(None, players, history, rng=rng)
        )
        assert quality(seating, history).repeats == 0
        for table in seating.tables:
            tables.append(table)
            for place, player in enumerate(rng.sample(table, 3)):
                points[player] += (3, 1, 0)[place]


def test_it_seats_similar_standings_together_in_swiss() -> None:
    players = list(range(1, 28))  # already in standings order, nobody has met

    seating = swiss_round(players, History())

    assert sorted(seating.tables) == [tuple(range(k, k + 3)) for k in range(1, 28, 3)]


@given(n=st.integers(4, 30), rounds=st.integers(1, 8), seed=st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_it_gives_nobody_a_second_bye_while_avoidable(n: int, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    tables: list[tuple[int, ...]] = []
    byes: list[int] = []
    for _ in range(rounds):
        order = players[:]
        rng.shuffle(order)
        seating = swiss_round(order, History.from_tables(tables, (), byes), "byes")
        tables.extend(seating.tables)
        byes.extend(seating.byes)
    counts = Counter(byes)
    if len(byes) <= n:
        assert all(c == 1 for c in counts.values())
    assert max(counts.values(), default=0) - min(counts.get(p, 0) for p in players) <= 1


def test_it_spreads_a_nine_player_series_so_every_pair_meets_exactly_once() -> None:
    players = list(range(1, 10))
    tables: list[tuple[int, ...]] = []
    for number in range(4):  # 4 rounds x 2 new table-mates = all 8 others
        seating = round_robin_round(players, History.from_tables(tables), seed=number)
        tables.extend(seating.tables)
    met = History.from_tables(tables).meetings
    assert len(met) == 36 and set(met.values()) == {1}


def test_it_deals_knockout_seeds_in_a_snake_with_fillers_for_the_best() -> None:
    seeds = list(range(1, 11))  # 10 players: 4 tables, two with a filler

    seating = knockout_round(seeds, History())

    tables = [set(t) for t in seating.tables]
    assert [sorted(p for p in t if p != FILLER)[0] for t in seating.tables] == [1, 2, 3, 4]
    assert FILLER in tables[0] and FILLER in tables[1]
    assert sorted(seating.players()) == seeds


def test_it_advances_the_table_winner_then_by_score_then_by_seed() -> None:
    table = [TableResult(7, 2, 3, 1), TableResult(8, 1, 5, 9), TableResult(9, 3, -4, 2)]
    assert knockout_advancers(table, 1) == [8]
    assert knockout_advancers(table, 2) == [8, 7]
    tied = [TableResult(7, 1, 2, 5), TableResult(8, 1, 2, 3), TableResult(9, 3, -4, 1)]
    assert knockout_advancers(tied, 1) == [8]
    # Two entrants and a filler: one of them must still go out.
    assert knockout_advancers([TableResult(1, 2, 0, 1), TableResult(2, 3, -1, 2)], 2) == [1]


def test_it_shares_the_points_of_tied_places() -> None:
    assert points_for_ranks([1, 2, 3], [3, 1, 0]) == [3, 1, 0]
    assert points_for_ranks([1, 1, 3], [3, 1, 0]) == [2, 2, 0]
    assert points_for_ranks([2, 1, 2], [3, 1, 0]) == [0.5, 3, 0.5]
    assert points_for_ranks([1, 1, 1], [3, 1, 0]) == [4 / 3] * 3
