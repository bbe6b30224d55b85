"""Play: every change of a game once dealt (a player's action, the server's on a seat's
behalf, timeouts, resignation, an organiser's ruling), the deadlines the move timer keeps,
and the memory of answers to requests sent with an idempotency key. Views and tasks call
one of these each.

A change of a game reads the game, lets the engine decide, and writes and announces the
result through ``games.changes`` (which says how concurrent changes are kept apart): a
change that another one overtook writes nothing, and is decided again on a fresh read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Collection, Mapping
from datetime import timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.models import Player
from accounts.services import house_bot
from core.errors import Conflict, DomainError, NotAllowed, NotFound
from core.rows import load_one
from games import changes, game_cache
from games.engine import Game as Engine
from games.engine import IllegalAction
from games.engine.events import Event
from games.errors import IllegalMove, TurnGone
from games.models import Game, GamePlayer, IdempotencyRecord
from games.selectors import deals_embargoed, game_view

IDEMPOTENCY_TTL = timedelta(hours=24)
#: Three timeouts in one game hand the seat to this house bot.
TIMEOUTS_BEFORE_HANDOVER = 3
HANDOVER_BOT = "house:heuristic"
#: Tries of a change that other changes of the game keep overtaking. Each failed try means
#: another change committed, so the game moved on; at most a few seats act at once.
WRITE_ATTEMPTS = 20


def request_fingerprint(*, path: str, body: Mapping[str, Any]) -> str:
    """What tells a retry of a request from another request with the same idempotency key."""
    return hashlib.sha256(
        (path + "\n" + json.dumps(body, sort_keys=True, default=str)).encode()
    ).hexdigest()


class GameMoved(TurnGone):
    """Other changes of the game kept committing between a change's read and its write,
    :data:`WRITE_ATTEMPTS` times: the caller reads the game and tries again."""

    def __init__(self) -> None:
        super().__init__(
            "version_conflict",
            "The game kept changing while your action was applied; read it and try again.",
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Acted:
    """What :func:`submit_action` did: the player's view of the game after the action, and
    whether it is the view kept for an earlier request with the same idempotency key (then
    nothing was done again)."""

    view: dict[str, Any]
    replayed: bool = False


def submit_action(
    player: Player,
    *,
    game_id: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> Acted:
    """A player's action → the player's new view of the game.

    Load, decide, write, announce. The first try may start from the row this process wrote
    last (game_cache), never trusted for an answer: a refusal decided on it is decided
    again on a fresh read, and a stale row fails the version-checked write. With an
    idempotency key, the view is stored with the change, and a retry of the same request
    (the same ``fingerprint``) gets it back, replayed, without acting again.
    """
    kept = game_cache.written_here.get(game_id)
    for _ in range(WRITE_ATTEMPTS):
        game = kept if kept is not None else _read_game(game_id)
        # A plain move is one statement (its write), in autocommit; an idempotent one also
        # stores its view, so the two go in one transaction.
        with transaction.atomic() if idempotency_key else contextlib.nullcontext():
            if idempotency_key:
                earlier = _earlier_view(player, idempotency_key, fingerprint)
                if earlier is not None:
                    return Acted(earlier, replayed=True)
            decided = _decide(game, player, action, expected_version)
            if isinstance(decided, DomainError):
                if kept is None:
                    raise decided
            else:
                seat, engine, events = decided
                change = changes.compose(game, engine, events)
                if changes.write(change):
                    # The last move of a game: its record, unless its deals still play on.
                    over = game.status == Game.Status.FINISHED
                    view = game_view(game, engine, seat, embargoed=over and deals_embargoed(game))
                    if idempotency_key:
                        _remember_view(player, idempotency_key, fingerprint, view)
                    break
        # Overtaken, or refused on a kept row that may be stale: decide again on a fresh read.
        if kept is not None:
            game_cache.written_here.drop([game_id])
            kept = None
    else:
        raise GameMoved()
    changes.announce_on_commit(change)
    return Acted(view)


def _read_game(game_id: int) -> Game:
    # Without a lock: the write is version-checked (games.changes). Plain SQL (core/rows.py):
    # the ORM's query cost more than the rest of the lookup.
    game = load_one(Game, f"FROM {Game._meta.db_table} WHERE id = %s", [game_id])
    if game is None:
        raise NotFound("not_found", "No such game.")
    return game


def _decide(
    game: Game, player: Player, action: Mapping[str, Any], expected_version: int | None
) -> tuple[int, Engine, list[Event]] | DomainError:
    """The player's action applied to ``game`` by the engine: (the seat that acted, the
    engine after it, its events), or the refusal."""
    seats = game.seats_played_by(player.pk)
    own_seat = game.seat_of(player.pk)
    if not seats and own_seat is None:
        return NotAllowed("not_seated", "You do not play in this game.")
    if game.status == Game.Status.FINISHED:
        return TurnGone("game_finished", "The game is over.")
    if expected_version is not None and expected_version != game.version:
        return TurnGone(
            "version_conflict",
            f"The game is at version {game.version}, not {expected_version}.",
            version=game.version,
        )
    if not seats:  # their seat was handed to a house bot for the rest of the game
        bot = game.played_by(own_seat)
        return TurnGone("not_your_turn", f"Your seat is played by {bot} now.", played_by=bot)
    engine = game.engine()
    acting = [s for s in seats if s in engine.to_act()]
    if not acting:
        return TurnGone("not_your_turn", "It is not your turn.", to_act=engine.to_act())
    try:
        events = engine.apply_dict(acting[0], dict(action))
    except IllegalAction as error:
        return IllegalMove(str(error), reason=error.code)
    return acting[0], engine, events


def _earlier_view(player: Player, key: str, fingerprint: str) -> dict[str, Any] | None:
    """The view stored for this key, if its request was this one (a Conflict if another)."""
    earlier = IdempotencyRecord.objects.filter(player=player, key=key).first()
    if earlier is None:
        return None
    if earlier.created_at <= timezone.now() - IDEMPOTENCY_TTL:
        earlier.delete()
        return None
    if earlier.fingerprint != fingerprint:
        raise Conflict(
            "idempotency_key_reused", "This Idempotency-Key was used for a different request."
        )
    view: dict[str, Any] = json.loads(earlier.body)
    return view


def _remember_view(player: Player, key: str, fingerprint: str, view: dict[str, Any]) -> None:
    body = json.dumps(view, cls=DjangoJSONEncoder)
    IdempotencyRecord.objects.create(player=player, key=key, fingerprint=fingerprint, body=body)


def act_for_seat(
    game_id: int,
    *,
    seat: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    announce_house_turns: bool = True,
) -> Game | None:
    """Apply an action for ``seat`` on behalf of the server (bots, timeouts).

    Returns the game after it, or None (having changed nothing) when the game has moved on
    from ``expected_version`` or is over; raises :class:`IllegalMove` for an illegal
    action. ``announce_house_turns=False``: the caller plays the house bots' turns that
    start itself (``changes.announce_on_commit``).
    """
    for _ in range(WRITE_ATTEMPTS):
        game = _read_game(game_id)
        if game.status == Game.Status.FINISHED:
            return None
        if expected_version is not None and expected_version != game.version:
            return None
        engine = game.engine()
        try:
            events = engine.apply_dict(seat, dict(action))
        except IllegalAction as error:
            raise IllegalMove(str(error), reason=error.code) from error
        change = changes.compose(game, engine, events)
        if changes.write(change):
            changes.announce_on_commit(change, house_turns=announce_house_turns)
            return game
    raise GameMoved()


def expire_turns(game_id: int) -> bool:
    """Play the timeout fallback for every seat the game waits on past its deadline.

    Under the row lock, a seat that acted in time has moved the deadline on, and nothing
    happens; a move read before this change commits fails its version check and is decided
    again on the new state. A game whose row is locked (a change is writing it) is skipped
    rather than waited for: if it is still overdue, the move timer's next look finds it.
    Each late seat gets a public ``timeout`` event; its third timeout hands the seat to
    ``house:heuristic`` for the rest of the game. Returns whether the game changed.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update(skip_locked=True).filter(pk=game_id).first()
        if game is None or game.status != Game.Status.PLAYING:
            return False
        if game.deadline is None or game.deadline > timezone.now():
            return False
        engine = game.engine()
        seated = {gp.seat: gp for gp in game.players.select_related("player")}
        events: list[Event] = []
        handed_over = False
        for seat in engine.to_act():
            if seat not in engine.to_act():  # an earlier fallback settled this seat's step
                continue
            action = engine.fallback_action(seat)
            gp = seated[seat]
            gp.timeouts += 1
            events.append(Event("timeout", {"seat": seat, "timeouts": gp.timeouts}))
            events.extend(engine.apply(seat, action))
            changed = ["timeouts"]
            if (
                gp.timeouts >= TIMEOUTS_BEFORE_HANDOVER
                and gp.replaced_by_id is None
                and not gp.player.is_house_bot
            ):
                events.append(_hand_over(game, gp))
                changed.append("replaced_by")
                handed_over = True
            gp.save(update_fields=changed)
        change = changes.compose(
            game, engine, events, also_changed=["seats"] if handed_over else []
        )
        written = changes.write(change)  # under the row lock: no other change got in
        if written:
            changes.announce_on_commit(change)
    return written


