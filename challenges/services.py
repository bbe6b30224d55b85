"""Challenges: create one (or a rematch), answer it, cancel it, expire it.

Every change of a challenge locks its row first (``_locked``): the answers of its invitees
may come at the same moment, and the last acceptance must start exactly one game. Stream
lines are written in the change's transaction and sent when it commits
(``realtime.delivery.send``). A refusal found after a write that must stay (a challenge
found past its time is marked expired, and its lines sent) is raised once the transaction
has committed. Every change also wakes the person channel of each person it involves,
whose challenges page and notifications follow it (``challenges.live``, ``notifications``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.selectors import active_player
from accounts.services import house_bot, refuse_guest
from challenges import selectors
from challenges.models import Challenge, ChallengeSeat
from core.errors import Conflict, DomainError, Invalid, NotAllowed, NotFound
from games.models import Game, GamePlayer
from games.tables import duplicate_source, parse_rules, start_seated_game
from realtime import delivery

#: How long a challenge waits for its answers unless the challenger says otherwise.
DEFAULT_EXPIRES_IN = 300
MAX_EXPIRES_IN = 86400
#: Pending challenges one player may have sent at once.
MAX_PENDING_SENT = 20
DEFAULT_RULES = "classic"
DEFAULT_MOVE_SECONDS = 60
#: Challenges expired by one sweep at most (the next sweep takes the rest).
EXPIRY_BATCH = 500

Status = Challenge.Status
Answer = ChallengeSeat.Answer


def create_challenge(
    challenger: Player,
    *,
    to: Sequence[str],
    rules: object = None,
    rated: bool | None = None,
    move_seconds: int | None = None,
    expires_in: int | None = None,
    duplicate_of: int | None = None,
) -> Challenge:
    """Invite the players named in ``to`` (people, bot accounts; ``house:...`` bots fill a
    seat without answering) to a game with the challenger: the challenger sits at seat 0,
    ``to`` after it in order. ``duplicate_of``: a finished game whose deals the game replays,
    under its rules (``games.tables.duplicate_source``)."""
    original = None
    if duplicate_of is not None:
        original, rules = duplicate_source(duplicate_of, rules=rules)
    parsed = parse_rules(DEFAULT_RULES if rules is None else rules)
    needed = parsed.players - 1
    if len(to) != needed:
        raise Invalid(
            "invalid",
            f"These rules seat {parsed.players} players: name {needed} in 'to'.",
            fields={"to": [f"{needed} usernames (a house bot may fill a seat)"]},
        )
    players = [_invitee(challenger, name) for name in to]
    people = [p.username for p in players if not p.is_house_bot]
    if len(set(people)) != len(people):
        raise Invalid(
            "duplicate_player",
            "A player can take one seat only.",
            fields={"to": ["each player once (a house bot may fill several seats)"]},
        )
    return _open(
        challenger,
        players=[challenger, *players],
        rules=parsed.to_dict(),
        rated=True if rated is None else rated,
        move_seconds=DEFAULT_MOVE_SECONDS if move_seconds is None else move_seconds,
        expires_in=expires_in,
        rematch_of=None,
        duplicate_of=original,
    )


def _invitee(challenger: Player, username: str) -> Player:
    if username.startswith(HOUSE_BOT_PREFIX):
        try:
            return house_bot(username)
        except Invalid as error:
            raise Invalid(
                error.code, error.message, **error.details, fields={"to": [error.message]}
            ) from error
    if username == challenger.username:
        raise Invalid(
            "cannot_challenge_yourself",
            "You cannot challenge yourself.",
            fields={"to": ["the others' usernames, not yours"]},
        )
    return active_player(username)


def create_rematch(challenger: Player, *, game_id: int, expires_in: int | None = None) -> Challenge:
    """A challenge to the seats of a finished game the challenger played in: the same
    players in the same seats (a seat a house bot took over goes back to its player; house
    bots stay), the same rules, rating and move time."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound("not_found", "No such game.")
    seats = list(GamePlayer.objects.filter(game=game).select_related("player").order_by("seat"))
    if not any(s.player_id == challenger.pk for s in seats):
        raise NotAllowed("not_seated", "Only a player of the game asks for a rematch.")
    if game.status != Game.Status.FINISHED:
        raise Conflict("game_in_progress", "The game is not over yet.")
    players = []
    for seat in seats:
        player = seat.player
        if not player.is_house_bot and player.pk != challenger.pk:
            player = active_player(player.username)  # 404 for an account closed since
        players.append(player)
    return _open(
        challenger,
        players=players,
        rules=game.rules,
        rated=game.rated,
        move_seconds=game.move_seconds,
        expires_in=expires_in,
        rematch_of=game,
    )


