"""The trick-play kernel: fast playouts for bots.

A :class:`PlayoutState` is the trick-play phase of one hand stripped to integers: each seat's
hand as four 13-bit masks (one per suit, bit ``rank``), the trump suit (``-1`` for none: NT
and MIZ), the cards of the trick in progress, its leader and the tricks won so far. It uses
the same rules as :class:`~games.engine.Game` (follow suit; highest trump, else highest card
of the suit led) without validation, events or history on the hot path.

Bots build one from what a seat may know (:meth:`PlayoutState.from_view`, with every
seat's cards dealt consistently with the view: the house bots' inference,
``bots.strategies.inference``); :meth:`PlayoutState.from_game` builds one from a
:class:`~games.engine.Game` and, without ``hands``, uses the true hands -- for tests and
analysis. :meth:`PlayoutState.random_playout` does not change the state: it plays every
remaining card at random (each legal card equally likely) on a copy and returns the final
tricks per seat (including tricks already won, and 3-5-9's discard trick).

>>> from games.engine import Game
>>> game = Game.new("classic", seed=1)
>>> game.apply(game.dealer, game.fallback_action(game.dealer)) and None
>>> game.apply(game.dealer, game.fallback_action(game.dealer)) and None
>>> state = PlayoutState.from_game(game)
>>> sum(state.random_playout(__import__("random").Random(1)))
16
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from .cards import CARDS, Card, index_of

__all__ = ["PlayoutState"]

# For a 13-bit suit mask: its set bits as single-bit values, ascending; and its popcount.
_BITS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(1 << r for r in range(13) if m >> r & 1) for m in range(1 << 13)
)
_COUNT: Final[tuple[int, ...]] = tuple(len(b) for b in _BITS)
_SUIT_INDEX: Final = {"C": 0, "D": 1, "H": 2, "S": 3}


class PlayoutState:
    """A trick-play position with every hand known (a determinization).

    ``hands[seat][suit]`` is a 13-bit mask of ranks; ``trick`` holds the card indices
    (``suit * 13 + rank``) played to the current trick, led by ``leader``.
    """

    __slots__ = ("hands", "leader", "players", "trick", "tricks", "trump")

    def __init__(
        self,
        hands: Sequence[Sequence[int]],
        trump: int,
        leader: int,
        trick: Sequence[int] = (),
        tricks: Sequence[int] | None = None,
    ) -> None:
        self.players = len(hands)
        self.hands = [list(h) for h in hands]
        self.trump = trump
        self.leader = leader
        self.trick = list(trick)
        self.tricks = list(tricks) if tricks is not None else [0] * self.players

    # ------------------------------------------------------------------ building
    @staticmethod
    def _split(cards: Iterable[Card | str | int]) -> list[int]:
        suits = [0, 0, 0, 0]
        for card in cards:
            idx = index_of(card)
            suits[idx // 13] |= 1 << (idx % 13)
        return suits

    @classmethod
    def from_game(
        cls,
        game: Any,
        hands: Sequence[Iterable[Card | str | int]]
        | Mapping[int, Iterable[Card | str | int]]
        | None = None,
    ) -> PlayoutState:
        """The kernel of ``game`` (a :class:`~games.engine.Game` in the play phase).

        ``hands``: an assignment of seats' current cards -- a list by seat, or a mapping
        seat -> cards for the seats to replace (the others keep their true hands); by
        default the true hands. Raises ``ValueError`` outside the play phase or if the hand
        sizes do not match the game's.
        """
        if game.phase != "play":
            raise ValueError("the kernel needs a game in the play phase")
        n = game.players
        split = [[(game.hand_mask(s) >> (13 * k)) & 0x1FFF for k in range(4)] for s in range(n)]
        if isinstance(hands, Mapping):
            for seat, cards in hands.items():
                split[seat] = cls._split(cards)
        elif hands is not None:
            split = [cls._split(cards) for cards in hands]
        for seat in range(n):
            if sum(m.bit_count() for m in split[seat]) != game.hand_mask(seat).bit_count():
                raise ValueError(f"seat {seat}: wrong number of cards in the assignment")
        trump = game.trump
        return cls(
            split,
            _SUIT_INDEX.get(trump or "", -1),
            game.leader,
            [c.index for _, c in game.current_trick()],
            game.tricks,
        )

    @classmethod
    def from_view(
        cls, view: Mapping[str, Any], hands: Sequence[Iterable[Card | str | int]]
    ) -> PlayoutState:
        """The kernel from a seat's :meth:`~games.engine.Game.view` plus a full assignment
        of every seat's cards (the viewer's own hand included)."""
        if view.get("phase") != "play":
            raise ValueError("the kernel needs a view in the play phase")
        trick = view["current_trick"]
        leader = trick[0]["seat"] if trick else view["to_act"][0]
        split = [cls._split(h) for h in hands]
        for seat, count in enumerate(view["hand_cards_left"]):
            if sum(m.bit_count() for m in split[seat]) != count:
                raise ValueError(f"seat {seat}: wrong number of cards in the assignment")
        return cls(
            split,
            _SUIT_INDEX.get(view.get("trump") or "", -1),
            leader,
            [Card.parse(t["card"]).index for t in trick],
            view["tricks"],
        )

    def copy(self) -> PlayoutState:
        return PlayoutState(self.hands, self.trump, self.leader, self.trick, self.tricks)

    # ------------------------------------------------------------------ step by step
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % self.players

    def is_done(self) -> bool:
        return not self.trick and not any(any(h) for h in self.hands)

    def legal_moves(self) -> list[int]:
        """Card indices the seat to move may play, ascending."""
        suits = self.hands[self.to_move()]
        if self.trick:
            led = self.trick[0] // 13
            if suits[led]:
                return [led * 13 + r for r in range(13) if suits[led] >> r & 1]
        return [s * 13 + r for s in range(4) for r in range(13) if suits[s] >> r & 1]

    def legal_cards(self) -> list[Card]:
        return [CARDS[i] for i in self.legal_moves()]

    def play(self, card: Card | str | int) -> None:
        """Play a card for the seat to move (no validation beyond holding the card)."""
        idx = index_of(card)
        seat = self.to_move()
        suit, bit = idx // 13, 1 << (idx % 13)
        if not self.hands[seat][suit] & bit:
            raise ValueError(f"seat {seat} does not hold {CARDS[idx]}")
        self.hands[seat][suit] ^= bit
        self.trick.append(idx)
        if len(self.trick) == self.players:
            best = 0
            top = self.trick[0]
            for i in range(1, self.players):
                c = self.trick[i]
                if c // 13 == top // 13:
                    if c > top:
                        best, top = i, c
                elif c // 13 == self.trump:
                    best, top = i, c
            winner = (self.leader + best) % self.players
            self.tricks[winner] += 1
            self.leader = winner
            self.trick = []

    # ------------------------------------------------------------------ playouts
    def random_playout(self, rng: random.Random, record: list[int] | None = None) -> list[int]:
        """Play the hand out at random (uniform among legal cards) on a copy; return the
        tricks per seat at the end. ``record``, if given, receives the card indices played,
        in order. The state itself is not changed."""
        rand = rng.random
        bits_of = _BITS
        count_of = _COUNT
        n = self.players
        trump = self.trump
        hands = [list(h) for h in self.hands]
        tricks = list(self.tricks)
        leader = self.leader
        if self.trick:
            # Finish the trick in progress (generic, slower path).
            state = PlayoutState(hands, trump, leader, self.trick, tricks)
            while state.trick:
                moves = state.legal_moves()
                card = moves[int(rand() * len(moves))]
                if record is not None:
                    record.append(card)
                state.play(card)
            hands, tricks, leader = state.hands, state.tricks, state.leader
        left = sum(count_of[m] for m in hands[leader])
        while left:
            # The leader: any card, uniformly. (The choice of a card from the whole hand is
            # written out here and again for a void follower below, not called: this loop is
            # the bots' hot path, and a function call per card is a large share of it.)
            hs = hands[leader]
            k = int(rand() * left)
            m = hs[0]
            c = count_of[m]
            if k < c:
                s = 0
            else:
                k -= c
                m = hs[1]
                c = count_of[m]
                if k < c:
                    s = 1
                else:
                    k -= c
                    m = hs[2]
                    c = count_of[m]
                    if k < c:
                        s = 2
                    else:
                        k -= c
                        m = hs[3]
                        s = 3
            b = bits_of[m][k]
            hs[s] = m ^ b
            if record is not None:
                record.append(s * 13 + b.bit_length() - 1)
            led = best_s = s
            best_b = b
            winner = p = leader
            for _ in range(n - 1):
                p += 1
                if p == n:
                    p = 0
                hs = hands[p]
                m = hs[led]
                if m:
                    bits = bits_of[m]
                    b = bits[int(rand() * len(bits))]
                    hs[led] = m ^ b
                    if record is not None:
                        record.append(led * 13 + b.bit_length() - 1)
                    if best_s == led and b > best_b:
                        best_b = b
                        winner = p
                    continue
                # Void in the suit led: any card (it holds `left` cards too).
                k = int(rand() * left)
                m = hs[0]
                c = count_of[m]
                if k < c:
                    s = 0
                else:
                    k -= c
                    m = hs[1]
                    c = count_of[m]
                    if k < c:
                        s = 1
                    else:
                        k -= c
                        m = hs[2]
                        c = count_of[m]
                        if k < c:
                            s = 2
                        else:
                            k -= c
                            m = hs[3]
                            s = 3
                b = bits_of[m][k]
                hs[s] = m ^ b
                if record is not None:
                    record.append(s * 13 + b.bit_length() - 1)
                if s == trump and (best_s != trump or b > best_b):
                    best_s = s
                    best_b = b
                    winner = p
            tricks[winner] += 1
            leader = winner
            left -= 1
        return tricks
