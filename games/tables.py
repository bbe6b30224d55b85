"""Tables: their making, seating and cancelling, and the deal of a table's game once its
seats are full (by its players, or by an organiser who seats others). Views and tasks call
one of these each; the moves of a game once dealt are ``games.play``'s.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.services import house_bot, owned_bot
from core.batch import write_change
from core.errors import Conflict, Invalid, NotAllowed, NotFound
from games import changes
from games.engine import Game as Engine
from games.engine import Rules, RulesError
from games.engine.events import Event
from games.models import Game, GamePlayer, Table, TableSeat
from games.selectors import deals_embargoed, seats_with_players
from realtime import delivery


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
        original, rules = duplicate_source(duplicate_of, rules=rules)
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


def duplicate_source(game_id: int, *, rules: object) -> tuple[Game, object]:
    """The finished game ``game_id`` whose deals a new game replays (duplicate play), and
    the rules that game is played under: the original's. ``rules`` None takes them; other
    rules are refused (Invalid ``duplicate_rules_mismatch``: the same seed deals other cards
    under other rules). NotFound for an unknown game; Conflict ``game_in_progress`` before
    its end, and ``deals_embargoed`` while other games still play its deals (a duplicate
    round)."""
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
    if player.is_guest and table.rated:
        raise NotAllowed("guests_unrated", "A guest plays unrated games only; sign up to be rated.")
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
    game = start_game(table, seats=seats) if len(free) == 1 else None
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


def start_game(table: Table, *, seats: list[TableSeat]) -> Game:
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


# --- A game against the computer (the pages' "Play the computer" and the lesson) -----------

#: The house bot that fills the other seats of a game against the computer.
COMPUTER = "house:heuristic"
#: The moves' time of a game against the computer: long, as a newcomer reads as they play.
COMPUTER_MOVE_SECONDS = 300


def start_computer_game(person: Player, *, rules: object = "classic", deal_seed: str = "") -> Game:
    """A game dealt at once, unrated, with ``person`` in seat 0 and house bots in the others
    (made and seated by the person). ``deal_seed`` (the lesson's fixed deal): see
    :func:`start_seated_game`; only house bots sit with the person, so the deal is theirs
    alone to see."""
    if person.is_bot:
        raise NotAllowed("bots_not_allowed", "A game against the computer is for people.")
    parsed = parse_rules(rules)
    bot = house_bot(COMPUTER)
    return start_seated_game(
        person,
        rules=parsed.to_dict(),
        rated=False,
        move_seconds=COMPUTER_MOVE_SECONDS,
        players=[person, *([bot] * (parsed.players - 1))],
        deal_seed=deal_seed,
    )


# --- Tables seated by an organiser (tournaments, challenges, quick play, arena) -------------


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
