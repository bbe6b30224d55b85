"""Standings (tournaments.standings, pure Python): points, then stakes, then table-mates'
points, then head to head; shared ranks; per round; knockout stages."""

from __future__ import annotations

from tournaments.standings import Entry, RoundResult, rank_standings


def order(lines: list) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    return [(line.rank, line.entrant) for line in lines]


def test_it_ranks_by_points_then_by_stakes() -> None:
    entries = [Entry(1), Entry(2), Entry(3)]
    tables = {10: [1, 2, 3]}
    results = [
        RoundResult(1, 1, points=1, score=-2, rank=2, table=10),
        RoundResult(2, 1, points=3, score=4, rank=1, table=10),
        RoundResult(3, 1, points=0, score=-2, rank=3, table=10),
    ]
    assert order(rank_standings(entries, results, tables)) == [(1, 2), (2, 1), (3, 3)]

    # Equal points: the bigger total stakes first.
    results = [
        RoundResult(1, 1, points=2, score=1, rank=1, table=10),
        RoundResult(2, 1, points=2, score=3, rank=1, table=10),
        RoundResult(3, 1, points=0, score=-4, rank=3, table=10),
    ]
    assert order(rank_standings(entries, results, tables)) == [(1, 2), (2, 1), (3, 3)]


def test_it_breaks_ties_by_table_mates_points_then_head_to_head() -> None:
    entries = [Entry(n, seed=n) for n in range(1, 7)]
    tables = {10: [1, 3, 4], 11: [2, 5, 6]}
    # 1 and 2 both win with the same score; 1's table-mates have more points (made-up
    # figures: only the tiebreak is under test here).
    results = [
        RoundResult(1, 1, 3, 2, 1, 10),
        RoundResult(3, 1, 1, 0, 2, 10),
        RoundResult(4, 1, 1, 0, 2, 10),
        RoundResult(2, 1, 3, 2, 1, 11),
        RoundResult(5, 1, 1, 0, 2, 11),
        RoundResult(6, 1, 0, -2, 3, 11),
    ]
    lines = rank_standings(entries, results, tables)
    assert [line.entrant for line in lines][:2] == [1, 2]
    assert lines[0].opponents_points == 2 and lines[1].opponents_points == 1

    # 3 and 4 are tied on everything but met in round 2, where 4 finished ahead.
    tables[12] = [3, 4, 1]
    results += [
        RoundResult(3, 2, 1, 0, 2, 12),
        RoundResult(4, 2, 1, 0, 2, 12),
        RoundResult(1, 2, 3, 2, 1, 12),
    ]
    lines = rank_standings(entries, results, tables)
    by_entrant = {line.entrant: line for line in lines}
    assert by_entrant[3].rank == by_entrant[4].rank  # shared second place: no one ahead
    results[-3] = RoundResult(3, 2, 1, 0, 3, 12)
    results[-2] = RoundResult(4, 2, 1, 0, 2, 12)
    lines = rank_standings(entries, results, tables)
    by_entrant = {line.entrant: line for line in lines}
    assert by_entrant[4].head_to_head == 1 and by_entrant[3].head_to_head == -1
    assert by_entrant[4].rank < by_entrant[3].rank


def test_it_gives_standings_after_each_round() -> None:
    entries = [Entry(1), Entry(2), Entry(3), Entry(4)]
    tables = {10: [1, 2, 3], 11: [2, 3, 4]}
    results = [
        RoundResult(1, 1, 3, 5, 1, 10),
        RoundResult(2, 1, 1, 0, 2, 10),
        RoundResult(3, 1, 0, -5, 3, 10),
        RoundResult(4, 1, 4 / 3, 0, None, None),  # a bye: the round's average
        RoundResult(2, 2, 3, 5, 1, 11),
        RoundResult(3, 2, 1, 0, 2, 11),
        RoundResult(4, 2, 0, -5, 3, 11),
        RoundResult(1, 2, 4 / 3, 0, None, None),
    ]
    after_one = rank_standings(entries, results, tables, up_to_round=1)
    assert [line.entrant for line in after_one] == [1, 4, 2, 3]
    assert after_one[1].byes == 1 and after_one[1].games == 0
    overall = rank_standings(entries, results, tables)
    assert [line.entrant for line in overall] == [1, 2, 4, 3]
    assert overall[0].points == 3 + 4 / 3


def test_it_ranks_a_knockout_by_how_far_each_got() -> None:
    entries = [Entry(1, 1, None), Entry(2, 2, 2), Entry(3, 3, 1), Entry(4, 4, 2)]
    tables = {10: [1, 3, 2], 11: [2, 1, 4]}
    results = [
        RoundResult(1, 1, 0, -3, 3, 10),
        RoundResult(3, 1, 3, 5, 1, 10),
        RoundResult(2, 1, 1, 0, 2, 10),
        RoundResult(2, 2, 1, 0, 2, 11),
        RoundResult(1, 2, 3, 3, 1, 11),
        RoundResult(4, 2, 0, -3, 3, 11),
    ]
    # How far each got comes first: 3 has more points than 4 but went out earlier.
    lines = rank_standings(entries, results, tables, knockout=True)
    assert [line.entrant for line in lines] == [1, 2, 4, 3]
