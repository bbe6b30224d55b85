"""A league's standings from its nights' points: pure Python, no Django.

Each night gives the points each player scored in it (the tournament's standings); a player
absent from a night neither scores nor plays it. ``sum`` adds every night, ``best`` each
player's best ``best`` nights. Players are ranked by points, best first; equal points share
a rank (1, 1, 3), and are listed by username within it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SCORINGS = ("sum", "best")


@dataclass(frozen=True)
class Standing:
    username: str
    points: float
    nights_played: int
    rank: int


def league_standings(
    nights: Sequence[Mapping[str, float]], *, scoring: str, best: int | None = None
) -> list[Standing]:
    """The standings of a league whose nights gave these points (``{username: points}``)."""
    if scoring not in SCORINGS:
        raise ValueError(f"unknown scoring {scoring!r}")
    if scoring == "best" and (best is None or best < 1):
        raise ValueError("scoring 'best' needs best >= 1")
    scored: dict[str, list[float]] = {}
    for night in nights:
        for username, night_points in night.items():
            scored.setdefault(username, []).append(night_points)
    totals: dict[str, float] = {}
    for username, points in scored.items():
        counted = sorted(points, reverse=True)[:best] if scoring == "best" else points
        # Rounded: sums of fractional points must tie when they are equal.
        totals[username] = round(sum(counted), 6)
    order = sorted(totals, key=lambda name: (-totals[name], name))
    standings: list[Standing] = []
    for position, username in enumerate(order, start=1):
        tied = standings and standings[-1].points == totals[username]
        rank = standings[-1].rank if tied else position
        standings.append(Standing(username, totals[username], len(scored[username]), rank))
    return standings