def _hand_over(game: Game, seat: GamePlayer) -> Event:
    """Hand ``seat`` to :data:`HANDOVER_BOT` for the rest of the game (three timeouts, or a
    resignation): the caller saves ``seat.replaced_by`` and writes the game's ``seats`` with
    the event returned. From then on its player ranks last (``changes.ranks_with_absent_last``)."""
    bot = house_bot(HANDOVER_BOT)
    seat.replaced_by = bot
    game.hand_over_seat(seat.seat, bot)
    return Event("seat_handover", {"seat": seat.seat, "to": bot.username})


def resign(player: Player, *, game_id: int) -> dict[str, Any]:
    """The player gives up its seat → its view of the game.

    The seat is handed to :data:`HANDOVER_BOT` as after three timeouts, so the game goes on
    for the others, and the player ranks last in it whatever its score. Under the game's
    row lock: a move read before it fails its version check and is decided again.
    """
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise NotFound("not_found", "No such game.")
        own_seat = game.seat_of(player.pk)
        if own_seat is None:
            raise NotAllowed("not_seated", "You do not play in this game.")
        if game.status == Game.Status.FINISHED:
            raise Conflict("game_finished", "The game is over.")
        bot = game.played_by(own_seat)
        if bot:
            raise Conflict(
                "seat_handed_over", f"Your seat is played by {bot} already.", played_by=bot
            )
        seat = GamePlayer.objects.get(game=game, seat=own_seat)
        engine = game.engine()
        events = [Event("resign", {"seat": own_seat}), _hand_over(game, seat)]
        seat.save(update_fields=["replaced_by"])
        change = changes.compose(game, engine, events, also_changed=["seats"])
        if not changes.write(change):  # under the row lock, no other change gets in
            raise GameMoved()
        changes.announce_on_commit(change)
    return game_view(game, engine, own_seat)


