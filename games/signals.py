"""What the games app announces, after commit, for other apps to consume.

``games`` imports none of its consumers: config/wiring.py connects the ratings and
tournaments apps to :data:`game_finished` and the bots app (house bots, webhooks) to
:data:`turn_started`. :data:`recorded_game_finished` is the end of a game played away from
the platform, announced by the app that recorded it (tournaments, for an in-person table)
and consumed as a game's end is (ratings, tournaments). Each signal carries one typed event
as its ``event`` argument, and is sent with ``send_robust``: a receiver's error is logged
and keeps from no other receiver.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.dispatch import Signal


@dataclass(frozen=True)
class SeatResult:
    """How a game ended for one seat: ranks as the rules give them (ties share a rank),
    with a seat handed to a bot ranked after every present player."""

    seat: int
    player_id: int
    rank: int
    score: int


@dataclass(frozen=True)
class GameFinished:
    """A game ended (played out, or adjudicated: then it is not rated)."""

    game_id: int
    rated: bool
    standings: tuple[SeatResult, ...]


@dataclass(frozen=True)
class TurnStarted:
    """A seat must act, at the game's ``version``. ``player_id``, ``username`` and
    ``is_bot`` are of whoever plays the seat now: after a hand-over, the house bot."""

    game_id: int
    seat: int
    player_id: int
    username: str
    is_bot: bool
    version: int


@dataclass(frozen=True)
class RecordedGameFinished:
    """A game played with real cards away from the platform ended and its result was
    entered (an in-person tournament's table): no online game exists, so its outcome
    travels whole. ``key`` names the game once and for all (a second announcement of it
    changes nothing); an adjudicated one is not rated."""

    key: str
    rated: bool
    finished_at: datetime
    standings: tuple[SeatResult, ...]


#: Sent with ``event=GameFinished(...)`` once the end is committed.
game_finished = Signal()

#: Sent with ``event=RecordedGameFinished(...)`` inside the transaction that makes the
#: result stand, so what a receiver stores commits with it (receivers queue their work on
#: commit).
recorded_game_finished = Signal()

#: Sent with ``event=TurnStarted(...)`` once the change that made the seat due is committed.
turn_started = Signal()
