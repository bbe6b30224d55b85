"""The game state machine: one loop for every preset.

>>> from games.engine import Game, Rules
>>> game = Game.new(Rules.from_preset("classic"), seed="doc")
>>> game.phase, game.to_act() == [game.dealer]
('trump', True)
>>> events = game.apply(game.dealer, game.fallback_action(game.dealer))   # names clubs
>>> game.legal_summary(game.dealer)
[{'type': 'discard', 'count': 4}]

A hand goes through *steps*. Interactive steps wait for an action and are the ``phase``:
``bid`` (Woburn), ``give`` (phase ``exchange``), ``trump``, ``discard``, ``swap``, ``play``;
automatic steps run inside :meth:`Game.apply`: ``take`` (the dealer takes the kitty, with the
dealer's disclosure) and ``returns`` (9-5-2-tallyn's returns after trump). Returns in the
exchange are made as soon as the rules say (after each batch, or after the last one).
When a hand ends, the next one is dealt at once (or the game ends), all within the
``apply`` that played the last card.

Errors: :meth:`Game.apply` and :meth:`Game.apply_dict` raise
:class:`~games.engine.errors.IllegalAction` (with ``.code``) and change nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any, Final, overload

from .actions import (
    CALLS,
    PLAY_CODES,
    PLAYS,
    Action,
    Bid,
    Discard,
    Give,
    NoSwap,
    Pass,
    Play,
    Swap,
    Trump,
    action_from_code,
    action_type,
)
from .cards import CARDS, SUIT_MASKS, Card, card_list, cards_to_str, high_cards, indices, name
from .deal import Deal, first_dealer, seeded_deal
from .errors import IllegalAction, StateError
from .events import Event
from .rules import WOBURN_TARGETS, Rules

__all__ = ["PHASES", "Game", "Outcome", "trick_winner"]

PHASES: Final = ("bid", "exchange", "trump", "discard", "swap", "play", "over")
"""Every value of :attr:`Game.phase` (REPLAY.md step phases)."""

_PHASE_OF_STEP: Final = {
    "bid": "bid",
    "give": "exchange",
    "trump": "trump",
    "discard": "discard",
    "swap": "swap",
    "play": "play",
    "over": "over",
}
_TYPES_OF_STEP: Final[dict[str, tuple[str, ...]]] = {
    "bid": ("bid", "pass"),
    "give": ("give",),
    "trump": ("trump",),
    "discard": ("discard",),
    "swap": ("swap", "no_swap"),
    "play": ("play",),
    "over": (),
}
_TWO_D: Final = 13  # index of 2D
_NAMES: Final = tuple(name(i) for i in range(52))
_STATE_VERSION: Final = 2
#: The version of a state whose journal was partly detached (:meth:`Game.detach_journal`):
#: a reader that does not know it must not take it for a whole game.
_DETACHED_STATE_VERSION: Final = 3
#: What a view shows of each finished hand (``previous_hands``), and all a state keeps of
#: a hand whose journal was detached.
_HAND_SUMMARY: Final = ("dealer", "targets", "trump", "tricks", "diffs")
_PLAYS_OF: dict[int, tuple[Play, ...]] = {}  # (suit << 13 | rank mask) -> plays, filled lazily


def _plays_of(suit: int, part: int) -> tuple[Play, ...]:
    """The plays of the cards of one suit (a 13-bit rank mask), cached."""
    key = (suit << 13) | part
    plays = _PLAYS_OF.get(key)
    if plays is None:
        plays = _PLAYS_OF[key] = tuple(PLAYS[13 * suit + r] for r in range(13) if part >> r & 1)
    return plays


def trick_winner(cards: Sequence[int], leader: int, players: int, trump: int) -> int:
    """The seat winning a trick of card indices led by ``leader`` (``trump`` = -1: none)."""
    best = 0
    top = cards[0]
    for i in range(1, len(cards)):
        c = cards[i]
        if c // 13 == top // 13:
            if c > top:
                best, top = i, c
        elif c // 13 == trump:
            best, top = i, c
    return (leader + best) % players


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game (RULES.md "Standings for a game").

    ``ranks[seat]`` are competition ranks (1 is best; equal scores share a rank; the seat
    that met the winning condition ranks first alone). ``reason`` is ``"tricks"`` (a trick
    target, or all tricks), ``"score"``, ``"calls"`` (the 18 hands of ``calls``) or
    ``"max_hands"``.
    """

    winner: int | None
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    hands_played: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "hands_played": self.hands_played,
            "reason": self.reason,
        }


def _ranks(scores: Sequence[int], first: int | None) -> tuple[int, ...]:
    out = []
    for seat, score in enumerate(scores):
        if seat == first:
            out.append(1)
            continue
        others = [s for i, s in enumerate(scores) if i != first]
        out.append(1 + (first is not None) + sum(1 for s in others if s > score))
    return tuple(out)


def _illegal(code: str, message: str | None = None) -> IllegalAction:
    return IllegalAction(code, message)


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
        from itertools import combinations

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


def _recipient_key(
    giver: int, n: int, need: dict[int, int], given_to: set[int]
) -> Callable[[int], tuple[int, bool, bool, int]]:
    """Four-handed plucking: most needed, then not yet given to, not on the giver's left,
    first clockwise from the giver."""

    def key(d: int) -> tuple[int, bool, bool, int]:
        return (-need[d], d in given_to, d == (giver + 1) % n, (d - giver) % n)

    return key


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


