"""A change of a game: from what the engine decided to what is written, then announced.

Every change of a game (a player's move, a bot's, a timeout, a ruling) goes the same way,
straight down:

1. the caller loads the game and lets the engine decide (its events);
2. :func:`compose` turns the engine's new state into the :class:`Change` to write: the game
   row's columns, the event rows, the journal part at a hand's end, the stream messages
   (each due seat's ``your_turn`` with its view, or everyone's ``game_finish``) and, at
   the end, each seat's result;
3. :func:`write` stores it with one version-checked statement (at the end: with the seats'
   results and the table, in one transaction);
4. :func:`announce_on_commit` tells the rest once it is committed: the waiting streams and
   long polls (realtime), the notifications of the people whose turn started or ended, the
   turns that started (``turn_started``: bots), the end
   (``game_finished``: ratings, tournaments), and this process's kept row (game_cache).

**Concurrency on a game is handled here, in :func:`write`, and only here.** The write is
conditional on the game's ``version`` being still the one the change was composed from, so
of two changes made from the same version exactly one is stored, and the other writes
nothing (its caller reads the game again and decides anew). Not a row lock taken at the
read: a move is then one statement in autocommit, where the lock cost a transaction
(``BEGIN``, ``SELECT ... FOR UPDATE``, ``COMMIT``: three more round trips, and fewer moves
a second under the load benchmark).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX
from core.batch import write_change
from games import game_cache
from games.engine import Game as Engine
from games.engine import Outcome
from games.engine.events import Event
from games.models import Game, GameEvent, GameJournalPart, GamePlayer, Table
from games.selectors import your_turn_line
from games.signals import (
    GameFinished,
    SeatResult,
    TurnStarted,
    game_finished,
    turn_started,
)
from realtime import delivery
from realtime.delivery import PlayerMessage

#: The game row's columns every change writes; the others only when they change (each
#: column written is a parameter to prepare, and a JSON one a value to encode, every move).
CHANGING_FIELDS = ("state", "version", "last_seq", "phase", "hand_number", "to_act", "deadline")
#: The columns the end writes too.
FINISHING_FIELDS = ("status", "finished_at", "result")


@dataclass
class Change:
    """A change of ``game`` ready to write: ``game`` is the new row, composed from the row
    at ``read_version``."""

    game: Game
    read_version: int
    fields: list[str]
    #: Rows to insert with the row's update: events, journal part, stream messages.
    rows: list[Model]
    #: The stream messages among ``rows``, which ride with the wake-ups.
    messages: list[PlayerMessage]
    #: Players whose streams to wake (those with messages, and at the end every seat's).
    woken: set[int]
    turns: list[TurnStarted] = field(default_factory=list)
    finished: GameFinished | None = None
    #: The deal that starts the game (the list of the games in play changes, as at the end).
    started: bool = False
    #: People whose turn started or ended: what waits on them changed (their notifications).
    noticed: set[int] = field(default_factory=set)


def deadline(move_seconds: int, engine: Engine) -> Any:
    """The new deadline of a game at ``engine``'s state (None once it stopped)."""
    if engine.is_stopped():
        return None
    return timezone.now() + timedelta(seconds=move_seconds)


def compose(
    game: Game,
    engine: Engine,
    events: Iterable[Event],
    *,
    also_changed: Sequence[str] = (),
    outcome: Outcome | None = None,
) -> Change:
    """The change that takes ``game`` (as read) to ``engine``'s state after ``events``.

    ``game`` becomes the new row. ``also_changed``: the row's fields the caller changed
    beyond those of every change (a seat handed over, ``rated``); ``outcome``: the end of a
    game the engine has not ended (a ruling), else the engine's own at its end.
    """
    read_version = game.version
    acting = set(game.acting_players().values())
    to_act_before = set(game.to_act)
    rows: list[Model] = [*event_rows(game, events), *_detached_journal(game, engine)]
    game.set_state(engine)
    game.version += 1
    game.phase = engine.phase
    game.hand_number = engine.hand_number
    game.to_act = engine.to_act()
    game.deadline = deadline(game.move_seconds, engine)
    fields = [*CHANGING_FIELDS, *also_changed]
    if outcome is None and not engine.is_stopped():
        messages = turn_messages(game, engine)
        change = Change(game, read_version, fields, rows, messages, woken=set())
        change.turns = turns_of(game, engine)
    else:
        finished = _finish(game, outcome or engine.standings())
        players = dict.fromkeys(s.player_id for s in finished.standings)  # one line each
        messages = [
            delivery.message(player_id, type="game_finish", payload=_finish_line(game))
            for player_id in players
        ]
        # Every seat's player now is woken too (a bot that took a seat over).
        change = Change(game, read_version, [*fields, *FINISHING_FIELDS], rows, messages, acting)
        change.finished = finished
    change.rows.extend(messages)
    change.woken |= {m.player_id for m in messages}
    change.noticed = _people_of(game, to_act_before ^ set(game.to_act))
    return change


def _people_of(game: Game, seats: set[int]) -> set[int]:
    """The people (not bot accounts) who sit in ``seats`` of ``game``."""
    return {s["player_id"] for s in game.seats if s["seat"] in seats and not s["is_bot"]}


def write(change: Change) -> bool:
    """Store ``change`` if the game is still at the version it was composed from; returns
    whether it did (if not, nothing was written: the module's docstring says why)."""
    game = change.game
    # The end also writes the seats' results and the table: one transaction then.
    with transaction.atomic() if change.finished else contextlib.nullcontext():
        if not write_change(game, change.fields, change.rows, {"version": change.read_version}):
            return False
        if change.finished is not None:
            for result in change.finished.standings:
                GamePlayer.objects.filter(game=game, seat=result.seat).update(
                    rank=result.rank, score=result.score, result=_result_word(result, change)
                )
            Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED)
    return True


