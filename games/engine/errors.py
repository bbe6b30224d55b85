"""The engine's domain errors.

Every error the engine raises on bad input is a :class:`ValueError` subclass:

* :class:`RulesError` -- an unknown preset, an unknown option or a bad option value;
* :class:`IllegalAction` -- an action that may not be made now (or cannot be parsed); its
  :attr:`IllegalAction.code` is one of the docs/replay.md error codes (:data:`ERROR_CODES`);
* :class:`DealError` -- an explicit deal that is not a partition of the preset's deck;
* :class:`StateError` -- a serialised game state that cannot be loaded.

>>> from games.engine import Card, IllegalAction
>>> try:
...     Card.parse("ZZ")
... except IllegalAction as error:
...     print(error.code)
card_not_in_hand
"""

from __future__ import annotations

__all__ = [
    "ERROR_CODES",
    "DealError",
    "EngineError",
    "IllegalAction",
    "RulesError",
    "StateError",
]

ERROR_CODES: tuple[str, ...] = (
    "not_your_turn",
    "wrong_phase",
    "card_not_in_hand",
    "must_follow_suit",
    "wrong_card_count",
    "invalid_suit",
    "invalid_bid",
    "wrong_recipient",
    "duplicate_card",
    "unknown_action",
)


class EngineError(ValueError):
    """Base class of every error raised by the rules engine."""


class RulesError(EngineError):
    """An unknown preset or option, or a bad option value."""


class DealError(EngineError):
    """An explicit deal that does not fit the rules (sizes, duplicates, missing cards)."""


class StateError(EngineError):
    """A serialised game state that cannot be loaded."""


class IllegalAction(EngineError):
    """An action that is not legal now; nothing was changed.

    ``code`` is the docs/replay.md error code (``"must_follow_suit"``, ...), ``message`` a human
    readable explanation.
    """

    code: str

    def __init__(self, code: str, message: str | None = None) -> None:
        if code not in ERROR_CODES:  # pragma: no cover - programming error
            raise AssertionError(f"unknown error code {code!r}")
        self.code = code
        super().__init__(message or code.replace("_", " "))

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str]]:
        return (IllegalAction, (self.code, str(self)))
