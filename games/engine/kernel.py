"""The trick-play kernel: fast playouts for bots.

A :class:`PlayoutState` is the trick-play phase of one hand stripped to integers: each seat's
hand as four 13-bit masks (one per suit, bit ``rank``), the trump suit (``-1`` for none: NT
and MIZ), the cards of the trick in progress, its leader and the tricks won so far. It uses
the same rules as :class:`~games.engine.Game` (follow suit; highest trump, else highest card
of the suit led) without validation, events or history on the hot path.

Bots work from what they may know, so the usual pattern is *determinization*: take the
seat's view, deal the cards it cannot see to the other seats in some way consistent with
what it knows, build a kernel and play random playouts from it::

    import random
    from games.engine.kernel import PlayoutState

    view = game.view(seat)                  # what the bot may know
    hands = random_hands(view, rng)         # a full assignment consistent with the view
    state = PlayoutState.from_view(view, hands)
    rng = random.Random(7)
    for card in state.legal_cards():        # e.g. evaluate each legal card
        after = state.copy()
        after.play(card)
        total = sum(after.random_playout(rng)[seat] for _ in range(200))

(:func:`random_hands` deals the cards the seat cannot see at random among the other seats,
respecting hand sizes, known voids and the cards it knows are where; a bot may use its own
inference instead. :meth:`PlayoutState.from_game` does the same from a
:class:`~games.engine.Game` and, without ``hands``, uses the true hands -- for tests and
analysis.)
:meth:`PlayoutState.random_playout` does not change the state: it plays every remaining card
at random (each legal card equally likely) on a copy and returns the final tricks per seat
(including tricks already won, and 3-5-9's discard trick).

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

from .cards import CARDS, Card

__all__ = ["PlayoutState", "random_hands"]

# For a 13-bit suit mask: its set bits as single-bit values, ascending; and its popcount.
_BITS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(1 << r for r in range(13) if m >> r & 1) for m in range(1 << 13)
)
_COUNT: Final[tuple[int, ...]] = tuple(len(b) for b in _BITS)
_SUIT_INDEX: Final = {"C": 0, "D": 1, "H": 2, "S": 3}


def _card_index(card: Card | str | int) -> int:
    if isinstance(card, Card):
        return card.index
    if isinstance(card, str):
        return Card.parse(card).index
    return int(card)


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
            idx = _card_index(card)
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
        idx = _card_index(card)
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


def random_hands(view: Mapping[str, Any], rng: random.Random, tries: int = 200) -> list[list[Card]]:
    """A random full assignment of hands consistent with a seat's play-phase view.

    The viewer keeps its own hand. Every card it has not seen (not in its hand, not played
    this hand, not the face-up card, not its own discards) is dealt at random to the other
    seats' remaining hand sizes or left out of play (discards, kitty, a swapped-out card),
    except that cards it knows the place of stay there (cards it gave and that were not
    sent back, cards it returned -- unless a later batch of the exchange could have moved
    them -- and kitty cards the dealer showed it when the kitty was taken after the
    discard) and no seat gets a suit it is known to be void in (it did not follow
    that suit). If random dealing keeps running into void constraints it retries, then
    ignores them.
    """
    from .cards import FULL_DECK
    from .rules import Rules

    rules = Rules.from_dict(view["rules"])
    me: int = view["your_seat"]
    n = rules.players
    sizes: list[int] = list(view["hand_cards_left"])
    played: set[int] = set()
    voids: list[set[int]] = [set() for _ in range(n)]
    tricks = [t["cards"] for t in view["trick_history"]]
    leaders = [t["leader"] for t in view["trick_history"]]
    if view["current_trick"]:
        tricks.append([t["card"] for t in view["current_trick"]])
        leaders.append(view["current_trick"][0]["seat"])
    for cards, leader in zip(tricks, leaders, strict=True):
        idx = [Card.parse(c).index for c in cards]
        played.update(idx)
        led = idx[0] // 13
        for i, c in enumerate(idx[1:], start=1):
            if c // 13 != led:
                voids[(leader + i) % n].add(led)
    mine = {Card.parse(c).index for c in view["your_hand"]}
    seen = set(mine) | played
    if view.get("face_up"):
        seen.add(Card.parse(view["face_up"]).index)
    for key in ("your_discards", "your_kitty"):
        for c in view.get(key) or []:
            seen.add(Card.parse(c).index)
    if view.get("your_swapped_card"):
        seen.add(Card.parse(view["your_swapped_card"]).index)
    known: list[set[int]] = [set() for _ in range(n)]
    batches = view["exchange"]
    for number, batch in enumerate(batches):
        given = {Card.parse(c).index for c in batch.get("given", [])}
        returned = {Card.parse(c).index for c in batch.get("returned", [])}
        later = batches[number + 1 :]
        if batch["from"] == me and not any(b["to"] == batch["to"] for b in later):
            # Kept by the receiver (nobody traded with it afterwards).
            known[batch["to"]] |= given - returned
        elif batch["to"] == me and not any(b["from"] == batch["from"] for b in later):
            # Returned to the giver, which gave nothing afterwards.
            known[batch["from"]] |= returned
    # A dealer who discarded, or a seat that swapped, may have put a known card out of play.
    unsure = {view["dealer"]} if view.get("discarded") else set()
    if view.get("swap"):
        unsure.add(view["swap"]["seat"])
    for seat in unsure:
        known[seat] = set()
    if rules.kitty_order == "discard_then_take":  # shown after the discard: still held
        for shown in view.get("disclosures", []):
            known[shown["from"]] |= {Card.parse(c).index for c in shown["cards"]}
    known[me] = set()
    for seat in range(n):
        known[seat] -= played | mine
    deck = {i for i in range(52) if (rules.deck & FULL_DECK) >> i & 1}
    pool = sorted(deck - seen - set().union(*known))
    slots = [sizes[s] - len(known[s]) if s != me else 0 for s in range(n)]
    for attempt in range(tries + 1):
        respect_voids = attempt < tries
        rng.shuffle(pool)
        left = list(slots)
        out_slots = len(pool) - sum(left)
        hands: list[set[int]] = [set(k) for k in known]
        ok = True
        for c in pool:
            suit = c // 13
            options = [s for s in range(n) if left[s] and not (respect_voids and suit in voids[s])]
            weights = [left[s] for s in options]
            total = sum(weights) + out_slots
            if total == 0:
                ok = False
                break
            pick = rng.random() * total
            for s, w in zip(options, weights, strict=True):
                if pick < w:
                    hands[s].add(c)
                    left[s] -= 1
                    break
                pick -= w
            else:
                out_slots -= 1
        if ok and not any(left):
            hands[me] = set(mine)
            return [[CARDS[i] for i in sorted(h)] for h in hands]
    raise ValueError("no assignment of hands fits this view")  # pragma: no cover
