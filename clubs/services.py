"""Changes of clubs: creating and configuring one, joining in its three ways, requests and
invitations and their answers, leaving, roles and removals.

Every change of a club's members runs in a transaction holding its :class:`Club` row lock,
so two answers to the same request, or a leave and a role change, follow one another.

A pending invitation waits on the invited person (a bot's owner), and a pending request on
the club's owner and admins (the notification bell, ``notifications.selectors``): each change
that adds or removes one, or makes someone an admin or no longer one, wakes those people's
notifications once it commits (:func:`_wake`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import Player
from accounts.services import owned_bot
from clubs.models import Club, ClubInvitation, JoinRequest, Membership
from clubs.selectors import ADMIN_ROLES, invitation_data, request_data, require_admin
from core.errors import Conflict, Invalid, NotAllowed, NotFound
from realtime import delivery

#: What an admin may change (``PATCH /clubs/{slug}``).
SETTINGS = ("name", "description", "joining")
#: The slug of a club whose name has no letter or digit to make one of.
FALLBACK_SLUG = "club"


def _locked(slug: str) -> Club:
    found = Club.objects.select_for_update().filter(slug=slug).first()
    if found is None:
        raise NotFound("not_found", f"No club '{slug}'.")
    return found


def _free_slug(name: str) -> str:
    """A slug made from ``name``, numbered (``-2``, ``-3``...) past those already taken."""
    base = slugify(name)[:40].strip("-") or FALLBACK_SLUG
    candidate, number = base, 1
    while Club.objects.filter(slug=candidate).exists():
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def create_club(
    creator: Player,
    *,
    name: str,
    joining: str,
    slug: str | None = None,
    description: str = "",
) -> Club:
    """A new club owned by ``creator``; its slug is ``slug`` (409 ``slug_taken`` if another
    club has it) or one made from the name."""
    if creator.is_bot:
        raise NotAllowed("bots_cannot_own_clubs", "A bot account cannot create a club.")
    try:
        with transaction.atomic():
            found = Club.objects.create(
                slug=slug or _free_slug(name), name=name, description=description, joining=joining
            )
            Membership.objects.create(club=found, player=creator, role=Membership.Role.OWNER)
    except IntegrityError as error:
        taken = slug or "that"
        raise Conflict("slug_taken", f"The slug '{taken}' is taken.", slug=slug) from error
    return found


def update_club(actor: Player, *, slug: str, changes: Mapping[str, Any]) -> Club:
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        for key in SETTINGS:
            if key in changes:
                setattr(found, key, changes[key])
        found.save()
    return found


def _account(player: Player, username: str | None) -> Player:
    """The account an action is about: the caller, or a bot account the caller owns."""
    if username is None or username == player.username:
        return player
    return owned_bot(player, username=username)


def _recipient(player: Player) -> int:
    """Who answers for an account: the person, or a bot account's owner."""
    return player.owner_id if player.is_bot and player.owner_id else player.pk


def _admin_ids(found: Club) -> list[int]:
    return list(found.memberships.filter(role__in=ADMIN_ROLES).values_list("player_id", flat=True))


def _wake(player_ids: list[int]) -> None:
    """What waits on these people changed: their notifications look again once it commits."""
    delivery.wake_on_commit(delivery.person_channel(p) for p in player_ids)


def _add_member(found: Club, player: Player) -> Membership:
    """The player as a plain member; a request of theirs still pending is settled by it."""
    if found.memberships.filter(player=player).exists():
        raise Conflict("already_member", f"'{player.username}' is already a member.")
    settled = found.requests.filter(player=player, status=JoinRequest.Status.PENDING).update(
        status=JoinRequest.Status.APPROVED, answered_at=timezone.now()
    )
    if settled:
        _wake(_admin_ids(found))  # the request no longer waits on them
    return Membership.objects.create(club=found, player=player, role=Membership.Role.MEMBER)


def join(player: Player, *, slug: str, username: str | None = None) -> Membership | JoinRequest:
    """The caller (or its bot account ``username``) joins: at once in an open club; by a
    pending request in a club that takes requests (its admins get a ``club_request`` line);
    in a club by invitation only if invited (the invitation is accepted), else 403
    ``invitation_required``."""
    with transaction.atomic():
        found = _locked(slug)
        joining = _account(player, username)
        if found.memberships.filter(player=joining).exists():
            raise Conflict("already_member", f"'{joining.username}' is already a member.")
        invitation = found.invitations.filter(
            player=joining, status=ClubInvitation.Status.PENDING
        ).first()
        if invitation is not None:
            _answer(invitation, ClubInvitation.Status.ACCEPTED)
            _wake([_recipient(joining)])
            return _add_member(found, joining)
        if found.joining == Club.Joining.OPEN:
            return _add_member(found, joining)
        if found.joining == Club.Joining.INVITE:
            raise NotAllowed(
                "invitation_required", f"'{found.slug}' takes members by invitation only."
            )
        if found.requests.filter(player=joining, status=JoinRequest.Status.PENDING).exists():
            raise Conflict("already_requested", f"'{joining.username}' has already asked to join.")
        request = JoinRequest.objects.create(club=found, player=joining)
        delivery.send(_admin_ids(found), type="club_request", payload=request_data(request))
        _wake(_admin_ids(found))
        return request


def _answer(row: ClubInvitation | JoinRequest, status: str) -> None:
    row.status = status
    row.answered_at = timezone.now()
    row.save(update_fields=["status", "answered_at"])


