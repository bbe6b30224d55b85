"""Reads of clubs: a club, the list, members with their ratings, pending requests, and the
membership checks other apps ask (tournaments' entries).

Ratings belong to the ratings app, above this one: members' display ratings come through
the :data:`MEMBER_RATINGS` extension point, connected by ``config/wiring.py`` (the club's
leaderboard is the leagues app's, above both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import Count, QuerySet

from accounts.models import Player
from clubs.models import Club, ClubInvitation, JoinRequest, Membership
from core.errors import Invalid, NotAllowed, NotFound
from games.selectors import iso

#: Display ratings by pool of these players: ``{player_id: {pool: display_rating}}``.
MEMBER_RATINGS: list[Callable[[Sequence[int]], dict[int, dict[str, int]]]] = []
#: Roles in the order members are listed.
ROLE_ORDER = {Membership.Role.OWNER: 0, Membership.Role.ADMIN: 1, Membership.Role.MEMBER: 2}
ADMIN_ROLES = (Membership.Role.OWNER, Membership.Role.ADMIN)


def club(slug: str) -> Club:
    found = Club.objects.filter(slug=slug).first()
    if found is None:
        raise NotFound("not_found", f"No club '{slug}'.")
    return found


def clubs() -> QuerySet[Club]:
    return Club.objects.annotate(member_count=Count("memberships")).order_by("name", "pk")


def role_of(found: Club, player: Player) -> str | None:
    """The player's role in the club, None for a non-member."""
    membership = found.memberships.filter(player=player).first()
    return None if membership is None else membership.role


def invited(found: Club, player: Player) -> bool:
    """Whether the player has a pending invitation to the club."""
    pending = ClubInvitation.Status.PENDING
    return found.invitations.filter(player=player, status=pending).exists()


def requested(found: Club, player: Player) -> bool:
    """Whether the player has a pending request to join the club."""
    return found.requests.filter(player=player, status=JoinRequest.Status.PENDING).exists()


def is_member(club_id: int, player_id: int) -> bool:
    return Membership.objects.filter(club_id=club_id, player_id=player_id).exists()


def is_admin(found: Club, player: Player) -> bool:
    return role_of(found, player) in ADMIN_ROLES


def require_admin(found: Club, player: Player) -> None:
    """403 ``not_club_admin`` unless the player is the club's owner or one of its admins."""
    if not is_admin(found, player):
        raise NotAllowed("not_club_admin", f"Only an admin of '{found.slug}' may do this.")


def clubs_run_by(player: Player) -> QuerySet[Club]:
    """The clubs the player owns or is an admin of, by name (those a tournament may name)."""
    return Club.objects.filter(
        memberships__player=player, memberships__role__in=ADMIN_ROLES
    ).order_by("name", "pk")


def club_run_by(slug: str, player: Player) -> Club:
    """The club ``slug`` named in a request's body (400 ``unknown_club`` if there is none),
    if the player is one of its admins (403 ``not_club_admin``)."""
    found = Club.objects.filter(slug=slug).first()
    if found is None:
        message = f"No club '{slug}'."
        raise Invalid("unknown_club", message, fields={"club": [message]})
    require_admin(found, player)
    return found


def club_data(found: Club) -> dict[str, Any]:
    staff = (
        found.memberships.filter(role__in=ADMIN_ROLES)
        .select_related("player")
        .order_by("joined_at", "pk")
    )
    owner = next((m.player.username for m in staff if m.role == Membership.Role.OWNER), None)
    count = getattr(found, "member_count", None)
    return {
        "slug": found.slug,
        "name": found.name,
        "description": found.description,
        "joining": found.joining,
        "member_count": count if count is not None else found.memberships.count(),
        "owner": owner,
        "admins": [m.player.username for m in staff if m.role == Membership.Role.ADMIN],
        "created_at": iso(found.created_at),
    }


def clubs_shown(rows: list[Club]) -> list[dict[str, Any]]:
    return [club_data(row) for row in rows]


def members_of(found: Club) -> list[Membership]:
    """The club's members: the owner, the admins, then the others, each by joining time."""
    rows = list(found.memberships.select_related("player"))
    rows.sort(key=lambda m: (ROLE_ORDER[Membership.Role(m.role)], m.joined_at, m.pk))
    return rows


def member_data(membership: Membership, ratings: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "username": membership.player.username,
        "is_bot": membership.player.is_bot,
        "role": membership.role,
        "joined_at": iso(membership.joined_at),
        "ratings": ratings or {},
    }


def members_shown(rows: list[Membership]) -> list[dict[str, Any]]:
    """A page of members, with the display rating of each in every pool they are rated in."""
    ratings: dict[int, dict[str, int]] = {}
    for source in MEMBER_RATINGS:
        for player_id, by_pool in source([m.player_id for m in rows]).items():
            ratings.setdefault(player_id, {}).update(by_pool)
    return [member_data(m, ratings.get(m.player_id)) for m in rows]


def member_ids(found: Club) -> list[int]:
    return list(found.memberships.values_list("player_id", flat=True))


def pending_requests(found: Club) -> QuerySet[JoinRequest]:
    return found.requests.filter(status=JoinRequest.Status.PENDING).select_related("player")


def request_data(request: JoinRequest) -> dict[str, Any]:
    return {
        "club": request.club.slug,
        "username": request.player.username,
        "is_bot": request.player.is_bot,
        "status": request.status,
        "created_at": iso(request.created_at),
    }


def requests_shown(rows: list[JoinRequest]) -> list[dict[str, Any]]:
    return [request_data(row) for row in rows]


def invitation_data(invitation: ClubInvitation) -> dict[str, Any]:
    invited_by = invitation.invited_by
    return {
        "club": invitation.club.slug,
        "username": invitation.player.username,
        "is_bot": invitation.player.is_bot,
        "invited_by": None if invited_by is None else invited_by.username,
        "status": invitation.status,
        "created_at": iso(invitation.created_at),
    }
