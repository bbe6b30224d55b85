"""Suits, cards and card sets (bit masks).

A card is written rank then suit (docs/rules.md "Notation"): ranks ``23456789TJQKA`` (ace high),
suits ``CDHS``. Every card has an integer :attr:`Card.index` = ``suit * 13 + rank`` with
clubs, diamonds, hearts, spades = 0..3 and ranks 2..A = 0..12, so sorting by index is the
spec's sort order (suit ``C D H S``, then rank low to high). A set of cards is an ``int`` bit
mask with bit ``index`` set for each card (at most 52 bits, safe in JSON numbers).

>>> card = Card.parse("TD")
>>> card.suit, card.rank, card.index, str(card)
(<Suit.DIAMONDS: 1>, 8, 21, 'TD')
>>> Card.parse("AS") > card
True
>>> cards_to_str(mask_of(parse_cards(["AS", "2C"])))
['2C', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final, final

from .errors import IllegalAction

__all__ = [
    "CARDS",
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "SUIT_MASKS",
    "Card",
    "Suit",
    "card_list",
    "cards_to_str",
    "high_cards",
    "index_of",
    "indices",
    "mask_of",
    "parse_cards",
]

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"


class Suit(IntEnum):
    """A suit: ``C D H S`` = 0..3. ``str(Suit.HEARTS) == "H"``."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The one-letter spec symbol, ``"C"``, ``"D"``, ``"H"`` or ``"S"``."""
        return SUITS[self.value]

    def __str__(self) -> str:
        return SUITS[self.value]

    @classmethod
    def parse(cls, text: object) -> Suit:
        """Parse ``"C"``, ``"D"``, ``"H"`` or ``"S"``; anything else is ``invalid_suit``."""
        if isinstance(text, str) and len(text) == 1 and text in SUITS:
            return cls(SUITS.index(text))
        raise IllegalAction("invalid_suit", f"invalid suit {text!r}")


_CARD_CACHE: list[Card] = []


@final
class Card:
    """An immutable playing card. There is exactly one object per card (flyweight).

    >>> Card.parse("AS") is Card(51)
    True
    >>> Card.of("Q", "H")
    Card('QH')
    """

    __slots__ = ("_index",)
    _index: int

    def __new__(cls, index: int) -> Card:
        if type(index) is not int or not 0 <= index < 52:
            raise ValueError(f"card index must be an int in 0..51, not {index!r}")
        return _CARD_CACHE[index]

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "_index", index)
        return card

    @classmethod
    def parse(cls, text: object) -> Card:
        """Parse a two-character card (``"TD"``); anything else is ``card_not_in_hand``."""
        if isinstance(text, str):
            card = _BY_NAME.get(text)
            if card is not None:
                return card
        raise IllegalAction("card_not_in_hand", f"invalid card {text!r}")

    @classmethod
    def of(cls, rank: str | int, suit: str | int | Suit) -> Card:
        """The card of a rank (``"T"`` or 0..12) and a suit (``"D"``, 0..3 or a :class:`Suit`)."""
        r = RANKS.index(rank) if isinstance(rank, str) else rank
        s = SUITS.index(suit) if isinstance(suit, str) and not isinstance(suit, Suit) else suit
        if not (0 <= int(r) < 13 and 0 <= int(s) < 4):
            raise ValueError(f"bad rank or suit: {rank!r}, {suit!r}")
        return _CARD_CACHE[int(s) * 13 + int(r)]

    @property
    def index(self) -> int:
        """``suit * 13 + rank``, 0..51."""
        return self._index

    @property
    def suit(self) -> Suit:
        return _SUIT_VALUES[self._index // 13]

    @property
    def rank(self) -> int:
        """0 (two) .. 12 (ace)."""
        return self._index % 13

    @property
    def mask(self) -> int:
        """The one-bit mask of this card."""
        return 1 << self._index

    def __str__(self) -> str:
        return _NAMES[self._index]

    def __repr__(self) -> str:
        return f"Card({_NAMES[self._index]!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other._index == self._index

    def __hash__(self) -> int:
        return self._index

    def __lt__(self, other: Card) -> bool:
        return self._index < other._index

    def __le__(self, other: Card) -> bool:
        return self._index <= other._index

    def __gt__(self, other: Card) -> bool:
        return self._index > other._index

    def __ge__(self, other: Card) -> bool:
        return self._index >= other._index

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self._index,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_SUIT_VALUES: Final = tuple(Suit)
_NAMES: Final = tuple(RANKS[i % 13] + SUITS[i // 13] for i in range(52))
_CARD_CACHE.extend(Card._make(i) for i in range(52))
CARDS: Final[tuple[Card, ...]] = tuple(_CARD_CACHE)
"""All 52 cards in index order."""
_BY_NAME: Final = {name: CARDS[i] for i, name in enumerate(_NAMES)}
FULL_DECK: Final = (1 << 52) - 1
SUIT_MASKS: Final = tuple(0x1FFF << (13 * s) for s in range(4))

# For masks of one suit (13 bits): the ranks set, ascending.
_RANKS_OF: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(r for r in range(13) if m >> r & 1) for m in range(1 << 13)
)


# Per suit, for masks of one suit: the card indices, ascending. Built ready-made because
# indices() is the innermost call of the house bots' playouts (a few MB, built once).
_INDICES_OF: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(13 * s + r for r in ranks) for ranks in _RANKS_OF) for s in range(4)
)


def index_of(card: Card | str | int) -> int:
    """The index of a card given as a :class:`Card`, its string (``"TD"``) or its index."""
    if isinstance(card, Card):
        return card.index
    if isinstance(card, str):
        return Card.parse(card).index
    return int(card)


def indices(mask: int) -> list[int]:
    """The card indices in ``mask``, ascending (spec sort order)."""
    out: list[int] = []
    for s in range(4):
        part = (mask >> (13 * s)) & 0x1FFF
        if part:
            out.extend(_INDICES_OF[s][part])
    return out


def card_list(mask: int) -> list[Card]:
    """The cards of ``mask`` sorted in spec order."""
    return [CARDS[i] for i in indices(mask)]


_NAMES_OF: dict[int, tuple[str, ...]] = {}  # (suit << 13 | rank mask) -> names, lazily


def cards_to_str(mask: int) -> list[str]:
    """The cards of ``mask`` as sorted strings, e.g. ``["2C", "AS"]``."""
    out: list[str] = []
    for s in range(4):
        part = (mask >> (13 * s)) & 0x1FFF
        if part:
            key = (s << 13) | part
            names = _NAMES_OF.get(key)
            if names is None:
                names = _NAMES_OF[key] = tuple(_NAMES[13 * s + r] for r in _RANKS_OF[part])
            out.extend(names)
    return out


def mask_of(cards: Iterable[Card]) -> int:
    """The bit mask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def parse_cards(texts: Iterable[object]) -> list[Card]:
    """Parse card strings; an invalid one raises ``IllegalAction("card_not_in_hand")``."""
    return [Card.parse(t) for t in texts]


def high_cards(mask: int, suit: int, count: int) -> int:
    """The mask of the ``count`` highest cards of ``suit`` in ``mask`` (fewer if short)."""
    part = (mask >> (13 * suit)) & 0x1FFF
    out = 0
    for r in reversed(_RANKS_OF[part]):
        if count <= 0:
            break
        out |= 1 << (13 * suit + r)
        count -= 1
    return out


def name(index: int) -> str:
    """The string of a card index (``21 -> "TD"``)."""
    return _NAMES[index]