class Game:
    """A game of Sergeant Major: state, legal actions, views, serialisation.

    Create one with :meth:`Game.new` (a seeded, reproducible deal sequence) or
    :meth:`Game.from_deals` (explicit deals, as in replay files); load a stored one with
    :meth:`Game.from_json`. Then loop: :meth:`to_act`, :meth:`legal_actions`,
    :meth:`apply`, until :meth:`is_over`, and read :meth:`outcome`.
    """

    # ------------------------------------------------------------------ construction
    def __init__(
        self, rules: Rules, *, seed: int | str | None, deals: Sequence[Deal | None] | None
    ) -> None:
        """Use :meth:`new`, :meth:`from_deals` or :meth:`from_json` instead."""
        self._rules = rules
        self._n = rules.players
        self._seed = seed
        # Explicit deals by deal number (None: one dealt in a detached part of the journal).
        self._deals = None if deals is None else list(deals)
        self._first_dealer = 0
        self._deal_number = -1
        self._dealer = 0
        self._scores = [0] * self._n
        # The journal: what only grows, and what only the record reads in full (every
        # hand's results, every deal, every action). ``_history`` holds every finished
        # hand; the first ``_absent[2]`` of them only as their summary. ``_deal_log`` and
        # ``_log`` hold the deals and actions after the first ``_absent[0:2]``. Those absent
        # parts were detached from the state it was loaded from (see detach_journal).
        self._history: list[dict[str, Any]] = []
        self._deal_log: list[list[int]] = []
        self._log: list[str] = []
        self._absent: tuple[int, int, int] = (0, 0, 0)
        # How much of the journal (deals, actions, hands) the state leaves out: what
        # detach_journal handed out. Never less than ``_absent``.
        self._detached: tuple[int, int, int] = (0, 0, 0)
        self._calls_used: list[list[str]] = [[] for _ in range(self._n)]
        self._prev_diffs: list[int] | None = None
        self._over = False
        self._stopped = False
        self._win_seat: int | None = None
        self._end_reason: str | None = None
        # Events of the start (first deal), kept for opening_events(); not serialised.
        self._opening: list[Event] = []
        self._reset_hand()

    def _reset_hand(self) -> None:
        n = self._n
        self._step = "over"
        self._steps: list[str] = []
        self._targets: list[int] | None = None
        self._hands = [0] * n
        self._kitty = 0
        self._kitty_cards = 0
        self._kitty_taken = False
        self._discards = 0
        self._faceup = -1
        self._swapped = -1
        self._swapper = -1
        self._trump: str | None = None
        self._trump_suit = -1
        self._plan: list[list[int]] = []
        self._give_any = False
        self._return_mode = "immediate"
        self._batches: list[list[int]] = []
        self._disclosures: list[list[int]] = []
        self._bids: list[list[int]] = []
        self._passed = [False] * n
        self._high: list[int] | None = None
        self._bid_turn = 0
        self._leader = 0
        self._trick: list[int] = []
        self._tricks = [0] * n
        self._played: list[int] = []
        self._leaders: list[int] = []

    @classmethod
    def new(cls, rules: Rules | str | Mapping[str, Any] = "classic", seed: int | str = 0) -> Game:
        """A new game whose deals and first dealer come from ``seed`` (see :mod:`.deal`)."""
        rules = Rules.from_dict(rules)
        if type(seed) not in (int, str):
            raise TypeError("seed must be an int or a str")
        game = cls(rules, seed=seed, deals=None)
        game._first_dealer = game._dealer = first_dealer(seed, rules.players)
        game._start_hand(game._opening)
        return game

    @classmethod
    def from_deals(
        cls,
        rules: Rules | str | Mapping[str, Any],
        deals: Sequence[Deal | Mapping[str, Any]],
        first_dealer: int = 0,
    ) -> Game:
        """A game played with explicit deals (REPLAY.md); it stops when they run out."""
        rules = Rules.from_dict(rules)
        parsed = [d if isinstance(d, Deal) else Deal.from_dict(d, rules) for d in deals]
        for deal in parsed:
            deal.validate(rules)
        if type(first_dealer) is not int or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{rules.players - 1}")
        game = cls(rules, seed=None, deals=parsed)
        game._first_dealer = game._dealer = first_dealer
        game._start_hand(game._opening)
        return game

    def opening_events(self) -> list[Event]:
        """The events of the game's start (the first ``hand_start`` and ``deal`` events, and
        anything automatic after them), which :meth:`new` and :meth:`from_deals` make before
        any action. The platform stores them when it creates a game. A game loaded with
        :meth:`from_json` has none."""
        return list(self._opening)

    # ------------------------------------------------------------------ simple queries
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def players(self) -> int:
        return self._n

    @property
    def seed(self) -> int | str | None:
        return self._seed

    @property
    def phase(self) -> str:
        """One of :data:`PHASES`."""
        return _PHASE_OF_STEP[self._step]

    @property
    def hand_number(self) -> int:
        """1 for the first hand (Woburn redeals do not count)."""
        return len(self._history) + 1

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def targets(self) -> list[int] | None:
        """Targets by seat for this hand (``None`` during the Woburn auction)."""
        return None if self._targets is None else list(self._targets)

    @property
    def trump(self) -> str | None:
        """``"C" "D" "H" "S"``, ``"NT"``/``"MIZ"`` (calls), or ``None`` before it is named."""
        return self._trump

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    @property
    def tricks(self) -> list[int]:
        """Tricks won so far in this hand, by seat."""
        return list(self._tricks)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The completed hands in REPLAY.md output form."""
        self._require_whole_journal()
        return json.loads(json.dumps(self._history))  # type: ignore[no-any-return]

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now (sorted). Hidden information: see :meth:`view`."""
        return card_list(self._hands[seat])

    def hand_mask(self, seat: int) -> int:
        return self._hands[seat]

    def current_trick(self) -> list[tuple[int, Card]]:
        """``(seat, card)`` pairs of the trick in progress."""
        return [((self._leader + i) % self._n, CARDS[c]) for i, c in enumerate(self._trick)]

    @property
    def leader(self) -> int:
        """The seat leading the current trick (play phase)."""
        return self._leader

    def is_over(self) -> bool:
        """Has the game ended by its rules (not just run out of explicit deals)?"""
        return self._over

    def is_stopped(self) -> bool:
        """No action can be made: the game is over, or an explicit-deal game ran out of deals."""
        return self._step == "over"

    def _actor(self) -> int | None:
        step = self._step
        if step == "play":
            return (self._leader + len(self._trick)) % self._n
        if step == "over":
            return None
        if step == "bid":
            return self._bid_turn
        if step == "give":
            return self._plan[0][0]
        if step in ("trump", "discard"):
            return self._dealer
        # swap: the holder of 2D
        for seat in range(self._n):
            if self._hands[seat] >> _TWO_D & 1:
                return seat
        return None  # pragma: no cover

    def to_act(self) -> list[int]:
        """The seats that may act now, ascending (empty when stopped)."""
        seat = self._actor()
        return [] if seat is None else [seat]

    def to_move(self) -> int | None:
        """The seat to act, or ``None`` (at most one seat acts at any time)."""
        return self._actor()

    # ------------------------------------------------------------------ legal actions
    def _legal_play_mask(self, seat: int) -> int:
        hand = self._hands[seat]
        if self._trick:
            suited = hand & SUIT_MASKS[self._trick[0] // 13]
            if suited:
                return suited
        return hand

    def _open_batches(self) -> list[list[int]]:
        return self._plan if self._give_any else self._plan[:1]

    def _allowed_calls(self) -> list[str]:
        if self._rules.calls:
            used = self._calls_used[self._dealer]
            return [c for c in CALLS if c not in used]
        return ["C", "D", "H", "S"]

    def _min_bid(self) -> int:
        return 8 if self._high is None else self._high[1] + 1

    def legal_actions(self, seat: int) -> Sequence[Action]:
        """Every legal action of ``seat`` now (empty if it is not to act).

        Choices of several cards (discard, give) are a lazy sequence of every combination,
        so ``random.choice(game.legal_actions(seat))`` stays cheap. Plays are listed in card
        order, calls in ``C D H S NT MIZ`` order, ``pass`` before bids, ``no_swap`` before
        swaps.
        """
        if seat != self._actor():
            return ()
        step = self._step
        if step == "play":
            hand = self._hands[seat]
            if self._trick:
                led = self._trick[0] // 13
                part = (hand >> (13 * led)) & 0x1FFF
                if part:
                    return _plays_of(led, part)
            out: list[Action] = []
            for s in range(4):
                part = (hand >> (13 * s)) & 0x1FFF
                if part:
                    out.extend(_plays_of(s, part))
            return out
        if step == "trump":
            return [Trump(c) for c in self._allowed_calls()]
        if step == "discard":
            return _Combinations(indices(self._hands[seat]), self._rules.kitty_size, Discard)
        if step == "give":
            cards = indices(self._hands[seat])
            parts: list[Sequence[Action]] = []
            for _, to, count in self._open_batches():
                parts.append(_Combinations(cards, count, _give_maker(to)))
            return parts[0] if len(parts) == 1 else _Chain(parts)
        if step == "bid":
            return [Pass()] + [Bid(t) for t in range(self._min_bid(), 17)]
        if step == "swap":
            return [NoSwap()] + [Swap(c) for c in card_list(self._hands[seat])]
        return ()  # pragma: no cover

    def legal_summary(self, seat: int) -> list[dict[str, Any]]:
        """API.md ``legal_actions``: one entry per play, call, bid or swap; one entry with a
        ``count`` for a choice of several cards (``{"type": "discard", "count": 4}``,
        ``{"type": "give", "to": 0, "count": 2}``)."""
        if seat != self._actor():
            return []
        step = self._step
        if step == "discard":
            return [{"type": "discard", "count": self._rules.kitty_size}]
        if step == "give":
            return [{"type": "give", "to": to, "count": k} for _, to, k in self._open_batches()]
        return [a.to_dict() for a in self.legal_actions(seat)]

    def legal_plays(self) -> list[str] | None:
        """REPLAY.md ``legal_plays``: the sorted legal cards of the seat to play, else None."""
        if self._step != "play":
            return None
        return cards_to_str(self._legal_play_mask((self._leader + len(self._trick)) % self._n))

    def fallback_action(self, seat: int) -> Action:
        """API.md timeout rule: the lowest legal card by rank (ties by suit ``C D H S``);
        elsewhere the first legal choice, and for a choice of several cards the lowest ones.
        Raises ``IllegalAction("not_your_turn")`` if ``seat`` is not to act."""
        if seat != self._actor():
            raise _illegal("not_your_turn", f"seat {seat} is not to act")
        step = self._step

        def lowest(mask: int, k: int) -> tuple[Card, ...]:
            chosen = sorted(indices(mask), key=lambda i: (i % 13, i // 13))[:k]
            return tuple(CARDS[i] for i in sorted(chosen))

        if step == "play":
            return Play(lowest(self._legal_play_mask(seat), 1)[0])
        if step == "discard":
            return Discard(lowest(self._hands[seat], self._rules.kitty_size))
        if step == "give":
            _, to, count = self._open_batches()[0]
            return Give(to, lowest(self._hands[seat], count))
        return self.legal_actions(seat)[0]

    # ------------------------------------------------------------------ applying actions
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Make ``action`` for ``seat``; return the events it caused (including automatic
        steps and the next deal). Raises :class:`IllegalAction` and changes nothing if the
        action is not legal."""
        if type(action) is Play:
            return self._play(seat, action.card._index)
        if not hasattr(action, "to_dict"):
            raise _illegal("unknown_action", f"not an action: {action!r}")
        return self.apply_dict(seat, action.to_dict())

    def apply_dict(self, seat: object, data: object) -> list[Event]:
        """Apply a JSON action (REPLAY.md / API.md form) for ``seat``.

        Errors follow REPLAY.md's precedence: ``unknown_action``, ``not_your_turn`` (also a
        ``seat`` that is not an int), ``wrong_phase``, then the type's own checks.
        """
        kind = action_type(data)
        assert isinstance(data, Mapping)
        actor = self._actor()
        if type(seat) is not int or seat != actor:
            raise _illegal("not_your_turn", f"seat {seat!r} is not to act")
        if kind not in _TYPES_OF_STEP[self._step]:
            raise _illegal("wrong_phase", f"a {kind} action is not possible in the {self.phase}")
        if kind == "play":
            return self._play(seat, Card.parse(data.get("card")).index)
        handler = getattr(self, "_do_" + kind)
        events: list[Event] = handler(seat, data)
        return events

    # -- play ------------------------------------------------------------------------
    def _play(self, seat: int, idx: int) -> list[Event]:
        if self._step != "play":
            if seat != self._actor():
                raise _illegal("not_your_turn", f"seat {seat} is not to act")
            raise _illegal("wrong_phase", f"a play is not possible in the {self.phase}")
        n = self._n
        trick = self._trick
        if seat != (self._leader + len(trick)) % n:
            raise _illegal("not_your_turn", f"seat {seat} is not to act")
        hand = self._hands[seat]
        if not hand >> idx & 1:
            raise _illegal("card_not_in_hand", f"{_NAMES[idx]} is not in seat {seat}'s hand")
        if trick:
            led = trick[0] // 13
            if idx // 13 != led and hand & SUIT_MASKS[led]:
                raise _illegal("must_follow_suit", f"seat {seat} must follow {'CDHS'[led]}")
        # -- legal: change the state
        self._hands[seat] = hand ^ (1 << idx)
        trick.append(idx)
        self._played.append(idx)
        card = _NAMES[idx]
        self._log.append(f"{seat}{PLAY_CODES[idx]}")
        events = [Event("play", {"seat": seat, "card": card})]
        if len(trick) == n:
            leader = self._leader
            winner = trick_winner(trick, leader, n, self._trump_suit)
            self._tricks[winner] += 1
            events.append(
                Event(
                    "trick",
                    {
                        "leader": leader,
                        "cards": [_NAMES[c] for c in trick],
                        "winner": winner,
                        "tricks": list(self._tricks),
                    },
                )
            )
            self._leader = winner
            self._trick = []
            if len(self._played) == n * self._rules.hand_size:
                self._end_hand(events)
            else:
                self._leaders.append(winner)
        return events

    # -- the other actions (data already type/seat/phase checked) ----------------------
    def _cards_arg(self, seat: int, raw: object, count: int) -> int:
        """Validate a list of cards: count, duplicates, then each held by ``seat``."""
        if not isinstance(raw, list) or len(raw) != count:
            got = len(raw) if isinstance(raw, list) else "no list"
            raise _illegal("wrong_card_count", f"expected {count} cards, got {got}")
        for i in range(len(raw)):
            for j in range(i):
                if raw[i] == raw[j]:
                    raise _illegal("duplicate_card", f"card {raw[i]!r} given twice")
        mask = 0
        hand = self._hands[seat]
        for text in raw:
            idx = Card.parse(text).index
            if not hand >> idx & 1:
                raise _illegal("card_not_in_hand", f"{text} is not in seat {seat}'s hand")
            mask |= 1 << idx
        return mask

    def _do_give(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        to = data.get("to")
        batch = None
        if type(to) is int:
            for b in self._open_batches():
                if b[1] == to:
                    batch = b
        if batch is None:
            raise _illegal("wrong_recipient", f"seat {seat} owes no cards to {to!r} now")
        mask = self._cards_arg(seat, data.get("cards"), batch[2])
        assert isinstance(to, int)
        # legal
        self._hands[seat] &= ~mask
        self._hands[to] |= mask
        self._plan.remove(batch)
        record = [seat, to, mask, 0]
        self._batches.append(record)
        self._log.append(f"{seat}{Give(to, tuple(card_list(mask))).code()}")
        events = [
            Event("give", {"from": seat, "to": to, "count": batch[2]}),
            Event(
                "give_cards",
                {"from": seat, "to": to, "cards": cards_to_str(mask)},
                frozenset((seat, to)),
            ),
        ]
        if self._return_mode == "immediate":
            self._return_batch(record, events)
        if not self._plan:
            if self._return_mode == "after_gives":
                self._returns_by_rank(events)
            self._next_step(events)
        return events

    def _do_trump(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        suit = data.get("suit")
        allowed = self._allowed_calls()
        if not isinstance(suit, str) or suit not in allowed:
            raise _illegal("invalid_suit", f"{suit!r} is not a call allowed now ({allowed})")
        self._trump = suit
        self._trump_suit = "CDHS".index(suit) if len(suit) == 1 else -1
        if self._rules.calls:
            self._calls_used[seat].append(suit)
        self._log.append(f"{seat}{Trump(suit).code()}")
        events = [Event("trump", {"seat": seat, "suit": suit})]
        self._next_step(events)
        return events

    def _do_discard(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        mask = self._cards_arg(seat, data.get("cards"), self._rules.kitty_size)
        self._hands[seat] &= ~mask
        self._discards = mask
        if self._rules.discard_trick:
            self._tricks[seat] += 1
        self._log.append(f"{seat}{Discard(tuple(card_list(mask))).code()}")
        events = [
            Event("discard", {"seat": seat, "count": mask.bit_count()}),
            Event("discard_cards", {"seat": seat, "cards": cards_to_str(mask)}, frozenset((seat,))),
        ]
        self._next_step(events)
        return events

    def _do_swap(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        idx = Card.parse(data.get("card")).index
        if not self._hands[seat] >> idx & 1:
            raise _illegal("card_not_in_hand", f"{_NAMES[idx]} is not in seat {seat}'s hand")
        taken = self._faceup
        self._hands[seat] = (self._hands[seat] & ~(1 << idx)) | (1 << taken)
        self._swapped = idx
        self._swapper = seat
        self._kitty = 0
        self._log.append(f"{seat}{Swap(CARDS[idx]).code()}")
        events = [
            Event("swap", {"seat": seat, "taken": _NAMES[taken]}),
            Event("swap_card", {"seat": seat, "card": _NAMES[idx]}, frozenset((seat,))),
        ]
        self._next_step(events)
        return events

    def _do_no_swap(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        self._log.append(f"{seat}{NoSwap().code()}")
        events = [Event("no_swap", {"seat": seat})]
        self._next_step(events)
        return events

    def _do_bid(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        tricks = data.get("tricks")
        low = self._min_bid()
        if type(tricks) is not int or not low <= tricks <= 16:
            raise _illegal("invalid_bid", f"a bid must be an integer {low}..16, not {tricks!r}")
        self._bids.append([seat, tricks])
        self._high = [seat, tricks]
        self._log.append(f"{seat}{Bid(tricks).code()}")
        events = [Event("bid", {"seat": seat, "tricks": tricks})]
        self._after_bid(seat, events)
        return events

    def _do_pass(self, seat: int, data: Mapping[str, Any]) -> list[Event]:
        self._bids.append([seat, 0])
        self._passed[seat] = True
        self._log.append(f"{seat}{Pass().code()}")
        events = [Event("pass", {"seat": seat})]
        self._after_bid(seat, events)
        return events

    def _after_bid(self, seat: int, events: list[Event]) -> None:
        n = self._n
        high = self._high
        if high is None:
            if all(self._passed):
                self._dealer = (self._dealer + 1) % n
                events.append(Event("redeal", {"dealer": self._dealer}))
                self._start_hand(events)
                return
        elif all(self._passed[s] for s in range(n) if s != high[0]):
            dealer, bid = high
            self._dealer = dealer
            eldest, middle = WOBURN_TARGETS[bid]
            targets = [0] * n
            targets[dealer] = bid
            targets[(dealer + 1) % n] = eldest
            targets[(dealer + 2) % n] = middle
            self._targets = targets
            events.append(
                Event("auction", {"dealer": dealer, "bid": bid, "targets": list(targets)})
            )
            self._steps = self._hand_steps(exchange=False)
            self._next_step(events)
            return
        nxt = (seat + 1) % n
        while self._passed[nxt]:
            nxt = (nxt + 1) % n
        self._bid_turn = nxt

    # ------------------------------------------------------------------ the exchange
    def _plan_exchange(self) -> None:
        rules = self._rules
        diffs = self._prev_diffs
        targets = self._targets
        self._plan = []
        if not rules.exchange or diffs is None or targets is None:
            return
        n = self._n
        ups = [s for s in range(n) if diffs[s] > 0]
        downs = [s for s in range(n) if diffs[s] < 0]
        if not ups:
            return
        cap = rules.exchange_cap
        raw: list[tuple[int, int, int]] = []
        give_any = False
        if n == 3:
            if len(ups) == 1:
                downs.sort(key=lambda s: targets[s])
                raw = [(ups[0], d, -diffs[d]) for d in downs]
                give_any = len(downs) == 2 and rules.one_up_two_down == "simultaneous"
            else:
                if rules.two_up_order == "higher_target_first":
                    ups.sort(key=lambda s: -targets[s])
                else:
                    ups.sort(key=lambda s: (-diffs[s], -targets[s]))
                raw = [(u, downs[0], diffs[u]) for u in ups]
            given = [0] * n
            received = [0] * n
            for g, r, owed in raw:
                k = owed
                if cap is not None:
                    k = min(owed, cap - given[g], cap - received[r])
                if k > 0:
                    self._plan.append([g, r, k])
                    given[g] += k
                    received[r] += k
            return_mode = "after_gives" if give_any else "immediate"
        else:
            dealer = self._dealer
            ups.sort(key=lambda s: (-diffs[s], -targets[s], (s - dealer) % n))
            need = {d: -diffs[d] for d in downs}
            received = [0] * n
            counts: dict[tuple[int, int], int] = {}
            for g in ups:
                given_to: set[int] = set()
                for count in range(diffs[g]):
                    if cap is not None and count >= cap:
                        break
                    cands = [d for d in downs if need[d] > 0 and (cap is None or received[d] < cap)]
                    if not cands:
                        break
                    d = min(cands, key=_recipient_key(g, n, need, given_to))
                    need[d] -= 1
                    received[d] += 1
                    given_to.add(d)
                    counts[(g, d)] = counts.get((g, d), 0) + 1
            self._plan = [[g, d, k] for (g, d), k in counts.items()]
            return_mode = "after_gives"
        self._give_any = give_any and len(self._plan) > 1
        self._return_mode = "after_trump" if rules.sequence == "tallyn" else return_mode

    def _return_batch(self, record: list[int], events: list[Event]) -> None:
        giver, receiver, given, _ = record
        hand = self._hands[receiver]
        returned = 0
        for s in range(4):
            k = (given & SUIT_MASKS[s]).bit_count()
            if k:
                returned |= high_cards(hand, s, k)
        self._hands[receiver] = hand & ~returned
        self._hands[giver] |= returned
        record[3] = returned
        self._return_events(record, events)

    def _return_events(self, record: list[int], events: list[Event]) -> None:
        giver, receiver, _, returned = record
        events.append(
            Event("return", {"from": receiver, "to": giver, "count": returned.bit_count()})
        )
        events.append(
            Event(
                "return_cards",
                {"from": receiver, "to": giver, "cards": cards_to_str(returned)},
                frozenset((giver, receiver)),
            )
        )

    def _returns_by_rank(self, events: list[Event]) -> None:
        """Returns after every batch is given: per receiver and suit, the highest return
        goes to the giver of the highest card received (RULES.md, four-handed)."""
        receivers = sorted({rec[1] for rec in self._batches})
        for r in receivers:
            records = [rec for rec in self._batches if rec[1] == r]
            hand = self._hands[r]
            for s in range(4):
                got = [(idx, rec) for rec in records for idx in indices(rec[2] & SUIT_MASKS[s])]
                if not got:
                    continue
                got.sort(key=lambda item: -item[0])
                tops = sorted(indices(high_cards(hand, s, len(got))), reverse=True)
                for (_, rec), top in zip(got, tops, strict=True):
                    rec[3] |= 1 << top
            for rec in records:
                self._hands[r] &= ~rec[3]
                self._hands[rec[0]] |= rec[3]
        for rec in self._batches:
            self._return_events(rec, events)

    def _returns_after_trump(self, events: list[Event]) -> None:
        for rec in self._batches:
            self._return_batch(rec, events)

    def _take_kitty(self, events: list[Event]) -> None:
        d = self._dealer
        kitty = self._kitty
        self._hands[d] |= kitty
        self._kitty = 0
        self._kitty_taken = True
        events.append(Event("kitty_taken", {"seat": d, "count": kitty.bit_count()}))
        events.append(
            Event("kitty_cards", {"seat": d, "cards": cards_to_str(kitty)}, frozenset((d,)))
        )
        # The dealer's disclosure.
        if self._prev_diffs is None or self._prev_diffs[d] >= 0:
            return
        for up in range(self._n):
            returned = 0
            for g, r, _, ret in self._batches:
                if r == d and g == up:
                    returned |= ret
            if not returned:
                continue
            shown = 0
            for s in range(4):
                part = returned & SUIT_MASKS[s]
                if part:
                    lowest = (part & -part).bit_length() - 1
                    above = ~((1 << (lowest + 1)) - 1)
                    shown |= kitty & SUIT_MASKS[s] & above
            if shown:
                self._disclosures.append([up, shown])
                events.append(
                    Event(
                        "disclosure",
                        {"from": d, "to": up, "cards": cards_to_str(shown)},
                        frozenset((up,)),
                    )
                )

    # ------------------------------------------------------------------ hand flow
    def _hand_steps(self, exchange: bool) -> list[str]:
        rules = self._rules
        give = ["give"] if exchange else []
        if rules.kitty == "dealer":
            kitty = (
                ["discard", "take"]
                if rules.kitty_order == "discard_then_take"
                else ["take", "discard"]
            )
        elif rules.kitty == "swap_2d":
            kitty = [] if self._faceup == _TWO_D else ["swap"]
        else:
            kitty = []
        if rules.sequence == "tallyn":
            return kitty + give + ["trump"] + (["returns"] if exchange else []) + ["play"]
        if rules.exchange_before_trump:
            return [*give, "trump", *kitty, "play"]
        return ["trump", *give, *kitty, "play"]

    def _get_deal(self, number: int) -> Deal | None:
        if self._deals is not None:
            return self._deals[number] if number < len(self._deals) else None
        assert self._seed is not None
        return seeded_deal(self._seed, number, rules=self._rules, dealer=self._dealer)

    def _start_hand(self, events: list[Event]) -> None:
        deal = self._get_deal(self._deal_number + 1)
        if deal is None:
            self._stopped = True
            self._step = "over"
            self._steps = []
            events.append(Event("stopped", {"reason": "no_more_deals"}))
            return
        self._deal_number += 1
        self._reset_hand()
        rules = self._rules
        n = self._n
        self._hands = list(deal.hands)
        self._deal_log.append([*deal.hands, deal.kitty])
        if rules.kitty == "swap_2d":
            self._faceup = deal.kitty.bit_length() - 1
        self._kitty = self._kitty_cards = deal.kitty
        if rules.bidding and not self._history:
            self._steps = ["bid"]
            self._bid_turn = self._dealer
        else:
            self._targets = rules.seat_targets(self._dealer)
            self._plan_exchange()
            self._steps = self._hand_steps(exchange=bool(self._plan))
        events.append(
            Event(
                "hand_start",
                {
                    "hand_number": len(self._history) + 1,
                    "deal_number": self._deal_number,
                    "dealer": self._dealer,
                    "targets": self.targets,
                    "face_up": _NAMES[self._faceup] if self._faceup >= 0 else None,
                    "exchange": [{"from": g, "to": r, "count": k} for g, r, k in self._plan],
                },
            )
        )
        for seat in range(n):
            events.append(
                Event(
                    "deal",
                    {"seat": seat, "cards": cards_to_str(self._hands[seat])},
                    frozenset((seat,)),
                )
            )
        self._next_step(events)

    def _next_step(self, events: list[Event]) -> None:
        while True:
            step = self._steps.pop(0)
            if step == "take":
                self._take_kitty(events)
                continue
            if step == "returns":
                self._returns_after_trump(events)
                continue
            if step == "play":
                self._leader = (self._dealer + 1) % self._n
                self._leaders = [self._leader]
            self._step = step
            return

    def _end_hand(self, events: list[Event]) -> None:
        rules = self._rules
        n = self._n
        targets = self._targets
        assert targets is not None
        tricks = self._tricks
        if self._trump == "MIZ":
            diffs = [targets[s] - tricks[s] for s in range(n)]
        else:
            diffs = [tricks[s] - targets[s] for s in range(n)]
        for s in range(n):
            self._scores[s] += diffs[s]
        self._history.append(
            {
                "dealer": self._dealer,
                "targets": list(targets),
                "trump": self._trump,
                "tricks": list(tricks),
                "diffs": diffs,
                "exchange": [
                    {
                        "from": g,
                        "to": r,
                        "given": cards_to_str(given),
                        "returned": cards_to_str(ret),
                    }
                    for g, r, given, ret in self._batches
                ],
                "disclosures": [
                    {"to": u, "cards": cards_to_str(m)} for u, m in sorted(self._disclosures)
                ],
            }
        )
        events.append(
            Event(
                "hand_end",
                {
                    "hand_number": len(self._history),
                    "dealer": self._dealer,
                    "targets": list(targets),
                    "trump": self._trump,
                    "tricks": list(tricks),
                    "diffs": list(diffs),
                    "scores": list(self._scores),
                },
            )
        )
        self._step = "over"
        self._steps = []
        reason = None
        if rules.win_tricks is not None:
            for s in range(n):
                if tricks[s] >= rules.win_tricks:
                    self._win_seat = s
                    reason = "tricks"
        if reason is None and rules.target_score is not None and rules.score_end != "none":
            top = rules.target_score
            if any(sc >= top for sc in self._scores) or (
                rules.score_end == "up_or_down" and any(sc <= -top for sc in self._scores)
            ):
                reason = "score"
        if reason is None and rules.calls and len(self._history) >= 6 * n:
            reason = "calls"
        if reason is None and rules.max_hands is not None and len(self._history) >= rules.max_hands:
            reason = "max_hands"
        if reason is not None:
            self._over = True
            self._end_reason = reason
            outcome = self.outcome()
            assert outcome is not None
            events.append(Event("game_over", outcome.to_dict()))
            return
        self._prev_diffs = diffs
        self._dealer = (self._dealer + 1) % n
        self._start_hand(events)

    # ------------------------------------------------------------------ results
    def standings(self) -> Outcome:
        """Ranks and winner as if the game ended now (final once :meth:`is_over`)."""
        first = self._win_seat
        scores = tuple(self._scores)
        winner = first
        if winner is None:
            top = max(scores)
            leaders = [s for s, sc in enumerate(scores) if sc == top]
            winner = leaders[0] if len(leaders) == 1 else None
        return Outcome(
            winner=winner,
            ranks=_ranks(scores, first),
            scores=scores,
            hands_played=len(self._history),
            reason=self._end_reason or "in_progress",
        )

    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` of a finished game, ``None`` while it goes on."""
        return self.standings() if self._over else None

    # ------------------------------------------------------------------ views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know now (RULES.md "Information"); ``None``: a spectator.

        Public part: rules, hand_number, dealer, targets, trump, phase, to_act,
        current_trick, trick_history (this hand), tricks, scores, hand_cards_left, kitty
        (cards still face down), face_up, exchange (batches with counts), auction, calls
        made, previous hands' results (no cards), result. A seat adds your_seat, your_hand,
        legal_actions (API form), the cards of the batches it gave or received, its
        discards and the kitty (dealer), kitty cards shown to it (disclosures) and the card
        it swapped away.
        """
        n = self._n
        step = self._step
        out: dict[str, Any] = {
            "rules": self._rules.to_dict(),
            "players": n,
            "hand_number": len(self._history) + (0 if self._over else 1),
            "dealer": self._dealer,
            "targets": self.targets,
            "trump": self._trump,
            "phase": _PHASE_OF_STEP[step],
            "to_act": self.to_act(),
            "current_trick": [{"seat": s, "card": str(c)} for s, c in self.current_trick()],
            "trick_history": self._trick_history(),
            "tricks": list(self._tricks),
            "scores": list(self._scores),
            "hand_cards_left": [h.bit_count() for h in self._hands],
            "kitty_cards_left": 0 if self._faceup >= 0 else self._kitty.bit_count(),
            "face_up": _NAMES[self._faceup] if self._faceup >= 0 and self._kitty else None,
            "discarded": bool(self._discards),
            "swap": None,
            "exchange": [{"from": g, "to": r, "count": k, "done": False} for g, r, k in self._plan],
            "auction": None,
            "calls_made": [list(c) for c in self._calls_used] if self._rules.calls else None,
            "previous_hands": [{k: h[k] for k in _HAND_SUMMARY} for h in self._history],
            "game_over": self._over,
            "result": None,
        }
        done = []
        for g, r, given, ret in self._batches:
            entry: dict[str, Any] = {
                "from": g,
                "to": r,
                "count": given.bit_count(),
                "done": True,
                "returned_count": ret.bit_count(),
            }
            if seat in (g, r):
                entry["given"] = cards_to_str(given)
                entry["returned"] = cards_to_str(ret)
            done.append(entry)
        out["exchange"] = done + out["exchange"]
        if self._swapped >= 0:
            out["swap"] = {"seat": self._swapper, "taken": _NAMES[self._faceup]}
        if self._rules.bidding and (self._bids or step == "bid"):
            out["auction"] = {
                "bids": [{"seat": s, "tricks": (t or None)} for s, t in self._bids],
                "high": None
                if self._high is None
                else {"seat": self._high[0], "tricks": self._high[1]},
            }
        if self._over:
            outcome = self.outcome()
            assert outcome is not None
            out["result"] = outcome.to_dict()
        if seat is not None:
            if type(seat) is not int or not 0 <= seat < n:
                raise ValueError(f"no seat {seat!r}")
            out["your_seat"] = seat
            out["your_hand"] = cards_to_str(self._hands[seat])
            out["legal_actions"] = self.legal_summary(seat)
            if seat == self._dealer and self._rules.kitty == "dealer":
                out["your_discards"] = cards_to_str(self._discards) if self._discards else None
                out["your_kitty"] = cards_to_str(self._kitty_cards) if self._kitty_taken else None
            out["disclosures"] = [
                {"from": self._dealer, "cards": cards_to_str(m)}
                for u, m in self._disclosures
                if u == seat
            ]
            if self._swapped >= 0 and self._swapper == seat:
                out["your_swapped_card"] = _NAMES[self._swapped]
        return out

    def public_view(self) -> dict[str, Any]:
        """What a spectator may know (:meth:`view` with ``seat=None``)."""
        return self.view(None)

    def _trick_history(self) -> list[dict[str, Any]]:
        n = self._n
        out = []
        complete = (len(self._played) - len(self._trick)) // n
        for t in range(complete):
            cards = self._played[t * n : (t + 1) * n]
            leader = self._leaders[t]
            out.append(
                {
                    "leader": leader,
                    "cards": [_NAMES[c] for c in cards],
                    "winner": trick_winner(cards, leader, n, self._trump_suit),
                }
            )
        return out

    # ------------------------------------------------------------------ record
    def record(self) -> dict[str, Any]:
        """The full record (every card public): REPLAY.md input (rules, first_dealer, deals,
        actions) plus its output fields (hands, scores, game_over, winner, final_hands) and
        ``ranks``. Feeding it to the replay command reproduces the game. A game loaded
        without the parts of its journal that were detached cannot give it (StateError)."""
        self._require_whole_journal()
        outcome = self.standings()
        return {
            "rules": self._rules.to_dict(),
            "seed": self._seed,
            "first_dealer": self._first_dealer,
            "deals": [Deal(tuple(d[:-1]), d[-1]).to_dict() for d in self._deal_log],
            "actions": [
                {"seat": int(entry[0]), **action_from_code(entry[1:]).to_dict()}
                for entry in self._log
            ],
            "hands": self.history,
            "scores": list(self._scores),
            "game_over": self._over,
            "winner": outcome.winner if self._over else None,
            "ranks": list(outcome.ranks) if self._over else None,
            "final_hands": [cards_to_str(h) for h in self._hands],
        }

    @property
    def has_whole_journal(self) -> bool:
        """Whether this game holds its whole journal, so can give its :meth:`record` (False
        only when loaded without parts that :meth:`detach_journal` handed out)."""
        return self._absent == (0, 0, 0)

    def _require_whole_journal(self) -> None:
        if not self.has_whole_journal:
            raise StateError(
                "this game was loaded without the detached parts of its journal; "
                "load it with from_state(..., journal=...)"
            )

    # ------------------------------------------------------------------ journal
    def detach_journal(self) -> dict[str, Any]:
        """Hand out the journal written since the last call (or the start): the deals, the
        actions and the finished hands' full results, as a JSON-able dict. From then on
        :meth:`to_state` leaves them out (it keeps each finished hand's summary, which views
        show), so that a state saved after every move stays about one hand long however
        long the game. Play and views go on as before; :meth:`record` and :attr:`history`
        need the detached parts back: ``from_state(state, journal=[part, ...])``, every
        part in the order they were detached."""
        deals, actions, hands = self._detached
        absent_deals, absent_actions, _ = self._absent
        part = {
            "dlog": [list(d) for d in self._deal_log[deals - absent_deals :]],
            "log": " ".join(self._log[actions - absent_actions :]),
            "hist": json.loads(json.dumps(self._history[hands:])),
        }
        self._detached = (
            absent_deals + len(self._deal_log),
            absent_actions + len(self._log),
            len(self._history),
        )
        return part

    # ------------------------------------------------------------------ serialisation
    def to_state(self) -> dict[str, Any]:
        """The whole state as a JSON-able dict (see :meth:`to_json`), without the parts of
        the journal that :meth:`detach_journal` handed out."""
        deals, actions, hands = self._detached
        absent_deals, absent_actions, _ = self._absent
        state = self._state(
            self._deal_log[deals - absent_deals :],
            self._log[actions - absent_actions :],
            [{k: h[k] for k in _HAND_SUMMARY} for h in self._history[:hands]]
            + self._history[hands:],
        )
        if self._detached != (0, 0, 0):
            state["v"] = _DETACHED_STATE_VERSION
            state["detached"] = list(self._detached)
        return state

    def _state(
        self, deal_log: list[list[int]], log: list[str], history: list[dict[str, Any]]
    ) -> dict[str, Any]:
        dealt = self._absent[0] + len(self._deal_log)
        return {
            "v": _STATE_VERSION,
            "rules": self._rules.to_dict(),
            "seed": self._seed,
            "deals": None
            if self._deals is None
            else [[*d.hands, d.kitty] for d in self._deals[dealt:] if d is not None],
            "fd": self._first_dealer,
            "dn": self._deal_number,
            "dealer": self._dealer,
            "scores": self._scores,
            "hist": history,
            "dlog": deal_log,
            # One string, not a list of strings: the log grows with the game, and one
            # string is several times cheaper to encode and decode.
            "log": " ".join(log),
            "calls": self._calls_used,
            "prev": self._prev_diffs,
            "end": [self._over, self._stopped, self._win_seat, self._end_reason],
            "step": self._step,
            "steps": self._steps,
            "targets": self._targets,
            "hands": self._hands,
            "kitty": [self._kitty, self._kitty_cards, self._kitty_taken],
            "disc": self._discards,
            "swap": [self._faceup, self._swapped, self._swapper],
            "trump": self._trump,
            "ex": [self._plan, self._give_any, self._return_mode, self._batches],
            "discl": self._disclosures,
            "bid": [self._bids, self._passed, self._high, self._bid_turn],
            "play": [self._leader, self._trick, self._tricks, self._played, self._leaders],
        }

    def to_json(self) -> str:
        """A compact JSON document of the whole state; :meth:`from_json` loads it without
        replaying anything. (Explicit-deal games carry their remaining deals.)"""
        return json.dumps(self.to_state(), separators=(",", ":"))

    @classmethod
    def from_state(
        cls,
        state: Mapping[str, Any],
        *,
        owned: bool = False,
        journal: Sequence[Mapping[str, Any]] | None = None,
    ) -> Game:
        """Load :meth:`to_state`'s dict (also a version 1 state, whose log was a list).
        Raises :class:`StateError` if it is not one. ``owned``: the dict (and ``journal``)
        is the caller's to give away (freshly decoded), so its parts are used as they are,
        not copied. ``journal``: the parts :meth:`detach_journal` handed out before this
        state was saved, in order; without them the game plays on and gives its views, but
        not its record."""
        try:
            version = state.get("v")
            if version not in (1, _STATE_VERSION, _DETACHED_STATE_VERSION):
                raise StateError(f"unsupported state version {version!r}")
            rules = Rules.from_dict(state["rules"])
            detached = (0, 0, 0)
            if version == _DETACHED_STATE_VERSION:
                deal_count, action_count, hand_count = (int(n) for n in state["detached"])
                detached = (deal_count, action_count, hand_count)
            log = state["log"]
            actions = (log.split() if log else []) if isinstance(log, str) else list(log)
            deal_log, history = state["dlog"], state["hist"]
            absent = detached
            if journal is not None:
                old_deals = [d for part in journal for d in part["dlog"]]
                old_actions = [a for part in journal for a in part["log"].split()]
                old_hands = [h for part in journal for h in part["hist"]]
                if (len(old_deals), len(old_actions), len(old_hands)) != detached:
                    raise StateError("the journal's parts do not make up the detached journal")
                deal_log, actions = old_deals + deal_log, old_actions + actions
                history = old_hands + history[detached[2] :]
                absent = (0, 0, 0)
            deals = state["deals"]
            dn = int(state["dn"])
            dealt: list[Deal | None] = [None] * absent[0]
            dealt += [Deal(tuple(d[:-1]), d[-1]) for d in deal_log]
            game = cls(
                rules,
                seed=state["seed"],
                deals=None
                if deals is None
                else dealt + [Deal(tuple(d[:-1]), d[-1]) for d in deals],
            )
            game._absent, game._detached = absent, detached
            game._first_dealer = state["fd"]
            game._deal_number = dn
            game._dealer = state["dealer"]
            game._scores = list(state["scores"])
            game._history = history if owned else json.loads(json.dumps(history))
            game._deal_log = [list(d) for d in deal_log]
            game._log = actions
            game._calls_used = [list(c) for c in state["calls"]]
            game._prev_diffs = None if state["prev"] is None else list(state["prev"])
            game._over, game._stopped, game._win_seat, game._end_reason = state["end"]
            game._step = state["step"]
            game._steps = list(state["steps"])
            game._targets = None if state["targets"] is None else list(state["targets"])
            game._hands = list(state["hands"])
            game._kitty, game._kitty_cards, game._kitty_taken = state["kitty"]
            game._discards = state["disc"]
            game._faceup, game._swapped, game._swapper = state["swap"]
            game._trump = state["trump"]
            game._trump_suit = (
                "CDHS".index(game._trump) if game._trump and len(game._trump) == 1 else -1
            )
            plan, game._give_any, game._return_mode, batches = state["ex"]
            game._plan = [list(b) for b in plan]
            game._batches = [list(b) for b in batches]
            game._disclosures = [list(d) for d in state["discl"]]
            bids, passed, high, game._bid_turn = state["bid"]
            game._bids = [list(b) for b in bids]
            game._passed = list(passed)
            game._high = None if high is None else list(high)
            leader, trick, tricks, played, leaders = state["play"]
            game._leader = leader
            game._trick = list(trick)
            game._tricks = list(tricks)
            game._played = list(played)
            game._leaders = list(leaders)
            if game._step not in _PHASE_OF_STEP or len(game._hands) != game._n:
                raise StateError("inconsistent state")
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateError(f"not a game state: {error}") from None
        return game

    @classmethod
    def from_json(
        cls, text: str | bytes, journal: Sequence[Mapping[str, Any]] | None = None
    ) -> Game:
        """Load a state saved by :meth:`to_json` (``journal``: see :meth:`from_state`)."""
        try:
            state = json.loads(text)
        except ValueError as error:
            raise StateError(f"not JSON: {error}") from None
        if not isinstance(state, dict):
            raise StateError("a game state is a JSON object")
        return cls.from_state(state, owned=True, journal=journal)

    def copy(self) -> Game:
        """An independent copy (with as much of the journal as this game holds)."""
        state = self._state(self._deal_log, self._log, self._history)
        if self._absent != (0, 0, 0):
            state["v"], state["detached"] = _DETACHED_STATE_VERSION, list(self._absent)
        copy = Game.from_state(json.loads(json.dumps(state)), owned=True)
        copy._detached = self._detached
        return copy

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_state() == other.to_state()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.preset} hand {self.hand_number} phase {self.phase} "
            f"to_act {self.to_act()} scores {self._scores}>"
        )
