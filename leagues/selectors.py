"""Reads of a club's nights: its tournaments, its leagues, and a league with its nights and
standings. A night's points are its tournament's standings (tournaments.selectors), the one
source of a tournament's points."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.db.models import Count, QuerySet

from accounts.models import HOUSE_BOT_PREFIX
from clubs.models import Club
from clubs.selectors import member_ids
from core.errors import NotFound
from games.selectors import iso
from leagues.models import League, Night
from leagues.table import league_standings
from ratings import selectors as rating_selectors
from tournaments import selectors as tournament_selectors
from tournaments.models import Tournament


def club_tournaments(found: Club) -> QuerySet[Tournament]:
    """The club's tournaments, newest first."""
    return (
        Tournament.objects.filter(club=found)
        .select_related("created_by", "club")
        .annotate(entrant_count=Count("entrants"))
        .order_by("-created_at", "-pk")
    )


def tournaments_shown(rows: list[Tournament]) -> list[dict[str, Any]]:
    return [tournament_selectors.tournament_summary(row) for row in rows]


def club_leaderboard(found: Club, *, pool: str | None, which: str) -> list[dict[str, Any]]:
    """The club's members in the site's leaderboard of ``pool`` (list ``which``), ranked
    among themselves: the ratings app's leaderboard, read for the members only."""
    return rating_selectors.members_leaderboard(pool, which, member_ids(found))


def leagues_of(found: Club) -> QuerySet[League]:
    return found.leagues.all()


def league(found: Club, league_id: int) -> League:
    row = found.leagues.filter(pk=league_id).first()
    if row is None:
        raise NotFound("not_found", f"No league {league_id} in '{found.slug}'.")
    return row


def league_summary(row: League) -> dict[str, Any]:
    return {
        "id": row.pk,
        "club": row.club.slug,
        "name": row.name,
        "scoring": row.scoring,
        "best": row.best,
        "created_at": iso(row.created_at),
    }


def leagues_shown(rows: list[League]) -> list[dict[str, Any]]:
    return [league_summary(row) for row in rows]


def night_points(tournament: Tournament) -> dict[str, float]:
    """Each player's points in a night that has begun (house bots left out); none before."""
    if tournament.status == Tournament.Status.REGISTERING:
        return {}
    return {
        row["username"]: row["points"]
        for row in tournament_selectors.standings_data(tournament)
        if not row["username"].startswith(HOUSE_BOT_PREFIX)
    }


def league_detail(row: League) -> dict[str, Any]:
    """The league, its nights in the order they were added, and its standings."""
    nights = list(row.nights.select_related("tournament"))
    points = [night_points(night.tournament) for night in nights]
    standings = league_standings(points, scoring=row.scoring, best=row.best)
    return {
        **league_summary(row),
        "nights": [_night_data(night) for night in nights],
        "standings": [asdict(s) for s in standings],
    }


def _night_data(night: Night) -> dict[str, Any]:
    return {
        "tournament": night.tournament_id,
        "name": night.tournament.name,
        "status": night.tournament.status,
        "added_at": iso(night.added_at),
    }
