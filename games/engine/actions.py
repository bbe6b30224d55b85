"""Actions: small immutable values that round-trip to the spec's JSON (docs/replay.md, docs/api.md).

=============  =========================================  ==================================
type           JSON                                       class
=============  =========================================  ==================================
``bid``        ``{"type": "bid", "tricks": 9}``           :class:`Bid`
``pass``       ``{"type": "pass"}``                       :class:`Pass`
``give``       ``{"type": "give", "to": 1, "cards": [..]}`` :class:`Give`
``trump``      ``{"type": "trump", "suit": "H"}``         :class:`Trump` (also ``NT``, ``MIZ``)
``discard``    ``{"type": "discard", "cards": [..4..]}``  :class:`Discard`
``swap``       ``{"type": "swap", "card": "7C"}``         :class:`Swap`
``no_swap``    ``{"type": "no_swap"}``                    :class:`NoSwap`
``play``       ``{"type": "play", "card": "TD"}``         :class:`Play`
=============  =========================================  ==================================

>>> action = action_from_dict({"type": "play", "card": "TD"})
>>> action
Play(card=Card('TD'))
>>> action.to_dict()
{'type': 'play', 'card': 'TD'}
>>> action_from_dict({"type": "lead", "card": "TD"})
Traceback (most recent call last):
...
games.engine.errors.IllegalAction: unknown action type 'lead'

Parsing checks only the shape of an action (the error codes are those of docs/replay.md:
a bad card is ``card_not_in_hand``, ``cards`` that is not a list ``wrong_card_count``, ...);
whether it is legal now is :meth:`games.engine.Game.apply`'s business.

Each action also has a compact *code*, the form a game's stored action log keeps it in
(state version 2 keeps the log as one string of codes): its class's ``letter``, then its
recipient, cards (a list of cards sorted) or number. ``code()`` writes it,
:func:`action_from_code` reads it back.

======================  =================
action                  code
======================  =================
play TD                 ``pTD``
trump NT                ``tNT``
discard 2C 3C AH KS     ``d2C3CAHKS``
give to 1: 7D 2C        ``g12C7D``
bid 9                   ``b9``
pass                    ``x``
swap 7C                 ``s7C``
no_swap                 ``n``
======================  =================

>>> Give(1, (Card.parse("7D"), Card.parse("2C"))).code()
'g12C7D'
>>> action_from_code("g12C7D")
Give(to=1, cards=(Card('2C'), Card('7D')))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeAlias

from .cards import CARDS, Card, Suit, name
from .errors import IllegalAction

__all__ = [
    "ACTION_CLASSES",
    "ACTION_TYPES",
    "CALLS",
    "PLAY_CODES",
    "TRUMPS",
    "Action",
    "Bid",
    "Discard",
    "Give",
    "NoSwap",
    "Pass",
    "Play",
    "Swap",
    "Trump",
    "action_from_code",
    "action_from_dict",
]

CALLS: Final = ("C", "D", "H", "S", "NT", "MIZ")
"""Every value of a trump call, in the order legal calls are listed."""


def _card(data: Mapping[str, Any], key: str = "card") -> Card:
    return Card.parse(data.get(key))


def _card_tuple(data: Mapping[str, Any]) -> tuple[Card, ...]:
    raw = data.get("cards")
    if not isinstance(raw, list):
        raise IllegalAction("wrong_card_count", "'cards' must be a list of cards")
    return tuple(Card.parse(c) for c in raw)


def _is_int(value: object) -> bool:
    return type(value) is int


def _sorted_names(cards: tuple[Card, ...]) -> str:
    return "".join(map(name, sorted([c._index for c in cards])))


def _cards_of(text: str) -> tuple[Card, ...]:
    """The cards of a code's card part (two characters each)."""
    return tuple(Card.parse(text[i : i + 2]) for i in range(0, len(text), 2))


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the current trick."""

    card: Card
    type: ClassVar[str] = "play"
    letter: ClassVar[str] = "p"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "play", "card": str(self.card)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Play:
        return PLAYS[_card(data).index]

    def code(self) -> str:
        return self.letter + str(self.card)

    @classmethod
    def from_code(cls, code: str) -> Play:
        return PLAYS[Card.parse(code[1:]).index]

    def __str__(self) -> str:
        return f"play {self.card}"


PLAYS: Final = tuple(Play(c) for c in CARDS)
"""The 52 :class:`Play` actions, by card index (shared objects, used on hot paths)."""
PLAY_CODES: Final = tuple(p.code() for p in PLAYS)
"""Their codes, by card index (the log of every play is written on the hot path)."""


@dataclass(frozen=True, slots=True)
class Trump:
    """Name the trump suit (``C D H S``) or, in the ``calls`` preset, a call (``NT``, ``MIZ``)."""

    suit: str
    type: ClassVar[str] = "trump"
    letter: ClassVar[str] = "t"

    def __post_init__(self) -> None:
        if self.suit not in CALLS:
            raise IllegalAction("invalid_suit", f"invalid suit {self.suit!r}")

    @property
    def trump_suit(self) -> Suit | None:
        """The trump :class:`Suit`, or ``None`` for ``NT`` and ``MIZ``."""
        return Suit.parse(self.suit) if len(self.suit) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "trump", "suit": self.suit}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trump:
        suit = data.get("suit")
        if isinstance(suit, Suit):
            suit = suit.symbol
        if not isinstance(suit, str) or suit not in CALLS:
            raise IllegalAction("invalid_suit", f"invalid suit {suit!r}")
        return cls(suit)

    def code(self) -> str:
        return self.letter + self.suit

    @classmethod
    def from_code(cls, code: str) -> Trump:
        return cls(code[1:])

    def __str__(self) -> str:
        return f"trump {self.suit}"


TRUMPS: Final = {call: Trump(call) for call in CALLS}
"""The :class:`Trump` action of each call (shared objects)."""


@dataclass(frozen=True, slots=True)
class Discard:
    """The dealer's discard (4 cards)."""

    cards: tuple[Card, ...]
    type: ClassVar[str] = "discard"
    letter: ClassVar[str] = "d"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "discard", "cards": [str(c) for c in self.cards]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Discard:
        return cls(_card_tuple(data))

    def code(self) -> str:
        return self.letter + _sorted_names(self.cards)

    @classmethod
    def from_code(cls, code: str) -> Discard:
        return cls(_cards_of(code[1:]))

    def __str__(self) -> str:
        return "discard " + " ".join(map(str, self.cards))


