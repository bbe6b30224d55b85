"""Changes of a club's leagues: creating one, adding a tournament of the club as a night."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.models import Player
from clubs.selectors import club, require_admin
from core.errors import Conflict, Invalid, NotFound
from leagues.models import League, Night
from tournaments.models import Tournament


def create_league(
    actor: Player, *, slug: str, name: str, scoring: str, best: int | None = None
) -> League:
    """A club admin's new league: ``sum`` of every night, or ``best`` (each player's best
    ``best`` nights; 400 without it, or with it for ``sum``)."""
    found = club(slug)
    require_admin(found, actor)
    if scoring == League.Scoring.BEST and best is None:
        message = "Scoring 'best' needs best: how many nights count."
        raise Invalid("invalid", message, fields={"best": [message]})
    if scoring == League.Scoring.SUM and best is not None:
        message = "best is for scoring 'best' only."
        raise Invalid("invalid", message, fields={"best": [message]})
    return League.objects.create(
        club=found, name=name, scoring=scoring, best=best, created_by=actor
    )


def add_night(actor: Player, *, slug: str, league_id: int, tournament_id: int) -> Night:
    """A club admin counts one of the club's tournaments in the league (409
    ``not_a_club_tournament`` for another's, ``already_a_night`` twice)."""
    found = club(slug)
    require_admin(found, actor)
    row = found.leagues.filter(pk=league_id).first()
    if row is None:
        raise NotFound("not_found", f"No league {league_id} in '{slug}'.")
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound("not_found", f"No tournament {tournament_id}.")
    if tournament.club_id != found.pk:
        raise Conflict("not_a_club_tournament", f"Tournament {tournament_id} is not the club's.")
    try:
        with transaction.atomic():
            return Night.objects.create(league=row, tournament=tournament)
    except IntegrityError as error:
        raise Conflict(
            "already_a_night", f"Tournament {tournament_id} is already a night of the league."
        ) from error
