"""A league's standings from its nights' points (leagues/table.py): sum and best N, players
who missed nights, and ties sharing a rank."""

from __future__ import annotations

import pytest

from leagues.table import Standing, league_standings

NIGHTS = [
    {"ann": 3.0, "bob": 1.0, "cat": 0.0},
    {"ann": 0.0, "bob": 3.0, "dan": 1.0},
    {"bob": 1.0, "cat": 3.0, "dan": 3.0},
]


def rows(standings: list[Standing]) -> list[tuple[str, float, int, int]]:
    return [(s.username, s.points, s.nights_played, s.rank) for s in standings]


def test_it_sums_every_night_a_player_played() -> None:
    assert rows(league_standings(NIGHTS, scoring="sum")) == [
        ("bob", 5.0, 3, 1),
        ("dan", 4.0, 2, 2),
        ("ann", 3.0, 2, 3),
        ("cat", 3.0, 2, 3),
    ]


def test_it_counts_each_players_best_nights_only() -> None:
    assert rows(league_standings(NIGHTS, scoring="best", best=1)) == [
        ("ann", 3.0, 2, 1),
        ("bob", 3.0, 3, 1),
        ("cat", 3.0, 2, 1),
        ("dan", 3.0, 2, 1),
    ]
    assert rows(league_standings(NIGHTS, scoring="best", best=2)) == [
        ("bob", 4.0, 3, 1),
        ("dan", 4.0, 2, 1),
        ("ann", 3.0, 2, 3),
        ("cat", 3.0, 2, 3),
    ]
    # More nights counted than a player played: all of theirs.
    assert league_standings(NIGHTS, scoring="best", best=9) == league_standings(
        NIGHTS, scoring="sum"
    )


def test_it_shares_ranks_between_equal_points_and_skips_the_ranks_they_take() -> None:
    nights = [{"a": 2.0, "b": 2.0, "c": 2.0, "d": 1.0, "e": 0.5}]

    assert [(s.username, s.rank) for s in league_standings(nights, scoring="sum")] == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("d", 4),
        ("e", 5),
    ]


def test_it_ties_sums_of_fractions_that_are_equal() -> None:
    nights = [{"a": 0.1, "b": 0.3}, {"a": 0.2}]

    assert [(s.username, s.rank) for s in league_standings(nights, scoring="sum")] == [
        ("a", 1),
        ("b", 1),
    ]


def test_it_has_no_standings_without_nights_played() -> None:
    assert league_standings([], scoring="sum") == []
    assert league_standings([{}, {}], scoring="best", best=2) == []


def test_it_refuses_a_scoring_it_does_not_know_or_best_without_a_count() -> None:
    with pytest.raises(ValueError):
        league_standings(NIGHTS, scoring="average")
    with pytest.raises(ValueError):
        league_standings(NIGHTS, scoring="best")
    with pytest.raises(ValueError):
        league_standings(NIGHTS, scoring="best", best=0)
