"""What the games app announces, after commit, for other apps to consume.

``games`` imports none of its consumers: config/wiring.py connects the ratings and
tournaments apps to :data:`game_finished` and the bots app (house bots, webhooks) to
:data:`turn_started`. Each signal carries one typed event as its ``event`` argument, and is
sent with ``send_robust``: a receiver's error is logged and keeps from no other receiver.
"""

from __future__ import annotations

from dataclasses import dataclass

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


#: Sent with ``event=GameFinished(...)`` once the end is committed.
game_finished = Signal()

#: Sent with ``event=TurnStarted(...)`` once the change that made the seat due is committed.
turn_started = Signal()
