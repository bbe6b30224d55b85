"""Who acts, and what they may do: :class:`LegalActions`, a part of
:class:`~games.engine.Game`.

At most one seat acts at any time. Choices of several cards (discards, gives) are lazy
sequences of every combination, so ``random.choice(game.legal_actions(seat))`` stays cheap
however many there are.

>>> from games.engine import Game
>>> game = Game.new("classic", seed="legal")
>>> _ = game.apply(game.dealer, game.legal_actions(game.dealer)[0])   # names clubs
>>> discards = game.legal_actions(game.dealer)
>>> len(discards), discards[0] in discards
(1820, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any, overload

from .actions import CALLS, PLAYS, TRUMPS, Action, Bid, Discard, Give, NoSwap, Pass, Play, Swap
from .cards import CARDS, SUIT_MASKS, Card, card_list, cards_to_str, indices
from .core import TWO_D, GameCore
from .errors import IllegalAction

__all__ = ["LegalActions"]

_PLAYS_OF: dict[int, tuple[Play, ...]] = {}  # (suit << 13 | rank mask) -> plays, filled lazily


def _plays_of(suit: int, part: int) -> tuple[Play, ...]:
    """The plays of the cards of one suit (a 13-bit rank mask), cached."""
    key = (suit << 13) | part
    plays = _PLAYS_OF.get(key)
    if plays is None:
        plays = _PLAYS_OF[key] = tuple(PLAYS[13 * suit + r] for r in range(13) if part >> r & 1)
    return plays


class _LazyActions(Sequence[Action]):
    """An indexable sequence of actions computed on demand; subclasses give ``_item(i)``
    for ``0 <= i < len(self)``, this class handles slices and negative indices."""

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        size = len(self)
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(index)
        return self._item(index)

    def _item(self, index: int) -> Action:
        raise NotImplementedError


class _Combinations(_LazyActions):
    """A lazy, indexable sequence of every choice of ``k`` cards (discards, gives)."""

    def __init__(self, cards: list[int], k: int, make: Callable[[tuple[Card, ...]], Action]):
        self._cards = cards
        self._k = k
        self._make = make
        self._len = comb(len(cards), k)

    def __len__(self) -> int:
        return self._len

    def _item(self, index: int) -> Action:
        # Unrank the index-th k-combination in lexicographic order.
        out: list[Card] = []
        n, k, start = len(self._cards), self._k, 0
        while k:
            for i in range(start, n):
                block = comb(n - i - 1, k - 1)
                if index < block:
                    out.append(CARDS[self._cards[i]])
                    start = i + 1
                    k -= 1
                    break
                index -= block
        return self._make(tuple(out))

    def __iter__(self) -> Iterator[Action]:
        cards = [CARDS[i] for i in self._cards]
        for combo in combinations(cards, self._k):
            yield self._make(combo)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, Discard | Give):
            return False
        idx = sorted({c.index for c in value.cards})
        if len(idx) != self._k or len(value.cards) != self._k or not set(idx) <= set(self._cards):
            return False
        return self._make(tuple(CARDS[i] for i in idx)) == _normalised(value)


def _normalised(action: Discard | Give) -> Action:
    cards = tuple(sorted(action.cards))
    return Give(action.to, cards) if isinstance(action, Give) else Discard(cards)


def _give_maker(to: int) -> Callable[[tuple[Card, ...]], Action]:
    def make(cards: tuple[Card, ...]) -> Action:
        return Give(to, cards)

    return make


class _Chain(_LazyActions):
    """The concatenation of some sequences (several give batches open at once)."""

    def __init__(self, parts: list[Sequence[Action]]):
        self._parts = parts

    def __len__(self) -> int:
        return sum(len(p) for p in self._parts)

    def _item(self, index: int) -> Action:
        for part in self._parts:
            if index < len(part):
                return part[index]
            index -= len(part)
        raise IndexError(index)

    def __iter__(self) -> Iterator[Action]:
        for part in self._parts:
            yield from part


class LegalActions(GameCore):
    """Who is to act and what is legal for them (a part of :class:`~games.engine.Game`)."""

    def _actor(self) -> int | None:
        hand = self._hand
        step = hand.step
        if step == "play":
            return (hand.leader + len(hand.trick)) % self._n
        if step == "over":
            return None
        if step == "bid":
            return hand.bid_turn
        if step == "give":
            return hand.plan[0][0]
        if step in ("trump", "discard"):
            return self._dealer
        # swap: the holder of 2D
        for seat in range(self._n):
            if hand.cards[seat] >> TWO_D & 1:
                return seat
        return None  # pragma: no cover

    def to_act(self) -> list[int]:
        """The seats that may act now, ascending (empty when stopped)."""
        seat = self._actor()
        return [] if seat is None else [seat]

    def to_move(self) -> int | None:
        """The seat to act, or ``None`` (at most one seat acts at any time)."""
        return self._actor()

    def _legal_play_mask(self, seat: int) -> int:
        hand = self._hand
        held = hand.cards[seat]
        if hand.trick:
            suited = held & SUIT_MASKS[hand.trick[0] // 13]
            if suited:
                return suited
        return held

    def _open_batches(self) -> list[list[int]]:
        """The exchange batches that may be given now: ``[giver, receiver, count]``."""
        plan = self._hand.plan
        return plan if self._hand.give_any else plan[:1]

    def _allowed_calls(self) -> list[str]:
        if self._rules.calls:
            used = self._calls_used[self._dealer]
            return [c for c in CALLS if c not in used]
        return ["C", "D", "H", "S"]

    def _min_bid(self) -> int:
        high = self._hand.high
        return 8 if high is None else high[1] + 1

    def legal_actions(self, seat: int) -> Sequence[Action]:
        """Every legal action of ``seat`` now (empty if it is not to act).

        Choices of several cards (discard, give) are a lazy sequence of every combination,
        so ``random.choice(game.legal_actions(seat))`` stays cheap. Plays are listed in card
        order, calls in ``C D H S NT MIZ`` order, ``pass`` before bids, ``no_swap`` before
        swaps.
        """
        if seat != self._actor():
            return ()
        hand = self._hand
        step = hand.step
        if step == "play":
            held = hand.cards[seat]
            if hand.trick:
                led = hand.trick[0] // 13
                part = (held >> (13 * led)) & 0x1FFF
                if part:
                    return _plays_of(led, part)
            out: list[Action] = []
            for s in range(4):
                part = (held >> (13 * s)) & 0x1FFF
                if part:
                    out.extend(_plays_of(s, part))
            return out
        if step == "trump":
            return [TRUMPS[c] for c in self._allowed_calls()]
        if step == "discard":
            return _Combinations(indices(hand.cards[seat]), self._rules.kitty_size, Discard)
        if step == "give":
            cards = indices(hand.cards[seat])
            parts: list[Sequence[Action]] = []
            for _, to, count in self._open_batches():
                parts.append(_Combinations(cards, count, _give_maker(to)))
            return parts[0] if len(parts) == 1 else _Chain(parts)
        if step == "bid":
            return [Pass()] + [Bid(t) for t in range(self._min_bid(), 17)]
        if step == "swap":
            return [NoSwap()] + [Swap(c) for c in card_list(hand.cards[seat])]
        return ()  # pragma: no cover

    def legal_summary(self, seat: int) -> list[dict[str, Any]]:
        """docs/api.md ``legal_actions``: one entry per play, call, bid or swap; one entry with a
        ``count`` for a choice of several cards (``{"type": "discard", "count": 4}``,
        ``{"type": "give", "to": 0, "count": 2}``)."""
        if seat != self._actor():
            return []
        step = self._hand.step
        if step == "discard":
            return [{"type": "discard", "count": self._rules.kitty_size}]
        if step == "give":
            return [{"type": "give", "to": to, "count": k} for _, to, k in self._open_batches()]
        return [a.to_dict() for a in self.legal_actions(seat)]

    def legal_plays(self) -> list[str] | None:
        """docs/replay.md ``legal_plays``: the sorted legal cards of the seat to play, else None."""
        hand = self._hand
        if hand.step != "play":
            return None
        return cards_to_str(self._legal_play_mask((hand.leader + len(hand.trick)) % self._n))

    def fallback_action(self, seat: int) -> Action:
        """docs/api.md timeout rule: the lowest legal card by rank (ties by suit ``C D H S``);
        elsewhere the first legal choice, and for a choice of several cards the lowest ones.
        Raises ``IllegalAction("not_your_turn")`` if ``seat`` is not to act."""
        if seat != self._actor():
            raise IllegalAction("not_your_turn", f"seat {seat} is not to act")
        step = self._hand.step

        def lowest(mask: int, k: int) -> tuple[Card, ...]:
            chosen = sorted(indices(mask), key=lambda i: (i % 13, i // 13))[:k]
            return tuple(CARDS[i] for i in sorted(chosen))

        if step == "play":
            return Play(lowest(self._legal_play_mask(seat), 1)[0])
        if step == "discard":
            return Discard(lowest(self._hand.cards[seat], self._rules.kitty_size))
        if step == "give":
            _, to, count = self._open_batches()[0]
            return Give(to, lowest(self._hand.cards[seat], count))
        return self.legal_actions(seat)[0]
