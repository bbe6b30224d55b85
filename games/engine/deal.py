"""Deterministic deals from a seed, and explicit deals.

The shuffle (documented, so any implementation can reproduce a seeded game):

* A *word stream* for a label is the concatenation of
  ``SHA-256(f"sergeant-major|{seed}|{label}|{k}")`` for ``k = 0, 1, 2, ...`` (UTF-8, ``seed``
  written with ``str()``), read as big-endian unsigned 64-bit words.
* ``uniform(m)`` takes the next word ``w``, rejecting it while
  ``w >= 2**64 - (2**64 % m)``, and returns ``w % m`` (exactly uniform).
* The first dealer is ``uniform(players)`` on the stream labelled ``"first-dealer"``.
* Deal number ``d`` (0 for the first deal of the game, counting Woburn redeals) shuffles the
  preset's deck, listed in card-index order (``2C 3C ... AC 2D ... AS`` less removed cards),
  with Fisher-Yates on the stream labelled ``f"deal-{d}"``: for ``i`` from ``len - 1`` down to
  1, swap positions ``i`` and ``uniform(i + 1)``.
* The shuffled deck is dealt from its start: ``deal_packet`` cards (1 or 4; fewer when a hand
  is nearly full) at a time to each player in turn, starting with the player left of the
  dealer, until every hand is full; the remaining cards (the end of the deck) form the kitty.

>>> from games.engine import Rules
>>> deal = seeded_deal("demo", 0, rules=Rules.from_preset("classic"), dealer=0)
>>> [hand.bit_count() for hand in deal.hands], deal.kitty.bit_count()
([16, 16, 16], 4)
>>> len(deal.to_dict()["kitty"])
4
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from hashlib import sha256
from struct import Struct
from typing import Any

from .cards import Card, cards_to_str, indices, mask_of
from .errors import DealError, IllegalAction
from .rules import Rules

__all__ = [
    "Deal",
    "WordStream",
    "first_dealer",
    "seed_commitment",
    "seeded_deal",
    "shuffled_deck",
]

_LIMIT = 1 << 64
_FOUR_WORDS = Struct(">4Q")
_BIT = tuple(1 << i for i in range(52))
_BOUNDS = tuple(_LIMIT - (_LIMIT % m) if m else 0 for m in range(53))  # rejection bounds


def seed_commitment(seed: int | str) -> str:
    """The commitment to ``seed`` that a game shows from its start: the lowercase hex
    SHA-256 of ``str(seed)`` as UTF-8 bytes (docs/rules.md, "Fair and verifiable deals")."""
    return sha256(str(seed).encode("utf-8")).hexdigest()


class WordStream:
    """The SHA-256 counter-mode stream of 64-bit words for ``(seed, label)``."""

    __slots__ = ("_buffer", "_counter", "_prefix")

    def __init__(self, seed: int | str, label: str) -> None:
        self._prefix = f"sergeant-major|{seed}|{label}|"
        self._counter = 0
        self._buffer: list[int] = []

    def word(self) -> int:
        if not self._buffer:
            digest = sha256(f"{self._prefix}{self._counter}".encode()).digest()
            self._counter += 1
            self._buffer = list(_FOUR_WORDS.unpack(digest))[::-1]
        return self._buffer.pop()

    def uniform(self, m: int) -> int:
        """A uniform integer in ``0..m-1``."""
        bound = _LIMIT - (_LIMIT % m)
        while True:
            w = self.word()
            if w < bound:
                return w % m


def first_dealer(seed: int | str, players: int) -> int:
    """The first dealer drawn from the seed."""
    return WordStream(seed, "first-dealer").uniform(players)


def shuffled_deck(seed: int | str, deal_number: int, deck: int) -> list[int]:
    """The card indices of ``deck`` (a mask) shuffled for deal number ``deal_number``."""
    order = indices(deck)
    prefix = f"sergeant-major|{seed}|deal-{deal_number}|"
    # Enough words for the usual case at once (4 per digest); more on (rare) rejections.
    words: list[int] = []
    blocks = 0
    while len(words) < len(order):
        words.extend(_FOUR_WORDS.unpack(sha256(f"{prefix}{blocks}".encode()).digest()))
        blocks += 1
    pos = 0
    bounds = _BOUNDS
    for i in range(len(order) - 1, 0, -1):
        m = i + 1
        bound = bounds[m]
        while True:
            if pos == len(words):  # pragma: no cover - rejections are very rare
                words.extend(_FOUR_WORDS.unpack(sha256(f"{prefix}{blocks}".encode()).digest()))
                blocks += 1
            w = words[pos]
            pos += 1
            if w < bound:
                break
        j = w % m
        order[i], order[j] = order[j], order[i]
    return order


@dataclass(frozen=True)
class Deal:
    """The cards of one deal: ``hands[seat]`` (masks) and the ``kitty`` (mask)."""

    hands: tuple[int, ...]
    kitty: int

    def to_dict(self) -> dict[str, Any]:
        """docs/replay.md form: ``{"hands": [[...], ...], "kitty": [...]}`` with sorted cards."""
        return {"hands": [cards_to_str(h) for h in self.hands], "kitty": cards_to_str(self.kitty)}

    @classmethod
    def from_cards(cls, hands: Sequence[Sequence[Card]], kitty: Sequence[Card]) -> Deal:
        return cls(tuple(mask_of(h) for h in hands), mask_of(kitty))

    @classmethod
    def from_dict(cls, data: object, rules: Rules) -> Deal:
        """Parse and validate a docs/replay.md deal; raises :class:`DealError`."""
        if not isinstance(data, Mapping):
            raise DealError("a deal must be an object with 'hands' and 'kitty'")
        hands_raw = data.get("hands")
        kitty_raw = data.get("kitty", [])
        if not isinstance(hands_raw, list) or not all(isinstance(h, list) for h in hands_raw):
            raise DealError("'hands' must be a list of lists of cards")
        if not isinstance(kitty_raw, list):
            raise DealError("'kitty' must be a list of cards")
        try:
            hands = [[Card.parse(c) for c in h] for h in hands_raw]
            kitty = [Card.parse(c) for c in kitty_raw]
        except IllegalAction as error:
            raise DealError(str(error)) from None
        deal = cls.from_cards(hands, kitty)
        deal.validate(rules, counts=[len(h) for h in hands], kitty_count=len(kitty))
        return deal

    def validate(
        self, rules: Rules, counts: Sequence[int] | None = None, kitty_count: int | None = None
    ) -> None:
        """Check sizes and that the deal is a partition of the preset's deck."""
        n = rules.players
        if len(self.hands) != n:
            raise DealError(f"a deal needs {n} hands, not {len(self.hands)}")
        counts = list(counts) if counts is not None else [h.bit_count() for h in self.hands]
        kitty_count = kitty_count if kitty_count is not None else self.kitty.bit_count()
        for seat, count in enumerate(counts):
            if count != rules.hand_size:
                raise DealError(
                    f"hand {seat} has {count} cards; preset {rules.preset!r} deals "
                    f"{rules.hand_size}"
                )
        if kitty_count != rules.kitty_size:
            raise DealError(
                f"the kitty has {kitty_count} cards; preset {rules.preset!r} needs "
                f"{rules.kitty_size}"
            )
        seen = 0
        total = 0
        for part in (*self.hands, self.kitty):
            seen |= part
            total += part.bit_count()
        if total != sum(counts) + kitty_count or seen.bit_count() != total:
            raise DealError("a card appears twice in the deal")
        if seen != rules.deck:
            extra = cards_to_str(seen & ~rules.deck)
            missing = cards_to_str(rules.deck & ~seen)
            detail = f"extra {extra}" if extra else f"missing {missing}"
            raise DealError(f"the deal is not a partition of the {rules.preset!r} deck ({detail})")


def deal_order(order: Sequence[int], rules: Rules, dealer: int) -> Deal:
    """Deal an ordered deck per ``rules.deal_packet`` starting left of ``dealer``."""
    n = rules.players
    size = rules.hand_size
    packet = rules.deal_packet
    bit = _BIT.__getitem__
    hands = [0] * n
    if packet == 1:
        for i in range(n):
            hands[(dealer + 1 + i) % n] = sum(map(bit, order[i : n * size : n]))
    else:
        counts = [0] * n
        pos = 0
        seat = (dealer + 1) % n
        while pos < n * size:
            take = min(packet, size - counts[seat])
            hands[seat] |= sum(map(bit, order[pos : pos + take]))
            counts[seat] += take
            pos += take
            seat = (seat + 1) % n
    return Deal(tuple(hands), sum(map(bit, order[n * size :])))


def seeded_deal(seed: int | str, deal_number: int, *, rules: Rules, dealer: int) -> Deal:
    """Deal number ``deal_number`` of the game seeded with ``seed`` (dealt by ``dealer``)."""
    return deal_order(shuffled_deck(seed, deal_number, rules.deck), rules, dealer)