def _by_deadline(excluding: Collection[int]) -> QuerySet[Game]:
    """Games in play with a deadline, but ``excluding``, nearest deadline first (the
    ``(status, deadline)`` index)."""
    return (
        Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False)
        .exclude(pk__in=excluding)
        .order_by("deadline")
    )


def overdue_games(*, limit: int, excluding: Collection[int] = ()) -> list[int]:
    """Games waiting on a seat past their deadline, the most overdue first."""
    overdue = _by_deadline(excluding).filter(deadline__lte=timezone.now())
    return list(overdue.values_list("pk", flat=True)[:limit])


def seconds_to_next_deadline(*, excluding: Collection[int] = ()) -> float | None:
    """How long until the nearest deadline of a game in play (None: no game waits)."""
    nearest = _by_deadline(excluding).values_list("deadline", flat=True).first()
    return None if nearest is None else (nearest - timezone.now()).total_seconds()


def extend_deadlines(*, by: timedelta) -> int:
    """Push the deadline of every game in play ``by`` later, in one statement: what the move
    timer does after an outage, so that nobody is charged a timeout for the time the
    platform could not take their move (games/timekeeper.py). Returns how many games.

    The version stays: a deadline is not a move, and a client's ``expected_version`` must
    not go stale for it. A move decided on a row read before this statement writes its own
    new deadline anyway.
    """
    return Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False).update(
        deadline=F("deadline") + by
    )


def purge_expired_records() -> int:
    """Drop idempotency records past their 24 h; returns how many."""
    cutoff = timezone.now() - IDEMPOTENCY_TTL
    records, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return records


def adjudicate_game(game_id: int) -> Game | None:
    """End a game in play by its current scores (an organiser's ruling on a stuck table).

    The game is not rated (it was not played out); ``game_finished`` is announced as for
    any other end. Returns None when the game was already over.
    """
    for _ in range(WRITE_ATTEMPTS):
        with transaction.atomic():
            game = _read_game(game_id)
            if game.status == Game.Status.FINISHED:
                return None
            engine = game.engine()
            outcome = dataclasses.replace(engine.standings(), reason="adjudicated")
            game.rated = False
            ruling = [Event("adjudicated", {"result": outcome.to_dict()})]
            change = changes.compose(game, engine, ruling, also_changed=["rated"], outcome=outcome)
            if changes.write(change):
                changes.announce_on_commit(change)
                return game
    raise GameMoved()