@dataclass(frozen=True, slots=True)
class Give:
    """An up player's batch of cards to a down player in the exchange."""

    to: int
    cards: tuple[Card, ...]
    type: ClassVar[str] = "give"
    letter: ClassVar[str] = "g"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "give", "to": self.to, "cards": [str(c) for c in self.cards]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Give:
        to = data.get("to")
        if not _is_int(to):
            raise IllegalAction("wrong_recipient", f"invalid recipient {to!r}")
        assert isinstance(to, int)
        return cls(to, _card_tuple(data))

    def code(self) -> str:
        # Seats are single digits (at most four players).
        return f"{self.letter}{self.to}" + _sorted_names(self.cards)

    @classmethod
    def from_code(cls, code: str) -> Give:
        return cls(int(code[1]), _cards_of(code[2:]))

    def __str__(self) -> str:
        return f"give {self.to} " + " ".join(map(str, self.cards))


@dataclass(frozen=True, slots=True)
class Bid:
    """A Woburn first-hand bid of a number of tricks (8..16)."""

    tricks: int
    type: ClassVar[str] = "bid"
    letter: ClassVar[str] = "b"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "bid", "tricks": self.tricks}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Bid:
        tricks = data.get("tricks")
        if not _is_int(tricks):
            raise IllegalAction("invalid_bid", f"invalid bid {tricks!r}")
        assert isinstance(tricks, int)
        return cls(tricks)

    def code(self) -> str:
        return f"{self.letter}{self.tricks}"

    @classmethod
    def from_code(cls, code: str) -> Bid:
        return cls(int(code[1:]))

    def __str__(self) -> str:
        return f"bid {self.tricks}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass in the Woburn auction."""

    type: ClassVar[str] = "pass"
    letter: ClassVar[str] = "x"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "pass"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pass:
        return cls()

    def code(self) -> str:
        return self.letter

    @classmethod
    def from_code(cls, code: str) -> Pass:
        return cls()

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Swap:
    """``9-5-3-single-kitty``: the holder of 2D gives up ``card`` for the face-up card."""

    card: Card
    type: ClassVar[str] = "swap"
    letter: ClassVar[str] = "s"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "swap", "card": str(self.card)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Swap:
        return cls(_card(data))

    def code(self) -> str:
        return self.letter + str(self.card)

    @classmethod
    def from_code(cls, code: str) -> Swap:
        return cls(Card.parse(code[1:]))

    def __str__(self) -> str:
        return f"swap {self.card}"


@dataclass(frozen=True, slots=True)
class NoSwap:
    """``9-5-3-single-kitty``: the holder of 2D declines the face-up card."""

    type: ClassVar[str] = "no_swap"
    letter: ClassVar[str] = "n"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "no_swap"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NoSwap:
        return cls()

    def code(self) -> str:
        return self.letter

    @classmethod
    def from_code(cls, code: str) -> NoSwap:
        return cls()

    def __str__(self) -> str:
        return "no_swap"


Action: TypeAlias = Play | Trump | Discard | Give | Bid | Pass | Swap | NoSwap
"""Any action."""

ACTION_TYPES: Final[dict[str, Any]] = {
    "play": Play,
    "trump": Trump,
    "discard": Discard,
    "give": Give,
    "bid": Bid,
    "pass": Pass,
    "swap": Swap,
    "no_swap": NoSwap,
}
"""Action ``type`` string -> class."""

ACTION_CLASSES: Final = (Play, Trump, Discard, Give, Bid, Pass, Swap, NoSwap)
"""Every action class (for ``isinstance``)."""

_BY_LETTER: Final[dict[str, Any]] = {cls.letter: cls for cls in ACTION_CLASSES}


def action_type(data: object) -> str:
    """The ``type`` of a JSON action, or raise ``IllegalAction("unknown_action")``."""
    # (A dict is told from the type at once: an ABC isinstance costs several times more.)
    if type(data) is not dict and not isinstance(data, Mapping):
        raise IllegalAction("unknown_action", "an action must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise IllegalAction("unknown_action", f"unknown action type {kind!r}")
    return kind


def action_from_dict(data: object) -> Action:
    """Parse a JSON action (``{"type": "play", "card": "TD"}``) into an :data:`Action`."""
    kind = action_type(data)
    assert isinstance(data, Mapping)
    result: Action = ACTION_TYPES[kind].from_dict(data)
    return result


def action_from_code(code: str) -> Action:
    """The action of a compact code (:meth:`Play.code` and the others)."""
    result: Action = _BY_LETTER[code[0]].from_code(code)
    return result
