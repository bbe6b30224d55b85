"""Everything that changes tables and games. Views and tasks call one of these each.

A change of a game reads the game, lets the engine decide, and writes and announces the
result through ``games.changes`` (which says how concurrent changes are kept apart): a
change that another one overtook writes nothing, and is decided again on a fresh read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import secrets
from collections.abc import Collection, Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.services import house_bot, owned_bot
from core.batch import write_change
from core.errors import Conflict, DomainError, Invalid, NotAllowed, NotFound
from core.rows import load_one
from games import changes, game_cache
from games.engine import Game as Engine
from games.engine import IllegalAction, Rules, RulesError
from games.engine.events import Event
from games.errors import IllegalMove, TurnGone
from games.models import Game, GamePlayer, IdempotencyRecord, Table, TableSeat
from games.selectors import deals_embargoed, game_view, seats_with_players
from realtime import delivery

IDEMPOTENCY_TTL = timedelta(hours=24)
#: Three timeouts in one game hand the seat to this house bot.
TIMEOUTS_BEFORE_HANDOVER = 3
HANDOVER_BOT = "house:heuristic"
#: Tries of a change that other changes of the game keep overtaking. Each failed try means
#: another change committed, so the game moved on; at most a few seats act at once.
WRITE_ATTEMPTS = 20


# --- Tables ---------------------------------------------------------------------------------


def parse_rules(data: object) -> Rules:
    try:
        return Rules.from_dict(data)
    except (RulesError, TypeError, ValueError) as error:
        # The field is named as strict input names it: a misspelt option is one.
        raise Invalid("invalid_rules", str(error), fields={"rules": [str(error)]}) from error


def create_table(
    creator: Player,
    *,
    rules: object,
    rated: bool,
    move_seconds: int,
    seat: int | None,
    deal_seed: str = "",
    duplicate_of: int | None = None,
) -> Table:
    """A new open table. ``deal_seed`` (internal callers only, see ``Table.deal_seed``):
    its game is dealt from that seed, so tables given the same one play the same deals.
    ``duplicate_of`` (a finished game's id): its game replays that game's deals
    (:func:`duplicate_source` says which rules it takes and what it refuses)."""
    original: Game | None = None
    if duplicate_of is not None:
        original, rules = duplicate_source(duplicate_of, rules)
        deal_seed = original.seed
    parsed = parse_rules(rules)
    with transaction.atomic():
        table = Table.objects.create(
            created_by=creator,
            rules=parsed.to_dict(),
            rated=rated,
            move_seconds=move_seconds,
            seat_count=parsed.players,
            deal_seed=deal_seed,
            duplicate_of=original,
        )
        seats = TableSeat.objects.bulk_create(
            TableSeat(table=table, seat=s) for s in range(parsed.players)
        )
        _shown_with(table, seats)
        if seat is not None:
            _sit(table, creator, seat, seats)
    return table


def duplicate_source(game_id: int, rules: object) -> tuple[Game, object]:
    """The finished game ``game_id`` whose deals a new game replays (duplicate play), and
    the rules that game is played under: the original's. ``rules`` None takes them; other
    rules are refused (400 ``duplicate_rules_mismatch``: the same seed deals other cards
    under other rules). 404 for an unknown game, 409 ``game_in_progress`` before its end,
    409 ``deals_embargoed`` while other games still play its deals (a duplicate round)."""
    original = Game.objects.filter(pk=game_id).first()
    if original is None:
        raise NotFound("not_found", "No such game.", fields={"duplicate_of": ["no such game"]})
    if original.status != Game.Status.FINISHED:
        message = "Only a finished game's deals are replayed."
        raise Conflict("game_in_progress", message, fields={"duplicate_of": [message]})
    if deals_embargoed(original):
        message = "Other games still play these deals; they are replayed once those have ended."
        raise Conflict("deals_embargoed", message, fields={"duplicate_of": [message]})
    if rules is not None and parse_rules(rules).to_dict() != original.rules:
        message = "A duplicate game is played under its original's rules."
        raise Invalid(
            "duplicate_rules_mismatch",
            message,
            fields={"rules": [f"{message} Leave them out to take them."]},
            rules=original.rules,
        )
    return original, original.rules


def set_up_table(
    creator: Player,
    *,
    rules: object,
    rated: bool,
    move_seconds: int,
    seat: int | None,
    bots: Mapping[int, str],
) -> Table:
    """A new table with ``bots`` (seat → house bot or a bot account the creator owns) seated
    at once, all or nothing; the game starts if that fills it (the web pages' lobby form)."""
    with transaction.atomic():
        table = create_table(
            creator, rules=rules, rated=rated, move_seconds=move_seconds, seat=seat
        )
        for bot_seat, bot in sorted(bots.items()):
            table = seat_bot(creator, table_id=table.pk, bot=bot, seat=bot_seat)
    return table


def cancel_table(caller: Player, *, table_id: int) -> None:
    """The creator removes an open table (no game yet); the others seated at it are told on
    their streams (a ``table_canceled`` line), so that none of them waits for its game."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.created_by_id != caller.pk:
            raise NotAllowed("not_table_creator", "Only the table's creator cancels it.")
        if table.status != Table.Status.OPEN:
            raise Conflict("table_not_open", "The game at this table has already started.")
        seated = {s.player_id for s in _seats(table) if s.player_id is not None}
        delivery.send(seated - {caller.pk}, type="table_canceled", payload={"table": table.pk})
        table.delete()


def _shown_with(table: Table, seats: list[TableSeat], game: Game | None = None) -> None:
    """Give ``table`` what ``selectors.table_data`` shows of it beyond its row (as
    ``selectors.tables`` loads it): its seats with their players, by seat, and its game's
    id. The seating services return their table so, and the views show it without
    reading it again."""
    table.seat_rows = seats
    table.game_pk = None if game is None else game.pk


def _locked_table(table_id: int) -> Table:
    # Seating changes of one table are serialised by this row lock (of the table's row
    # alone: its creator comes with it, to be shown, and is not locked).
    table = (
        Table.objects.select_for_update(of=("self",))
        .select_related("created_by")
        .filter(pk=table_id)
        .first()
    )
    if table is None:
        raise NotFound("not_found", "No such table.")
    return table


def _seats(table: Table) -> list[TableSeat]:
    return list(seats_with_players().filter(table=table))


def _sit(
    table: Table,
    player: Player,
    seat: int | None,
    seats: list[TableSeat],
    *,
    deals_guarded: bool = False,
) -> Game | None:
    """Seat ``player`` (at ``seat`` or the first free one) in ``seats`` (``_seats``, or the
    new table's); start the game when full and return it. The table is then as
    ``_shown_with`` says. ``deals_guarded``: an organiser seating the table with a shared
    deal seed keeps the deals from its players (an embargo, ``selectors.EMBARGOES``)."""
    if seat is not None and not 0 <= seat < table.seat_count:
        raise Invalid(
            "invalid",
            f"No seat {seat} at this table.",
            fields={"seat": [f"0..{table.seat_count - 1}"]},
        )
    shared = table.deal_seed and table.duplicate_of_id is None and not deals_guarded
    if shared and not player.is_house_bot:
        # Tables sharing deals show each other's cards: a table ahead in play shows its
        # played cards to anyone, its record every hand, and a player at two such tables
        # would see two hands of one deal. House bots look at nothing but their seat's view.
        # (A duplicate_of table replays a finished game, whose record anyone may read; an
        # organiser's duplicate round embargoes its games' views while it plays.)
        raise NotAllowed("house_bots_only", "Only house bots sit at this table.")
    if not player.is_house_bot and any(s.player_id == player.pk for s in seats):
        raise Conflict("already_seated", "You already have a seat at this table.")
    if seat is not None and seats[seat].player_id is not None:
        raise Conflict("seat_taken", f"Seat {seat} is taken.")
    free = [s for s in seats if s.player_id is None]
    if not free:
        raise Conflict("table_full", "Every seat is taken.")
    if table.status != Table.Status.OPEN:
        raise Conflict("table_not_open", "The game at this table has already started.")
    target = free[0] if seat is None else seats[seat]
    target.player = player
    target.save(update_fields=["player"])
    game = start_game(table, seats) if len(free) == 1 else None
    _shown_with(table, seats, game)
    return game


def join_table(player: Player, *, table_id: int, seat: int | None) -> Table:
    with transaction.atomic():
        table = _locked_table(table_id)
        _sit(table, player, seat, _seats(table))
    return table


def leave_table(player: Player, *, table_id: int) -> Table:
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.Status.OPEN:
            raise Conflict("table_not_open", "The game has started; you cannot leave.")
        left = TableSeat.objects.filter(table=table, player=player).update(player=None)
        if not left:
            raise Conflict("not_seated", "You have no seat at this table.")
    return table


def seat_bot(caller: Player, *, table_id: int, bot: str, seat: int | None) -> Table:
    """Seat a house bot or a bot account the caller owns (the table's creator only)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.created_by_id != caller.pk:
            raise NotAllowed("not_table_creator", "Only the table's creator seats bots.")
        if bot.startswith(HOUSE_BOT_PREFIX):
            player = house_bot(bot)
        else:
            player = owned_bot(caller, username=bot)
        _sit(table, player, seat, _seats(table))
    return table


# --- Games ----------------------------------------------------------------------------------


def start_game(table: Table, seats: list[TableSeat]) -> Game:
    """Deal the table's game (inside the seating transaction, ``seats`` as ``_seats`` gives
    them) and announce it on commit."""
    engine = Engine.new(table.rules, seed=table.deal_seed or secrets.token_hex(16))
    game = Game(
        table=table,
        rules=table.rules,
        rated=table.rated,
        move_seconds=table.move_seconds,
        seed=str(engine.seed),
        duplicate_of_id=table.duplicate_of_id,
        deals_shared=bool(table.deal_seed) and table.duplicate_of_id is None,
        phase=engine.phase,
        hand_number=engine.hand_number,
        to_act=engine.to_act(),
        deadline=changes.deadline(table.move_seconds, engine),
        seats=[
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "username": s.player.username,
                "is_bot": s.player.is_bot,
                "acting_player_id": s.player_id,
                "played_by": None,
            }
            for s in seats
            if s.player is not None
        ],
    )
    game.set_state(engine)
    game.save(force_insert=True)
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status"])
    players = {s.seat: s.player_id for s in seats}
    opening = [
        Event("game_start", {"game": game.pk, "seats": [_seat_entry(s.player) for s in seats]}),
        *engine.opening_events(),
    ]
    messages = [
        *(
            delivery.message(p, type="game_start", payload={"game": game.pk, "table": table.pk})
            for p in dict.fromkeys(players.values())
        ),
        *changes.turn_messages(game, engine),
    ]
    rows = [
        *(GamePlayer(game=game, seat=s.seat, player_id=s.player_id) for s in seats),
        *changes.event_rows(game, opening),
        *messages,
    ]
    write_change(game, ["last_seq"], rows)
    opened = changes.Change(game, game.version, ["last_seq"], rows, messages, set(players.values()))
    opened.turns = changes.turns_of(game, engine)
    opened.started = True
    changes.announce_on_commit(opened)
    return game


def _seat_entry(player: Player | None) -> dict[str, Any]:
    if player is None:
        return {"username": None, "is_bot": False}
    return {"username": player.username, "is_bot": player.is_bot}


def request_fingerprint(path: str, body: Mapping[str, Any]) -> str:
    """What tells a retry of a request from another request with the same idempotency key."""
    return hashlib.sha256(
        (path + "\n" + json.dumps(body, sort_keys=True, default=str)).encode()
    ).hexdigest()


class GameMoved(TurnGone):
    """Other changes of the game kept committing between a change's read and its write,
    :data:`WRITE_ATTEMPTS` times: a 409 for the caller to read the game and try again."""

    def __init__(self) -> None:
        super().__init__(
            "version_conflict",
            "The game kept changing while your action was applied; read it and try again.",
        )


def submit_action(
    player: Player,
    *,
    game_id: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[int, dict[str, Any]]:
    """A player's action (``POST /games/{id}/actions``) → (status, the caller's new view).

    Load, decide, write, announce. The first try may start from the row this process wrote
    last (game_cache), never trusted for an answer: a refusal decided on it is decided
    again on a fresh read, and a stale row fails the version-checked write. With an
    idempotency key, the first response is stored with the change, and a retry of the
    same request gets it back without acting again.
    """
    kept = game_cache.written_here.get(game_id)
    for _ in range(WRITE_ATTEMPTS):
        game = kept if kept is not None else _read_game(game_id)
        # A plain move is one statement (its write), in autocommit; an idempotent one also
        # stores its response, so the two go in one transaction.
        with transaction.atomic() if idempotency_key else contextlib.nullcontext():
            if idempotency_key:
                earlier = _earlier_response(player, idempotency_key, fingerprint)
                if earlier is not None:
                    return earlier
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
                        _remember_response(player, idempotency_key, fingerprint, view)
                    break
        # Overtaken, or refused on a kept row that may be stale: decide again on a fresh read.
        if kept is not None:
            game_cache.written_here.drop([game_id])
            kept = None
    else:
        raise GameMoved()
    changes.announce_on_commit(change)
    return 200, view


def _read_game(game_id: int) -> Game:
    # Without a lock: the write is version-checked (games.changes). Plain SQL (core/rows.py),
    # because compiling the ORM's query cost about as much CPU as the rest of the lookup.
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


def _earlier_response(player: Player, key: str, fingerprint: str) -> tuple[int, Any] | None:
    """The response stored for this key, if its request was this one (409 if another)."""
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
    return earlier.status_code, json.loads(earlier.body)


def _remember_response(player: Player, key: str, fingerprint: str, view: dict[str, Any]) -> None:
    IdempotencyRecord.objects.create(
        player=player,
        key=key,
        fingerprint=fingerprint,
        status_code=200,
        body=json.dumps(view, cls=DjangoJSONEncoder),
    )


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
    """The player gives up its seat (``POST /games/{id}/resign``) → its view of the game.

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


def overdue_games(limit: int, *, excluding: Collection[int] = ()) -> list[int]:
    """Games waiting on a seat past their deadline, the most overdue first."""
    overdue = _by_deadline(excluding).filter(deadline__lte=timezone.now())
    return list(overdue.values_list("pk", flat=True)[:limit])


def seconds_to_next_deadline(excluding: Collection[int] = ()) -> float | None:
    """How long until the nearest deadline of a game in play (None: no game waits)."""
    nearest = _by_deadline(excluding).values_list("deadline", flat=True).first()
    return None if nearest is None else (nearest - timezone.now()).total_seconds()


def extend_deadlines(by: timedelta) -> int:
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


# --- Tables seated by an organiser (tournaments) --------------------------------------------


def start_seated_game(
    creator: Player,
    *,
    rules: object,
    rated: bool,
    move_seconds: int,
    players: Sequence[Player],
    deal_seed: str = "",
    duplicate_of: int | None = None,
) -> Game:
    """A table with ``players`` in seat order (a house bot may fill several seats), its game
    dealt at once; for organisers who seat others (tournaments). Call inside a transaction
    to make it part of a larger change. ``duplicate_of``: see :func:`create_table`.
    ``deal_seed``: the game is dealt from it, and people may sit at it: the organiser gives
    it to several tables at once and keeps their deals from their players while they play
    (a duplicate tournament's round: ``selectors.EMBARGOES``)."""
    with transaction.atomic():
        table = create_table(
            creator,
            rules=rules,
            rated=rated,
            move_seconds=move_seconds,
            seat=None,
            deal_seed=deal_seed,
            duplicate_of=duplicate_of,
        )
        if len(players) != table.seat_count:
            raise Invalid(
                "invalid", f"These rules seat {table.seat_count} players, not {len(players)}."
            )
        seats, game = table.seat_rows, None
        for seat, player in enumerate(players):
            game = _sit(table, player, seat, seats, deals_guarded=bool(deal_seed))
        assert game is not None  # the last seat filled started it
        return game


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