def announce_on_commit(change: Change, *, house_turns: bool = True) -> None:
    """Tell the rest of the platform about ``change`` once it commits (at once outside a
    transaction). ``house_turns=False``: the caller plays the house bots' turns that start
    (a house bot's chain of moves): no ``turn_started`` for them."""
    turns = change.turns
    if not house_turns:
        turns = [t for t in turns if not t.username.startswith(HOUSE_BOT_PREFIX)]
    # For a later move of the game in this process to start from.
    game_cache.written_here.keep_when_committed(change.game)
    if turns or change.finished is not None:
        finished = change.finished
        transaction.on_commit(lambda: _send(turns, finished))
    # A game that starts or ends changes the list of the games being played (games.in_play).
    also = [delivery.lobby_channel()] if change.started or change.finished is not None else []
    also.extend(delivery.person_channel(p) for p in change.noticed)
    delivery.announce_on_commit(
        game_id=change.game.pk, player_ids=change.woken, messages=change.messages, also=also
    )


def _send(turns: Sequence[TurnStarted], finished: GameFinished | None) -> None:
    # robust: the change is committed; a receiver that cannot enqueue its work (broker down)
    # is logged by Django and must not turn the move into a 500, nor keep the others from
    # hearing. The move timer still moves the game on at the deadline, and ratings and
    # tournaments each have a periodic sweep that catches a game they missed.
    for turn in turns:
        turn_started.send_robust(sender=Game, event=turn)
    if finished is not None:
        game_finished.send_robust(sender=Game, event=finished)


def event_rows(game: Game, events: Iterable[Event]) -> list[GameEvent]:
    """The rows of ``events``, numbered on from the game's ``last_seq`` (not saved yet)."""
    now = timezone.now()
    rows = []
    for event in events:
        game.last_seq += 1
        rows.append(
            GameEvent(
                # By its id: setting the relation is a large part of making the row (Django's
                # descriptor), for an object no one reads from an event row written here.
                game_id=game.pk,
                seq=game.last_seq,
                type=event.type,
                at=now,
                payload=event.payload,
                public=event.visibility is None,
                seat_mask=sum(1 << s for s in (event.visibility or ())),
            )
        )
    return rows


def turn_messages(game: Game, engine: Engine) -> list[PlayerMessage]:
    """The ``your_turn`` stream messages of the seats to act (house bots read no stream)."""
    messages = []
    for seat in engine.to_act():
        player_id, username, _ = game.acting_identity(seat)
        if not username.startswith(HOUSE_BOT_PREFIX):
            line = your_turn_line(game, engine, seat)
            payload = {k: v for k, v in line.items() if k != "type"}
            messages.append(delivery.message(player_id, type="your_turn", payload=payload))
    return messages


def turns_of(game: Game, engine: Engine) -> list[TurnStarted]:
    """The turns that start at ``engine``'s state, one per seat to act."""
    turns = []
    for seat in engine.to_act():
        player_id, username, is_bot = game.acting_identity(seat)
        turns.append(TurnStarted(game.pk, seat, player_id, username, is_bot, game.version))
    return turns


def _detached_journal(game: Game, engine: Engine) -> list[GameJournalPart]:
    """At a hand's end (the engine's hand number passed the row's), the journal since the
    last hand's end as a part to store: the state saved then leaves it out, so what a move
    rewrites stays about one hand long (the cost of a move must not grow with the game)."""
    if engine.hand_number <= game.hand_number:
        return []
    data = json.dumps(engine.detach_journal(), separators=(",", ":"))
    return [GameJournalPart(game=game, number=engine.hand_number - 1, data=data)]


def _finish(game: Game, outcome: Outcome) -> GameFinished:
    """Set the row's end and return it, with each seat's result."""
    game.status = Game.Status.FINISHED
    game.finished_at = timezone.now()
    game.result = outcome.to_dict()
    game.deadline = None
    game.to_act = []
    absent = {s["seat"] for s in game.seats if s["played_by"]}
    ranks = ranks_with_absent_last(outcome.ranks, absent)
    standings = tuple(
        SeatResult(s["seat"], s["player_id"], ranks[s["seat"]], outcome.scores[s["seat"]])
        for s in sorted(game.seats, key=lambda s: s["seat"])
    )
    return GameFinished(game.pk, game.rated, standings)


def _finish_line(game: Game) -> dict[str, Any]:
    return {"game": game.pk, "result": game.result}


def _result_word(result: SeatResult, change: Change) -> str:
    """``win`` (first alone), ``shared`` (first with others) or ``loss``."""
    assert change.finished is not None
    firsts = sum(1 for s in change.finished.standings if s.rank == 1)
    return "loss" if result.rank != 1 else "win" if firsts == 1 else "shared"


def ranks_with_absent_last(ranks: Iterable[int], absent: set[int]) -> list[int]:
    """The game's competition ranks, with seats handed to a bot (absent players) ranked
    after everyone present (it counts as a loss for the absent player); the present keep
    their order among themselves, ties still shared."""
    ranks = list(ranks)
    present = [r for seat, r in enumerate(ranks) if seat not in absent]
    return [
        len(present) + 1 if seat in absent else 1 + sum(1 for p in present if p < r)
        for seat, r in enumerate(ranks)
    ]