def _open(
    challenger: Player,
    *,
    players: Sequence[Player],
    rules: object,
    rated: bool,
    move_seconds: int,
    expires_in: int | None,
    rematch_of: Game | None,
    duplicate_of: Game | None = None,
) -> Challenge:
    """The challenge of ``players`` (by seat; the challenger among them), its ``challenge``
    lines sent to those who must answer. With nobody to answer (house bots only), the game
    starts at once."""
    refuse_guest(challenger, doing="challenge players")
    for player in players:
        if player.is_guest:
            raise NotAllowed(
                "guests_may_not", f"'{player.username}' is a guest and plays no challenges."
            )
    now = timezone.now()
    seconds = DEFAULT_EXPIRES_IN if expires_in is None else expires_in
    with transaction.atomic():
        sent = Challenge.objects.filter(
            challenger=challenger, status=Status.PENDING, expires_at__gt=now
        )
        if sent.count() >= MAX_PENDING_SENT:
            raise Conflict(
                "too_many_challenges",
                f"You have {MAX_PENDING_SENT} pending challenges; cancel one or wait.",
            )
        challenge = Challenge.objects.create(
            challenger=challenger,
            rules=rules,
            rated=rated,
            move_seconds=move_seconds,
            rematch_of=rematch_of,
            duplicate_of=duplicate_of,
            expires_at=now + timedelta(seconds=seconds),
        )
        challenge.seat_rows = ChallengeSeat.objects.bulk_create(
            ChallengeSeat(
                challenge=challenge,
                seat=seat,
                player=player,
                answer=Answer.PENDING if _answers(challenge, player) else Answer.ACCEPTED,
                answered_at=None if _answers(challenge, player) else now,
            )
            for seat, player in enumerate(players)
        )
        waiting = _waiting_on(challenge)
        if waiting:
            _send(waiting, "challenge", challenge)
            _changed(challenge)
        else:
            _start(challenge)
    return challenge


def _answers(challenge: Challenge, player: Player) -> bool:
    """Whether ``player`` must accept: every invited account, a bot too (its owner's
    challenge included: the bot's acceptance shows it is there to play), but not house
    bots, nor the challenger."""
    return player.pk != challenge.challenger_id and not player.is_house_bot


def _waiting_on(challenge: Challenge) -> list[int]:
    return [s.player_id for s in challenge.seat_rows if s.answer == Answer.PENDING]


def _invited(challenge: Challenge) -> list[int]:
    """The accounts asked to answer (whatever they answered)."""
    return [s.player_id for s in challenge.seat_rows if _answers(challenge, s.player)]


def _send(player_ids: Sequence[int], kind: str, challenge: Challenge, **extra: object) -> None:
    if player_ids:
        payload = {"challenge": selectors.challenge_data(challenge), **extra}
        delivery.send(player_ids, type=kind, payload=payload)


def _changed(challenge: Challenge) -> None:
    """Wake the challenges pages and notifications of everyone in ``challenge`` once the
    change commits (an answer that sends no line, too)."""
    delivery.wake_on_commit(delivery.person_channel(p) for p in _everyone(challenge))


def _locked(challenge_id: int) -> Challenge:
    # The row lock serialises every change of one challenge: two invitees accepting at the
    # same moment must not both see the other's seat still pending (no game) or both see
    # everyone accepted (two games); with the lock the second waits for the first to
    # commit and then reads its answer. Only the challenge's own row is locked.
    found = (
        Challenge.objects.select_for_update(of=("self",))
        .select_related("challenger")
        .filter(pk=challenge_id)
        .first()
    )
    if found is None:
        raise NotFound("not_found", "No such challenge.")
    return selectors.with_seats([found])[0]


def _still_pending(challenge: Challenge) -> DomainError | None:
    """None if ``challenge`` may still change; else the refusal, having marked it expired
    if its time is up (to be raised after the commit)."""
    if challenge.status == Status.PENDING and challenge.expires_at <= timezone.now():
        _close(challenge, Status.EXPIRED)
        _send(_everyone(challenge), "challenge_expired", challenge)
    if challenge.status != Status.PENDING:
        return Conflict(
            "challenge_not_pending",
            f"The challenge is {challenge.status}.",
            status=challenge.status,
            game=challenge.game_id,
        )
    return None