def _pending_request(found: Club, username: str) -> JoinRequest:
    request = found.requests.filter(
        player__username=username, status=JoinRequest.Status.PENDING
    ).first()
    if request is None:
        raise NotFound("not_found", f"No pending request from '{username}'.")
    return request


def approve_request(actor: Player, *, slug: str, username: str) -> Membership:
    """An admin lets the requester in; the requester (a bot's owner) gets a
    ``club_request_answered`` line."""
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        request = _pending_request(found, username)
        _answer(request, JoinRequest.Status.APPROVED)
        request.answered_by = actor
        request.save(update_fields=["answered_by"])
        membership = _add_member(found, request.player)
        _wake(_admin_ids(found))
        delivery.send(
            [_recipient(request.player)],
            type="club_request_answered",
            payload=request_data(request),
        )
        return membership


def decline_request(actor: Player, *, slug: str, username: str) -> None:
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        request = _pending_request(found, username)
        _answer(request, JoinRequest.Status.DECLINED)
        request.answered_by = actor
        request.save(update_fields=["answered_by"])
        _wake(_admin_ids(found))
        delivery.send(
            [_recipient(request.player)],
            type="club_request_answered",
            payload=request_data(request),
        )


def invite(actor: Player, *, slug: str, username: str) -> ClubInvitation:
    """An admin invites a person or a bot account; that person (the bot's owner) gets a
    ``club_invite`` line and answers with ``join`` or ``invitations/decline``."""
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        player = Player.objects.filter(username=username, is_active=True).first()
        if player is None or player.is_house_bot:
            raise NotFound("not_found", f"No player '{username}'.")
        if found.memberships.filter(player=player).exists():
            raise Conflict("already_member", f"'{username}' is already a member.")
        if found.invitations.filter(player=player, status=ClubInvitation.Status.PENDING).exists():
            raise Conflict("already_invited", f"'{username}' is already invited.")
        invitation = ClubInvitation.objects.create(club=found, player=player, invited_by=actor)
        delivery.send([_recipient(player)], type="club_invite", payload=invitation_data(invitation))
        _wake([_recipient(player)])
        return invitation


def decline_invitation(player: Player, *, slug: str, username: str | None = None) -> None:
    """The caller declines its invitation, or that of a bot account it owns."""
    with transaction.atomic():
        found = _locked(slug)
        invited = _account(player, username)
        invitation = found.invitations.filter(
            player=invited, status=ClubInvitation.Status.PENDING
        ).first()
        if invitation is None:
            raise Conflict("not_invited", f"No pending invitation for '{invited.username}'.")
        _answer(invitation, ClubInvitation.Status.DECLINED)
        _wake([_recipient(invited)])


def _membership(found: Club, username: str) -> Membership:
    membership = found.memberships.filter(player__username=username).select_related("player")
    row = membership.first()
    if row is None:
        raise NotFound("not_found", f"'{username}' is not a member of '{found.slug}'.")
    return row


def leave(player: Player, *, slug: str, username: str | None = None) -> None:
    """The caller (or its bot account) leaves; the owner must pass ownership first."""
    with transaction.atomic():
        found = _locked(slug)
        leaving = _account(player, username)
        membership = found.memberships.filter(player=leaving).first()
        if membership is None:
            raise NotAllowed("not_a_member", f"'{leaving.username}' is not a member.")
        if membership.role == Membership.Role.OWNER:
            raise Conflict(
                "owner_cannot_leave", "The owner cannot leave before passing ownership on."
            )
        if membership.role == Membership.Role.ADMIN:
            _wake([leaving.pk])  # the club's requests no longer wait on them
        membership.delete()


def set_role(actor: Player, *, slug: str, username: str, role: str) -> Membership:
    """The owner makes a member an admin or a plain member again, or passes ownership: the
    new owner's role is ``owner`` and the old owner becomes an admin."""
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        owner = found.memberships.get(role=Membership.Role.OWNER)
        if owner.player_id != actor.pk:
            raise NotAllowed("not_club_owner", "Only the club's owner may change roles.")
        target = _membership(found, username)
        if target.pk == owner.pk:
            if role != Membership.Role.OWNER:
                raise Conflict(
                    "owner_cannot_step_down", "Pass ownership to another member instead."
                )
            return target
        if target.player.is_bot and role != Membership.Role.MEMBER:
            raise Invalid(
                "bots_cannot_administer",
                "A bot account can only be a member.",
                fields={"role": ["A bot account can only be a member."]},
            )
        if role == Membership.Role.OWNER:
            owner.role = Membership.Role.ADMIN
            owner.save(update_fields=["role"])
        if (target.role in ADMIN_ROLES) != (role in ADMIN_ROLES):
            _wake([target.player_id])  # the club's requests now wait on them, or no longer
        target.role = role
        target.save(update_fields=["role"])
        return target


def remove_member(actor: Player, *, slug: str, username: str) -> None:
    """An admin removes a member; only the owner removes an admin, and nobody the owner."""
    with transaction.atomic():
        found = _locked(slug)
        require_admin(found, actor)
        target = _membership(found, username)
        if target.role == Membership.Role.OWNER:
            raise Conflict("owner_cannot_leave", "The owner cannot be removed.")
        if (
            target.role == Membership.Role.ADMIN
            and not found.memberships.filter(player=actor, role=Membership.Role.OWNER).exists()
        ):
            raise NotAllowed("not_club_owner", "Only the club's owner may remove an admin.")
        if target.role == Membership.Role.ADMIN:
            _wake([target.player_id])  # the club's requests no longer wait on them
        target.delete()
