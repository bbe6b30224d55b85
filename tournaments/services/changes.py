"""How every change of a tournament is made: under its row lock, checked, audited, and
announced to its watchers once it commits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import F

from accounts.models import Player
from core.errors import Conflict, NotAllowed, NotFound
from realtime import delivery
from tournaments.models import AuditEntry, Tournament
from tournaments.selectors import is_organiser


def locked(tournament_id: int) -> Tournament:
    """The tournament, its row locked: the one place where its changes are serialised."""
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise NotFound("not_found", "No such tournament.")
    return found


def require_organiser(tournament: Tournament, player: Player) -> None:
    if not is_organiser(tournament, player):
        raise NotAllowed("not_organiser", "Only the tournament's organisers may do this.")


def require_registering(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.REGISTERING:
        raise Conflict("already_started", "The tournament has already started.")


def changed(tournament: Tournament) -> None:
    """``tournament`` (locked) changed: its version moves on in the same transaction, and
    the pages and clients following it (tournaments.live) are woken once it commits."""
    tournament.version += 1
    tournament.save(update_fields=["version"])
    delivery.wake_on_commit([delivery.tournament_channel(tournament.pk)])


def wake_people(player_ids: Iterable[int]) -> None:
    """What waits on these people changed (an invitation, a round seating them): their
    notifications are woken once the change commits."""
    delivery.wake_on_commit([delivery.person_channel(p) for p in player_ids])


def audit(tournament: Tournament, actor: Player | None, action: str, **details: Any) -> None:
    AuditEntry.objects.create(tournament=tournament, actor=actor, action=action, details=details)


def mark_changed(*, tournament_ids: Sequence[int]) -> None:
    """These tournaments changed outside their services (a game of their rounds ended, and
    their pages show the table's game over; an edit in the admin): their versions move on
    and their watchers are woken once the change commits. One statement, for a game's end
    called after its commit: it never holds the game's row while it waits for a
    tournament's (an organiser's adjudication takes them the other way round)."""
    if not tournament_ids:
        return
    Tournament.objects.filter(pk__in=list(tournament_ids)).update(version=F("version") + 1)
    delivery.wake_on_commit([delivery.tournament_channel(t) for t in tournament_ids])
