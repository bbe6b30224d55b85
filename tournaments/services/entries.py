"""Who plays: registration and its answers to invitations, an organiser's entries and
invitations, withdrawals and removals, and the pairs kept apart at the tables."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.services import house_bot, owned_bot, refuse_guest
from core.errors import Conflict, Invalid, NotFound
from realtime import delivery
from tournaments.models import Entrant, ForbiddenPair, Invitation, Tournament
from tournaments.selectors import answerer_id, invitation_line, ratings_of
from tournaments.services.changes import (
    audit,
    changed,
    locked,
    require_organiser,
    require_registering,
    wake_people,
)


def register(player: Player, *, tournament_id: int, username: str | None = None) -> Entrant:
    """The caller enters, or enters a bot account it owns (``username``).

    With a pending invitation for that account (an organiser's, see :func:`add_entrant`),
    this accepts it: the entry limits on kind and rating are waived, as for any organiser's
    entry. Without one, the limits hold. Anyone may enter themselves, and an owner their own
    bot, as a bot may with its own token."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_registering(tournament)
        entering = _answering_for(player, username)
        invitation = _pending_invitation(tournament, entering)
        if invitation is None:
            _check_limits(tournament, entering)
        entrant = _enter(tournament, entering, entering.username, is_house=False)
        if invitation is not None:
            _answer(invitation, Invitation.Status.ACCEPTED)
        changed(tournament)
        return entrant


def decline(player: Player, *, tournament_id: int, username: str | None = None) -> None:
    """The caller declines its invitation, or the invitation of a bot account it owns."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        entering = _answering_for(player, username)
        invitation = _pending_invitation(tournament, entering)
        if invitation is None:
            raise Conflict("not_invited", f"No pending invitation for '{entering.username}'.")
        _answer(invitation, Invitation.Status.DECLINED)
        changed(tournament)


def _answering_for(player: Player, username: str | None) -> Player:
    """The account a register or decline is about: the caller, or the caller's bot."""
    if username is None or username == player.username:
        return player
    return owned_bot(player, username=username)


def _pending_invitation(tournament: Tournament, player: Player) -> Invitation | None:
    pending = tournament.invitations.filter(player=player, status=Invitation.Status.PENDING)
    return pending.select_related("player").first()


def _answer(invitation: Invitation, status: str) -> None:
    invitation.status = status
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    # It no longer waits on whoever answers it (their notifications).
    player = invitation.player
    wake_people([answerer_id(player_id=player.pk, is_bot=player.is_bot, owner_id=player.owner_id)])


def _check_limits(tournament: Tournament, player: Player) -> None:
    if player.is_bot and not tournament.bots_allowed:
        raise Conflict("bots_not_allowed", "This tournament is for humans only.")
    if not player.is_bot and not tournament.humans_allowed:
        raise Conflict("humans_not_allowed", "This tournament is for bots only.")
    rating = ratings_of([player], tournament.rules).get(player.pk)
    low, high = tournament.min_rating, tournament.max_rating
    if (low is not None or high is not None) and (
        rating is None or (low is not None and rating < low) or (high is not None and rating > high)
    ):
        raise Conflict(
            "rating_out_of_range",
            "Your rating is outside the tournament's range.",
            rating=rating,
            min_rating=low,
            max_rating=high,
        )


def _enter(tournament: Tournament, player: Player, name: str, is_house: bool) -> Entrant:
    refuse_guest(player, doing="enter tournaments")
    if is_house:
        number = tournament.entrants.filter(player=player).count() + 1
        name = f"{name} #{number}"
    elif tournament.entrants.filter(player=player).exists():
        raise Conflict("already_registered", f"'{name}' is already entered.")
    limit = tournament.max_players
    if limit is not None and tournament.entrants.count() >= limit:
        raise Conflict("tournament_full", f"The tournament is full ({limit} players).")
    try:
        with transaction.atomic():
            return Entrant.objects.create(
                tournament=tournament, player=player, name=name, is_house=is_house
            )
    except IntegrityError as error:
        raise Conflict("already_registered", f"'{name}' is already entered.") from error


def withdraw(player: Player, *, tournament_id: int) -> None:
    """The caller leaves: before the start the entry goes; later, no more rounds are seated
    for them (the game in play is theirs to finish)."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        entrant = tournament.entrants.filter(player=player, is_house=False).first()
        if entrant is None or entrant.status == Entrant.Status.WITHDRAWN:
            raise Conflict("not_registered", "You are not entered in this tournament.")
        _drop(tournament, entrant)
        changed(tournament)


def _drop(tournament: Tournament, entrant: Entrant) -> None:
    if tournament.status == Tournament.Status.FINISHED:
        raise Conflict("tournament_finished", "The tournament is over.")
    if tournament.status == Tournament.Status.REGISTERING:
        entrant.delete()
    else:
        entrant.status = Entrant.Status.WITHDRAWN
        entrant.save(update_fields=["status"])


def enters_directly(actor: Player, *, player: Player) -> bool:
    """Whether an organiser's entry of ``player`` takes effect at once: a house bot, the
    organiser, or a bot account of the organiser's. Anyone else is invited."""
    return (
        player.is_house_bot
        or player.pk == actor.pk
        or (player.is_bot and player.owner_id == actor.pk)
    )


def add_entrant(actor: Player, *, tournament_id: int, username: str) -> Entrant | Invitation:
    """An organiser enters a house bot (``house:...``), themselves or a bot account of
    their own: the entrant. Another person, or another owner's bot, is invited instead: the
    invitation, with a ``tournament_invite`` line on the stream of that person or the bot's
    owner, who accepts with ``register``. The entry limits on kind and rating are the
    organiser's to waive (at once, or when the invitation is accepted); the size limit
    holds."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        require_registering(tournament)
        added: Entrant | Invitation
        if username.startswith(HOUSE_BOT_PREFIX):
            added = _enter(tournament, house_bot(username), username, is_house=True)
            audit(tournament, actor, "entrant_added", entrant=added.name)
        else:
            player = Player.objects.filter(username=username, is_active=True).first()
            if player is None or player.is_house_bot:
                raise NotFound("not_found", f"No player '{username}'.")
            if enters_directly(actor, player=player):
                added = _enter(tournament, player, player.username, is_house=False)
                audit(tournament, actor, "entrant_added", entrant=added.name)
            else:
                added = _invite(tournament, actor, player)
        changed(tournament)
        return added


def _invite(tournament: Tournament, actor: Player, player: Player) -> Invitation:
    if tournament.entrants.filter(player=player, is_house=False).exists():
        raise Conflict("already_registered", f"'{player.username}' is already entered.")
    if _pending_invitation(tournament, player) is not None:
        raise Conflict("already_invited", f"'{player.username}' is already invited.")
    limit = tournament.max_players
    if limit is not None and tournament.entrants.count() >= limit:
        raise Conflict("tournament_full", f"The tournament is full ({limit} players).")
    invitation = Invitation.objects.create(tournament=tournament, player=player, invited_by=actor)
    recipient = answerer_id(player_id=player.pk, is_bot=player.is_bot, owner_id=player.owner_id)
    delivery.send([recipient], type="tournament_invite", payload=invitation_line(invitation))
    wake_people([recipient])
    audit(tournament, actor, "entrant_invited", player=player.username)
    return invitation


def remove_entrant(actor: Player, *, tournament_id: int, name: str) -> None:
    """An organiser removes an entrant (``name``, as entered), or cancels the pending
    invitation of the player of that username."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        entrant = tournament.entrants.filter(name=name).first()
        if entrant is None or entrant.status == Entrant.Status.WITHDRAWN:
            invitation = (
                tournament.invitations.filter(
                    player__username=name, status=Invitation.Status.PENDING
                )
                .select_related("player")
                .first()
            )
            if invitation is None:
                raise NotFound("not_found", f"No entrant '{name}'.")
            _answer(invitation, Invitation.Status.CANCELLED)
            audit(tournament, actor, "invitation_cancelled", player=name)
        else:
            _drop(tournament, entrant)
            audit(tournament, actor, "entrant_removed", entrant=name)
        changed(tournament)


def add_forbidden_pair(
    actor: Player, *, tournament_id: int, first: str, second: str
) -> ForbiddenPair:
    """An organiser keeps two players (usernames) from being seated at the same table."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        if tournament.status == Tournament.Status.FINISHED:
            raise Conflict("tournament_finished", "The tournament is over.")
        players = []
        for username in (first, second):
            found = Player.objects.filter(username=username, is_active=True).first()
            if found is None or found.is_house_bot:
                raise NotFound("not_found", f"No player '{username}'.")
            players.append(found)
        a, b = sorted(players, key=lambda p: p.pk)
        if a.pk == b.pk:
            raise Invalid("invalid", "A forbidden pair needs two different players.")
        forbidden, created = ForbiddenPair.objects.get_or_create(
            tournament=tournament, first=a, second=b
        )
        if not created:
            raise Conflict("already_forbidden", "These two are already kept apart.")
        audit(tournament, actor, "forbidden_pair_added", players=[a.username, b.username])
        changed(tournament)
    return forbidden


def remove_forbidden_pair(actor: Player, *, tournament_id: int, pair_id: int) -> None:
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        forbidden = tournament.forbidden_pairs.select_related("first", "second").filter(pk=pair_id)
        found = forbidden.first()
        if found is None:
            raise NotFound("not_found", "No such forbidden pair.")
        found.delete()
        audit(
            tournament,
            actor,
            "forbidden_pair_removed",
            players=[found.first.username, found.second.username],
        )
        changed(tournament)
