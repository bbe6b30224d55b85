"""Everything that changes accounts, tables and games. Views call one of these each.

Every change of a game (players, bots, timeouts, rulings) reads the game, applies the action
through the engine, and stores the new state, the events and the stream messages with one
version-checked write (:func:`_record_change`): a change that another one overtook writes
nothing, and is tried again from a fresh read (:func:`_until_written`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Model, QuerySet
from django.utils import timezone

from core.batch import write_change
from core.errors import Conflict, DomainError, Invalid, NotAllowed, NotAuthenticated, NotFound
from core.rows import load_one
from games import game_cache, realtime, signals
from games.auth import BOT_SCOPES, HUMAN_SCOPES, issue_token
from games.engine import Game as Engine
from games.engine import IllegalAction, Outcome, Rules, RulesError
from games.engine.events import Event
from games.errors import IllegalMove, TurnGone
from games.models import (
    HOUSE_BOT_PREFIX,
    ApiToken,
    Game,
    GameEvent,
    GameJournalPart,
    GamePlayer,
    IdempotencyRecord,
    Player,
    PlayerMessage,
    Table,
    TableSeat,
)
from games.selectors import game_view, seats_with_players, stream_line, your_turn_line

T = TypeVar("T")

HOUSE_BOTS = ("house:random", "house:heuristic", "house:strong")
IDEMPOTENCY_TTL = timedelta(hours=24)
# Stream messages only serve streams that are connected now (a new stream starts from the
# newest message and resends pending turns), so old ones can go.
MESSAGE_TTL = timedelta(hours=1)
#: API.md: three timeouts in one game hand the seat to this house bot.
TIMEOUTS_BEFORE_HANDOVER = 3
HANDOVER_BOT = "house:heuristic"


# --- Accounts -------------------------------------------------------------------------------


def register_player(username: str, password: str, email: str = "") -> tuple[Player, str]:
    """A new human account and its first token (scopes play and organise)."""
    player = Player(username=username, email=email)
    try:
        validate_password(password, player)
    except DjangoValidationError as error:
        raise Invalid(
            "invalid", "The password is too weak.", fields={"password": list(error.messages)}
        ) from error
    player.set_password(password)
    _save_new_account(player)
    _, key = issue_token(player, HUMAN_SCOPES, name="registration")
    return player, key


def _save_new_account(player: Player) -> None:
    """Save a new account; usernames are unique regardless of letter case."""
    taken = Conflict("username_taken", f"'{player.username}' is taken.")
    if Player.objects.filter(username__iexact=player.username).exists():
        raise taken
    try:
        with transaction.atomic():
            player.save()
    except IntegrityError as error:
        raise taken from error


def log_in(username: str, password: str, scopes: Iterable[str] | None, name: str) -> str:
    """A new token for a human who gives the right password."""
    player = Player.objects.filter(username=username, is_bot=False, is_active=True).first()
    if player is None or not player.check_password(password):
        raise NotAuthenticated("invalid_credentials", "Wrong username or password.")
    wanted = set(scopes) if scopes is not None else set(HUMAN_SCOPES)
    if not wanted <= set(HUMAN_SCOPES):
        raise Invalid(
            "invalid",
            "Unknown or unavailable scope.",
            fields={"scopes": sorted(wanted - set(HUMAN_SCOPES))},
        )
    _, key = issue_token(player, wanted, name=name or "login")
    return key


def create_bot_player(owner: Player, username: str) -> tuple[Player, str]:
    """A bot account owned by a human, and its token (scopes play and bot)."""
    if owner.is_bot:
        raise NotAllowed("bots_cannot_own_bots", "A bot account cannot create bots.")
    bot = Player(username=username, is_bot=True, owner=owner)
    bot.set_unusable_password()
    _save_new_account(bot)
    _, key = issue_token(bot, BOT_SCOPES, name="bot")
    return bot, key


def new_token(player: Player, scopes: Iterable[str], name: str) -> tuple[ApiToken, str]:
    allowed = set(BOT_SCOPES if player.is_bot else HUMAN_SCOPES)
    wanted = set(scopes)
    if not wanted or not wanted <= allowed:
        raise Invalid(
            "invalid",
            "Unknown or unavailable scope.",
            fields={"scopes": sorted(wanted - allowed) or ["at least one scope is needed"]},
        )
    return issue_token(player, wanted, name=name)


def revoke_token(player: Player, token_id: int) -> None:
    updated = ApiToken.objects.filter(pk=token_id, player=player, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if not updated:
        raise NotFound("not_found", "No such live token.")


def house_bot(username: str) -> Player:
    """The account of a house bot (made on first use)."""
    if username not in HOUSE_BOTS:
        raise Invalid("unknown_bot", f"No house bot '{username}'.", known=list(HOUSE_BOTS))
    player, created = Player.objects.get_or_create(username=username, defaults={"is_bot": True})
    if created:
        player.set_unusable_password()
        player.save(update_fields=["password"])
    return player


# --- Tables ---------------------------------------------------------------------------------


def parse_rules(data: object) -> Rules:
    try:
        return Rules.from_dict(data)
    except (RulesError, TypeError, ValueError) as error:
        raise Invalid("invalid_rules", str(error)) from error


def create_table(
    creator: Player,
    rules: object,
    rated: bool,
    move_seconds: int,
    seat: int | None,
    *,
    deal_seed: str = "",
) -> Table:
    """A new open table. ``deal_seed`` (internal callers only, see ``Table.deal_seed``):
    its game is dealt from that seed, so tables given the same one play the same deals."""
    parsed = parse_rules(rules)
    with transaction.atomic():
        table = Table.objects.create(
            created_by=creator,
            rules=parsed.to_dict(),
            rated=rated,
            move_seconds=move_seconds,
            seat_count=parsed.players,
            deal_seed=deal_seed,
        )
        seats = TableSeat.objects.bulk_create(
            TableSeat(table=table, seat=s) for s in range(parsed.players)
        )
        _shown_with(table, seats)
        if seat is not None:
            _sit(table, creator, seat, seats)
    return table


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


def _sit(table: Table, player: Player, seat: int | None, seats: list[TableSeat]) -> Game | None:
    """Seat ``player`` (at ``seat`` or the first free one) in ``seats`` (``_seats``, or the
    new table's); start the game when full and return it. The table is then as
    ``_shown_with`` says."""
    if seat is not None and not 0 <= seat < table.seat_count:
        raise Invalid(
            "invalid",
            f"No seat {seat} at this table.",
            fields={"seat": [f"0..{table.seat_count - 1}"]},
        )
    if table.deal_seed and not player.is_house_bot:
        # Tables sharing deals show each other's cards: a table ahead in play shows its
        # played cards to anyone, its record every hand, and a player at two such tables
        # would see two hands of one deal. House bots look at nothing but their seat's view.
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


def join_table(player: Player, table_id: int, seat: int | None) -> Table:
    with transaction.atomic():
        table = _locked_table(table_id)
        _sit(table, player, seat, _seats(table))
    return table


def leave_table(player: Player, table_id: int) -> Table:
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.Status.OPEN:
            raise Conflict("table_not_open", "The game has started; you cannot leave.")
        left = TableSeat.objects.filter(table=table, player=player).update(player=None)
        if not left:
            raise Conflict("not_seated", "You have no seat at this table.")
    return table


def seat_bot(caller: Player, table_id: int, bot: str, seat: int | None) -> Table:
    """Seat a house bot or a bot account the caller owns (the table's creator only)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.created_by_id != caller.pk:
            raise NotAllowed("not_table_creator", "Only the table's creator seats bots.")
        if bot.startswith(HOUSE_BOT_PREFIX):
            player = house_bot(bot)
        else:
            found = Player.objects.filter(username=bot, is_bot=True).first()
            if found is None:
                raise NotFound("not_found", f"No bot account '{bot}'.")
            if found.owner_id != caller.pk:
                raise NotAllowed("not_bot_owner", "You can seat only bots you own.")
            player = found
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
        phase=engine.phase,
        hand_number=engine.hand_number,
        to_act=engine.to_act(),
        deadline=_deadline(table.move_seconds, engine),
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
        Event(
            "game_start",
            {"game": game.pk, "seats": [_seat_entry(s.player) for s in seats]},
        ),
        *engine.opening_events(),
    ]
    messages = [
        *(
            PlayerMessage(
                player_id=p, type="game_start", payload={"game": game.pk, "table": table.pk}
            )
            for p in dict.fromkeys(players.values())
        ),
        *_turn_messages(game, engine),
    ]
    write_change(
        game,
        ["last_seq"],
        [
            *(GamePlayer(game=game, seat=s.seat, player_id=s.player_id) for s in seats),
            *_event_rows(game, opening),
            *messages,
        ],
    )
    _turns_started_on_commit(game, engine)
    _publish_on_commit(game, players.values(), messages)
    return game


def _seat_entry(player: Player | None) -> dict[str, Any]:
    if player is None:
        return {"username": None, "is_bot": False}
    return {"username": player.username, "is_bot": player.is_bot}


def _deadline(move_seconds: int, engine: Engine) -> Any:
    if engine.is_stopped():
        return None
    return timezone.now() + timedelta(seconds=move_seconds)


def request_fingerprint(path: str, body: Mapping[str, Any]) -> str:
    return hashlib.sha256(
        (path + "\n" + json.dumps(body, sort_keys=True, default=str)).encode()
    ).hexdigest()


class GameMoved(TurnGone):
    """Another change of the game committed between this change's read and its write, which
    therefore wrote nothing. Retried (:func:`_until_written`); a 409 if it keeps happening."""

    def __init__(self) -> None:
        super().__init__(
            "version_conflict",
            "The game kept changing while your action was applied; read it and try again.",
        )


#: Tries of a change that other changes of the game keep overtaking. Each failed try means
#: another change committed, so the game moved on; at most a few seats act at once.
WRITE_ATTEMPTS = 20


def _until_written(change: Callable[[], T]) -> T:
    """``change()`` (a read of the game, then its version-checked write), tried again from a
    fresh read while another change of the game overtakes it."""
    for _ in range(WRITE_ATTEMPTS - 1):
        try:
            return change()
        except GameMoved:
            continue
    return change()


def submit_action(
    player: Player,
    game_id: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[int, dict[str, Any]]:
    """A player's action (``POST /games/{id}/actions``) → (status, the caller's new view).

    With an idempotency key, the first response is stored with the change, and a retry of
    the same request gets it back without acting again.
    """
    tries = 0

    def submit_once() -> tuple[int, dict[str, Any]]:
        nonlocal tries
        tries += 1  # the first try may start from the cached row, a try again never does
        return _submit_once(
            player, game_id, action, expected_version, idempotency_key, fingerprint, tries == 1
        )

    return _until_written(submit_once)


def _submit_once(
    player: Player,
    game_id: int,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
    fingerprint: str,
    may_use_cache: bool,
) -> tuple[int, dict[str, Any]]:
    cached = game_cache.written_here.get(game_id) if may_use_cache else None
    submit = partial(_submit_on, player, action, expected_version, idempotency_key, fingerprint)
    if cached is None:
        return submit(_game(game_id))
    try:
        return submit(cached)
    except DomainError as error:
        # The cached row may be stale: an answer other than a stored move (GameMoved) comes
        # from a fresh read, the try again _until_written makes.
        game_cache.written_here.drop([game_id])
        raise GameMoved() from error


def _submit_on(
    player: Player,
    action: Mapping[str, Any],
    expected_version: int | None,
    idempotency_key: str | None,
    fingerprint: str,
    game: Game,
) -> tuple[int, dict[str, Any]]:
    # A plain move is one statement (its write), in autocommit; an idempotent one also
    # stores its response, so the two go in one transaction.
    with transaction.atomic() if idempotency_key else contextlib.nullcontext():
        if idempotency_key:
            earlier = IdempotencyRecord.objects.filter(player=player, key=idempotency_key).first()
            if earlier is not None and earlier.created_at > timezone.now() - IDEMPOTENCY_TTL:
                if earlier.fingerprint != fingerprint:
                    raise Conflict(
                        "idempotency_key_reused",
                        "This Idempotency-Key was used for a different request.",
                    )
                return earlier.status_code, json.loads(earlier.body)
            if earlier is not None:
                earlier.delete()
        seat_of_player = game.seat_of(player.pk)
        seats = game.seats_played_by(player.pk) or (
            [] if seat_of_player is None else [seat_of_player]
        )
        if not seats:
            raise NotAllowed("not_seated", "You do not play in this game.")
        if game.status == Game.Status.FINISHED:
            raise TurnGone("game_finished", "The game is over.")
        if expected_version is not None and expected_version != game.version:
            raise TurnGone(
                "version_conflict",
                f"The game is at version {game.version}, not {expected_version}.",
                version=game.version,
            )
        engine = game.engine()
        acting = [s for s in seats if s in engine.to_act()]
        if not acting:
            raise TurnGone("not_your_turn", "It is not your turn.", to_act=engine.to_act())
        seat = acting[0]
        _apply(game, engine, seat, action)
        body = game_view(game, engine, seat)
        if idempotency_key:
            IdempotencyRecord.objects.create(
                player=player,
                key=idempotency_key,
                fingerprint=fingerprint,
                status_code=200,
                body=json.dumps(body, cls=DjangoJSONEncoder),
            )
    return 200, body


def act_for_seat(
    game_id: int, seat: int, action: Mapping[str, Any], expected_version: int | None
) -> Game | None:
    """Apply an action for ``seat`` on behalf of the server (bots, timeouts).

    Returns None (and changes nothing) when the game has moved on from ``expected_version``
    or is over; raises :class:`IllegalMove` for an illegal action.
    """
    return _until_written(partial(_act_for_seat_once, game_id, seat, action, expected_version))


def _act_for_seat_once(
    game_id: int, seat: int, action: Mapping[str, Any], expected_version: int | None
) -> Game | None:
    game = _game(game_id)
    if game.status == Game.Status.FINISHED:
        return None
    if expected_version is not None and expected_version != game.version:
        return None
    engine = game.engine()
    _apply(game, engine, seat, action)
    return game


def _game(game_id: int) -> Game:
    # Read without a lock: the write is version-checked (``_record_change``). Plain SQL
    # (core/rows.py), because compiling the ORM's query cost about as much CPU as the
    # rest of the lookup.
    game = load_one(Game, f"FROM {Game._meta.db_table} WHERE id = %s", [game_id])
    if game is None:
        raise NotFound("not_found", "No such game.")
    return game


def _apply(game: Game, engine: Engine, seat: int, action: Mapping[str, Any]) -> None:
    try:
        events = engine.apply_dict(seat, dict(action))
    except IllegalAction as error:
        raise IllegalMove(str(error), reason=error.code) from error
    _record_change(game, engine, events)


def _record_change(
    game: Game, engine: Engine, events: list[Event], also_changed: Sequence[str] = ()
) -> None:
    """Store the engine's new state, the events and the stream messages; announce on commit.
    ``also_changed``: the game's fields the caller changed beyond those of every change
    (:data:`CHANGING_FIELDS`) and those of the end.

    The one place where concurrent changes of a game are kept apart: the write is
    conditional on the game's ``version`` being still the one this change read, so of two
    changes made from the same version exactly one is stored, and the other raises
    :class:`GameMoved` having written nothing (to be tried again from a fresh read). Not a
    row lock taken at the read: a move is then one statement in autocommit, where the lock
    cost a transaction (``BEGIN``, ``SELECT ... FOR UPDATE``, ``COMMIT``: three more round
    trips; measured in the load benchmark, 0.02-0.03 of the moves/s ratio: see README).

    The stream messages' lines ride with their wake-ups (realtime.py), which tells those
    streams they need not look: do not call this in a transaction that also writes other
    stream messages for those players without waking them with a plain wake-up.

    Only the streams that got a message are woken (and the game's long polls): waking every
    seat's stream made each move cost a database look per seat.
    """
    players = game.acting_players()
    read_version = game.version
    event_rows = _event_rows(game, events)
    journal = _detached_journal(game, engine)
    game.set_state(engine)
    game.version += 1
    game.phase = engine.phase
    game.hand_number = engine.hand_number
    game.to_act = engine.to_act()
    game.deadline = _deadline(game.move_seconds, engine)
    finished = engine.is_stopped()
    # The end also updates the seats' results and the table: one transaction then.
    with transaction.atomic() if finished else contextlib.nullcontext():
        messages = _finish(game, engine.standings()) if finished else _turn_messages(game, engine)
        fields = [*CHANGING_FIELDS, *(FINISHING_FIELDS if finished else ()), *also_changed]
        _store(game, fields, [*event_rows, *journal, *messages], read_version)
        if not finished:  # (_finish's hook waits for the commit of its transaction)
            _turns_started_on_commit(game, engine)
        # The turn or finish messages are all this change wrote: their lines ride with the
        # wake-ups. At the end, the seats' players now are woken too (a bot that took a seat
        # over), with a plain wake-up if it got no message.
        woken = {m.player_id for m in messages} | (set(players.values()) if finished else set())
        _publish_on_commit(game, woken, messages)


def _store(game: Game, fields: Sequence[str], rows: Sequence[Model], read_version: int) -> None:
    """Write the change, or raise :class:`GameMoved` (having written nothing) if the game is
    no longer at ``read_version``."""
    if not write_change(game, fields, rows, {"version": read_version}):
        raise GameMoved()
    # For a later move of the game in this process to start from (game_cache).
    game_cache.written_here.keep_when_committed(game)


def _detached_journal(game: Game, engine: Engine) -> list[GameJournalPart]:
    """At a hand's end (the engine's hand number passed the row's), the journal since the
    last hand's end as a part to store: the state saved then leaves it out, so what a move
    rewrites stays about one hand long (the cost of a move must not grow with the game)."""
    if engine.hand_number <= game.hand_number:
        return []
    data = json.dumps(engine.detach_journal(), separators=(",", ":"))
    return [GameJournalPart(game=game, number=engine.hand_number - 1, data=data)]


#: The game row's columns every change writes; the others only when they change (each
#: column written is a parameter to prepare, and a JSON one a value to encode, every move).
CHANGING_FIELDS = ["state", "version", "last_seq", "phase", "hand_number", "to_act", "deadline"]
#: The columns the end writes too.
FINISHING_FIELDS = ["status", "finished_at", "result"]


def _finish(game: Game, outcome: Outcome) -> list[PlayerMessage]:
    """Record the end; returns the ``game_finish`` stream messages, for the caller to save
    with the rest of the change."""
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    game.result = outcome.to_dict()
    game.deadline = None
    seated = list(game.players.all())
    ranks = ranks_with_absent_last(
        outcome.ranks, {gp.seat for gp in seated if gp.replaced_by_id is not None}
    )
    firsts = ranks.count(1)
    for gp in seated:
        gp.rank = ranks[gp.seat]
        gp.score = outcome.scores[gp.seat]
        gp.result = "loss" if gp.rank != 1 else "win" if firsts == 1 else "shared"
        # One save per seat: measured, bulk_update's CASE expressions cost twice the CPU.
        gp.save(update_fields=["rank", "score", "result"])
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED)
    standings = [
        {"seat": gp.seat, "player_id": gp.player_id, "rank": gp.rank, "score": gp.score}
        for gp in seated
    ]
    messages = [
        PlayerMessage(
            player_id=p, type="game_finish", payload={"game": game.pk, "result": game.result}
        )
        for p in dict.fromkeys(gp.player_id for gp in seated)
    ]
    # robust: the end is committed by the time this runs; a consumer that fails (its broker
    # down, say) is logged by Django and must not turn the finishing move into a 500.
    # Ratings and tournaments each have a periodic sweep that catches a game they missed.
    transaction.on_commit(
        partial(
            signals.game_finished.send_robust,
            sender=Game,
            game_id=game.pk,
            rated=game.rated,
            standings=standings,
        )
    )
    return messages


def ranks_with_absent_last(ranks: Iterable[int], absent: set[int]) -> list[int]:
    """The game's competition ranks, with seats handed to a bot (absent players) ranked
    after everyone present (API.md: it counts as a loss for the absent player); the
    present keep their order among themselves, ties still shared."""
    ranks = list(ranks)
    present = [r for seat, r in enumerate(ranks) if seat not in absent]
    return [
        len(present) + 1 if seat in absent else 1 + sum(1 for p in present if p < r)
        for seat, r in enumerate(ranks)
    ]


def _event_rows(game: Game, events: Iterable[Event]) -> list[GameEvent]:
    """The rows of ``events``, numbered on from the game's ``last_seq`` (not saved yet)."""
    now = timezone.now()
    rows = []
    for event in events:
        game.last_seq += 1
        rows.append(
            GameEvent(
                game=game,
                seq=game.last_seq,
                type=event.type,
                at=now,
                payload=event.payload,
                public=event.visibility is None,
                seat_mask=sum(1 << s for s in (event.visibility or ())),
            )
        )
    return rows


def _turn_messages(game: Game, engine: Engine) -> list[PlayerMessage]:
    """The ``your_turn`` stream messages of the seats to act, for the caller to save."""
    messages = []
    for seat in engine.to_act():
        player_id, username, _ = game.acting_identity(seat)
        if not username.startswith(HOUSE_BOT_PREFIX):  # house bots read no stream
            line = your_turn_line(game, engine, seat)
            payload = {k: v for k, v in line.items() if k != "type"}
            messages.append(PlayerMessage(player_id=player_id, type="your_turn", payload=payload))
    return messages


def _turns_started_on_commit(game: Game, engine: Engine) -> None:
    """``turn_started`` for each seat to act, once the change is committed (at once
    outside a transaction: call it after the write)."""
    for seat in engine.to_act():
        player_id, username, is_bot = game.acting_identity(seat)
        # robust: the move is committed; a receiver that cannot enqueue its work (broker
        # down) is logged, and the move timer still moves the game on at the deadline.
        transaction.on_commit(
            partial(
                signals.turn_started.send_robust,
                sender=Game,
                game_id=game.pk,
                seat=seat,
                player_id=player_id,
                username=username,
                is_bot=is_bot,
                version=game.version,
            )
        )


def expire_turns(game_id: int) -> bool:
    """Play the timeout fallback for every seat the game waits on past its deadline.

    Under the row lock, a seat that acted in time has moved the deadline on, and nothing
    happens; a move read before this change commits fails its version check and is tried
    again on the new state. A game whose row is locked (a change is writing it) is skipped
    rather than waited for: if it is still overdue, the move timer's next look
    finds it. Each late seat gets a public ``timeout`` event; its third timeout hands the
    seat to ``house:heuristic`` for the rest of the game. Returns whether the game changed.
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
                bot = house_bot(HANDOVER_BOT)
                gp.replaced_by = bot
                changed.append("replaced_by")
                game.hand_over_seat(seat, bot)
                handed_over = True
                events.append(Event("seat_handover", {"seat": seat, "to": bot.username}))
            gp.save(update_fields=changed)
        _record_change(game, engine, events, ["seats"] if handed_over else [])
    return True


def _by_deadline(excluding: Collection[int]) -> QuerySet[Game]:
    """Games in play with a deadline, but ``excluding``, nearest deadline first (the
    ``(status, deadline)`` index)."""
    return (
        Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False)
        .exclude(pk__in=excluding)
        .order_by("deadline")
    )


def overdue_games(limit: int, excluding: Collection[int] = ()) -> list[int]:
    """Games waiting on a seat past their deadline, the most overdue first."""
    overdue = _by_deadline(excluding).filter(deadline__lte=timezone.now())
    return list(overdue.values_list("pk", flat=True)[:limit])


def seconds_to_next_deadline(excluding: Collection[int] = ()) -> float | None:
    """How long until the nearest deadline of a game in play (None: no game waits)."""
    nearest = _by_deadline(excluding).values_list("deadline", flat=True).first()
    return None if nearest is None else (nearest - timezone.now()).total_seconds()


def _publish_on_commit(
    game: Game, player_ids: Iterable[int], messages: Sequence[PlayerMessage] = ()
) -> None:
    """Wake the game's long polls and these players' streams on commit. ``messages``, when
    given, must be every message the change wrote for those players (saved, so with ids):
    their lines go with the wake-ups (realtime.py)."""
    channels = [realtime.game_channel(game.pk)] + [
        realtime.player_channel(p) for p in set(player_ids)
    ]
    lines: dict[str, list[realtime.Line]] = {}
    if any(m.pk is None for m in messages):  # a database that gives new rows no ids
        messages = ()
    for message in messages:
        line = stream_line(message.type, message.payload)
        lines.setdefault(realtime.player_channel(message.player_id), []).append((message.pk, line))
    transaction.on_commit(lambda: realtime.publish_soon(channels, lines))


def purge_expired_records() -> int:
    """Drop idempotency records past their 24 h and stream messages nobody can read."""
    now = timezone.now()
    records, _ = IdempotencyRecord.objects.filter(created_at__lt=now - IDEMPOTENCY_TTL).delete()
    messages, _ = PlayerMessage.objects.filter(created_at__lt=now - MESSAGE_TTL).delete()
    return records + messages


# --- Tables seated by an organiser (tournaments) --------------------------------------------


def start_seated_game(
    creator: Player, rules: object, rated: bool, move_seconds: int, players: Sequence[Player]
) -> Game:
    """A table with ``players`` in seat order (a house bot may fill several seats), its game
    dealt at once; for organisers who seat others (tournaments). Call inside a transaction
    to make it part of a larger change."""
    with transaction.atomic():
        table = create_table(creator, rules, rated, move_seconds, None)
        if len(players) != table.seat_count:
            raise Invalid(
                "invalid", f"These rules seat {table.seat_count} players, not {len(players)}."
            )
        seats, game = table.seat_rows, None
        for seat, player in enumerate(players):
            game = _sit(table, player, seat, seats)
        assert game is not None  # the last seat filled started it
        return game


def adjudicate_game(game_id: int) -> Game | None:
    """End a game in play by its current scores (an organiser's ruling on a stuck table).

    The game is not rated (it was not played out); the ``game_finished`` signal is sent as
    for any other end. Returns None when the game was already over.
    """
    return _until_written(partial(_adjudicate_once, game_id))


def _adjudicate_once(game_id: int) -> Game | None:
    with transaction.atomic():
        game = _game(game_id)
        if game.status == Game.Status.FINISHED:
            return None
        engine = game.engine()
        outcome = dataclasses.replace(engine.standings(), reason="adjudicated")
        players = game.acting_players()
        event_rows = _event_rows(game, [Event("adjudicated", {"result": outcome.to_dict()})])
        read_version = game.version
        game.version += 1
        game.rated = False
        game.to_act = []
        messages = _finish(game, outcome)
        fields = [*CHANGING_FIELDS, *FINISHING_FIELDS, "rated"]
        _store(game, fields, [*event_rows, *messages], read_version)
        _publish_on_commit(game, {m.player_id for m in messages} | set(players.values()), messages)
    return game
