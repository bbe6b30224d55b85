"""The games app's refusals that callers tell apart (``core.errors`` has the kinds)."""

from __future__ import annotations

from typing import Any

from core.errors import Conflict, Invalid


class IllegalMove(Invalid):
    """The rules do not allow this action now; ``details["reason"]`` is the rules' code
    (``must_follow_suit``, ``card_not_in_hand``...); an action of the wrong shape also has
    its ``fields`` named."""

    def __init__(self, message: str, *, reason: str, **details: Any) -> None:
        super().__init__("illegal_action", message, reason=reason, **details)


class TurnGone(Conflict):
    """The turn an action was meant for has passed: the game is at another version
    (``version_conflict``), another seat is to act (``not_your_turn``), or the game is over
    (``game_finished``). A bot answering late gets this, not a verdict on its action."""