def _everyone(challenge: Challenge) -> list[int]:
    return [challenge.challenger_id, *_invited(challenge)]


def _close(challenge: Challenge, status: str) -> None:
    challenge.status = status
    challenge.closed_at = timezone.now()
    challenge.save(update_fields=["status", "closed_at", "game"])
    _changed(challenge)


def _seat_of(challenge: Challenge, player: Player) -> ChallengeSeat:
    seat = next((s for s in challenge.seat_rows if s.player_id == player.pk), None)
    if seat is None or not _answers(challenge, player):
        raise NotAllowed("not_invited", "This challenge is not addressed to you.")
    return seat


def accept_challenge(player: Player, *, challenge_id: int) -> Challenge:
    """An invitee accepts; the last acceptance starts the game (``game_start`` lines to every
    seat, and ``challenge_accepted`` with the challenge and its game to those who answered
    and the challenger). Accepting again while others have not is a no-op."""
    with transaction.atomic():
        challenge = _locked(challenge_id)
        seat = _seat_of(challenge, player)
        refusal = _still_pending(challenge)
        if refusal is None and seat.answer == Answer.PENDING:
            seat.answer = Answer.ACCEPTED
            seat.answered_at = timezone.now()
            seat.save(update_fields=["answer", "answered_at"])
            if _waiting_on(challenge):
                _changed(challenge)
            else:
                _start(challenge)
    if refusal is not None:
        raise refusal
    return challenge


def _start(challenge: Challenge) -> None:
    """Deal the challenge's game, inside its transaction."""
    challenge.game = start_seated_game(
        challenge.challenger,
        rules=challenge.rules,
        rated=challenge.rated,
        move_seconds=challenge.move_seconds,
        players=[s.player for s in challenge.seat_rows],
        duplicate_of=challenge.duplicate_of_id,
    )
    _close(challenge, Status.ACCEPTED)
    _send(_everyone(challenge), "challenge_accepted", challenge)


def decline_challenge(player: Player, *, challenge_id: int) -> Challenge:
    """An invitee declines (even after accepting, while others have not): the challenge
    ends; ``challenge_declined`` goes to the challenger and the other invitees."""
    with transaction.atomic():
        challenge = _locked(challenge_id)
        seat = _seat_of(challenge, player)
        refusal = _still_pending(challenge)
        if refusal is None:
            seat.answer = Answer.DECLINED
            seat.answered_at = timezone.now()
            seat.save(update_fields=["answer", "answered_at"])
            _close(challenge, Status.DECLINED)
            others = [p for p in _everyone(challenge) if p != player.pk]
            _send(others, "challenge_declined", challenge, by=player.username)
    if refusal is not None:
        raise refusal
    return challenge


def cancel_challenge(player: Player, *, challenge_id: int) -> Challenge:
    """The challenger withdraws a pending challenge; ``challenge_canceled`` goes to the
    invitees."""
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenger_id != player.pk:
            raise NotAllowed("not_challenger", "Only the challenger cancels a challenge.")
        refusal = _still_pending(challenge)
        if refusal is None:
            _close(challenge, Status.CANCELED)
            _send(_invited(challenge), "challenge_canceled", challenge)
    if refusal is not None:
        raise refusal
    return challenge


def expire_due_challenges() -> int:
    """Mark expired the pending challenges past their time (``challenge_expired`` to everyone
    in each); returns how many. A challenge whose row is locked (being answered) is left to
    that answer, which sees the time is up itself, or to the next sweep."""
    now = timezone.now()
    due = Challenge.objects.filter(status=Status.PENDING, expires_at__lte=now)
    expired = 0
    for challenge_id in list(due.values_list("pk", flat=True)[:EXPIRY_BATCH]):
        with transaction.atomic():
            found = (
                Challenge.objects.select_for_update(of=("self",), skip_locked=True)
                .select_related("challenger")
                .filter(pk=challenge_id, status=Status.PENDING)
                .first()
            )
            if found is None:
                continue
            challenge = selectors.with_seats([found])[0]
            if _still_pending(challenge) is not None:
                expired += 1
    return expired
