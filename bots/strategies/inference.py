"""What a seat's view says about the cards it cannot see: inference for the house bots.

Bots work from what they may know, so the usual pattern is *determinization*: take the
seat's view, deal the cards it cannot see to the other seats in some way consistent with
what it knows, build a kernel (:class:`games.engine.kernel.PlayoutState`) and play it out::

    import random
    from bots.strategies.inference import random_hands
    from games.engine.kernel import PlayoutState

    view = game.view(seat)                  # what the bot may know
    rng = random.Random(7)
    hands = random_hands(view, rng)         # a full assignment consistent with the view
    state = PlayoutState.from_view(view, hands)
    for card in state.legal_cards():        # e.g. evaluate each legal card
        after = state.copy()
        after.play(card)
        total = sum(after.random_playout(rng)[seat] for _ in range(200))

:func:`random_hands` deals the cards the seat cannot see at random among the other seats
and out of play, within every fact the view gives -- hand sizes, voids shown, exchanged,
returned, disclosed and swapped cards; see :class:`Determinizer`, which parses the view
once for many deals (a bot may add its own inference: ``house:strong`` fits the deals to
the play seen). :func:`known_voids` is the voids part alone.

Pure Python over the engine's views (no Django), as every strategy here.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, Final

from games.engine.cards import FULL_DECK, Card, card_list, index_of
from games.engine.rules import Rules

__all__ = ["Determinizer", "known_voids", "random_hands"]

_SUIT_INDEX: Final = {"C": 0, "D": 1, "H": 2, "S": 3}
_TWO_D: Final = 13  # index of 2D


def known_voids(view: Mapping[str, Any]) -> list[int]:
    """Per seat, a mask of the suits (bit ``suit``) it has failed to follow in this hand's
    tricks (the current trick included), i.e. holds none of."""
    n = len(view["hand_cards_left"])
    voids = [0] * n
    tricks = [(t["leader"], t["cards"]) for t in view["trick_history"]]
    if view["current_trick"]:
        trick = view["current_trick"]
        tricks.append((trick[0]["seat"], [t["card"] for t in trick]))
    for leader, cards in tricks:
        led = cards[0][-1]
        for i in range(1, len(cards)):
            if cards[i][-1] != led:
                voids[(leader + i) % n] |= 1 << _SUIT_INDEX[led]
    return voids


class Determinizer:
    """What a seat's view says about the cards it cannot see, ready for dealing them at
    random (:meth:`deal`) many times over.

    Every card the viewer has not seen (not in its hand, not played this hand, not the
    face-up card, not its own discards or swapped-away card) goes either to another
    seat, up to its hand size, or out of play (discards, kitty, a swapped-out card), within
    the places the view allows for it:

    * a seat known void in a suit (it did not follow it) gets none of it;
    * cards the viewer gave in the exchange and that were not sent back stay with their
      receiver, and cards it returned stay with their giver -- unless a later batch of the
      exchange could have moved them; a dealer that discarded afterwards, or a seat that
      swapped, may also have put them out of play;
    * a down player that returned the viewer cards of a suit kept none of that suit above
      the lowest of them (returns are its highest cards), unless a later batch reached it,
      save kitty cards the dealer showed the viewer (the dealer's disclosure);
    * kitty cards shown to the viewer are the dealer's (or among its discards when it
      discarded after taking the kitty);
    * in ``9-5-3-single-kitty`` the card taken by the swapper is its, and the 2D, which it
      held, is its or out of play.

    The deal is random among the assignments fitting these facts, but not exactly uniform.
    """

    __slots__ = (
        "_allowed", "_fixed", "_me", "_mine", "_n", "_out_slots", "_pool", "_slots", "_where"
    )  # fmt: skip

    def __init__(self, view: Mapping[str, Any]) -> None:
        def idx(text: str) -> int:
            return Card.parse(text).index

        rules = Rules.from_dict(view["rules"])
        me: int = view["your_seat"]
        n = rules.players
        everywhere = (1 << (n + 1)) - 1 & ~(1 << me)  # every seat but mine, and out (bit n)
        out = 1 << n
        sizes: list[int] = list(view["hand_cards_left"])
        played: set[int] = {idx(c) for t in view["trick_history"] for c in t["cards"]}
        played |= {idx(t["card"]) for t in view["current_trick"]}
        mine = {idx(c) for c in view["your_hand"]}
        seen = mine | played
        if view.get("face_up"):
            seen.add(idx(view["face_up"]))
        # (The kitty a dealer took is in its hand, its discards, or given away since.)
        seen |= {idx(c) for c in view.get("your_discards") or []}
        if view.get("your_swapped_card"):
            seen.add(idx(view["your_swapped_card"]))
        # allowed[card]: the places (bit seat, bit n = out of play) it may be in.
        allowed: dict[int, int] = {}

        def restrict(cards: Iterable[int], places: int) -> None:
            for c in cards:
                if c not in seen:
                    allowed[c] = allowed.get(c, everywhere) & places

        dealer: int = view["dealer"]
        unsure = {dealer} if view.get("discarded") else set()
        swap = view.get("swap")
        if swap:
            unsure.add(swap["seat"])

        def holder(seat: int) -> int:
            """The places of a card known to be with ``seat`` when it was last traded."""
            return (1 << seat) | (out if seat in unsure else 0)

        shown: set[int] = set()
        for shown_batch in view.get("disclosures") or []:
            cards = {idx(c) for c in shown_batch["cards"]}
            shown |= cards
            restrict(cards, holder(shown_batch["from"]))
        batches = view["exchange"]
        for number, batch in enumerate(batches):
            given = {idx(c) for c in batch.get("given", [])}
            returned = {idx(c) for c in batch.get("returned", [])}
            later = batches[number + 1 :]
            giver, receiver = batch["from"], batch["to"]
            if giver == me and not any(b["to"] == receiver for b in later):
                restrict(given - returned, holder(receiver))
                for suit in {c // 13 for c in returned}:
                    lowest = min(c for c in returned if c // 13 == suit)
                    above = set(range(lowest + 1, 13 * suit + 13)) - shown
                    restrict(above, everywhere & ~(1 << receiver))
            elif receiver == me and not any(b["from"] == giver for b in later):
                restrict(returned, holder(giver))
        if swap and swap["seat"] != me:
            restrict([idx(swap["taken"])], 1 << swap["seat"])
            restrict([_TWO_D], holder(swap["seat"]))
        for seat, suits in enumerate(known_voids(view)):
            for suit in range(4):
                if suits >> suit & 1:
                    restrict(range(13 * suit, 13 * suit + 13), everywhere & ~(1 << seat))
        deck = {i for i in range(52) if (rules.deck & FULL_DECK) >> i & 1}
        pool = sorted(deck - seen)
        self._n = n
        self._me = me
        self._mine = mine
        self._slots = [sizes[s] if s != me else 0 for s in range(n)]
        self._out_slots = len(pool) - sum(self._slots)
        fixed: list[set[int]] = [set() for _ in range(n)]
        free: list[int] = []
        for c in pool:
            places = allowed.get(c, everywhere)
            if places & (places - 1) == 0 and places & ~out:  # a single seat
                fixed[places.bit_length() - 1].add(c)
            else:
                free.append(c)
        self._fixed = fixed
        # The most constrained cards are dealt first, so a random deal rarely gets stuck.
        self._pool = sorted(free, key=lambda c: allowed.get(c, everywhere).bit_count())
        self._allowed = [allowed.get(c, everywhere) for c in self._pool]
        self._where = {c: 1 << seat for seat, cards in enumerate(fixed) for c in cards}
        self._where.update(zip(self._pool, self._allowed, strict=True))

    def place_mask(self, card: int) -> int:
        """Where the unseen card (index) may be, as a mask: bit ``seat``, and bit
        ``players`` for out of play; 0 for a card the viewer has seen. (For bots that move
        cards between places of a deal, e.g. to repair it against their own inference.)"""
        return self._where.get(card, 0)

    def places(self, card: Card | str | int) -> set[int | None]:
        """Where an unseen card may be: seats, and ``None`` for out of play (empty for a
        card the viewer has seen)."""
        c = index_of(card)
        for seat, cards in enumerate(self._fixed):
            if c in cards:
                return {seat}
        if c not in self._pool:
            return set()
        places = self._allowed[self._pool.index(c)]
        out: set[int | None] = {s for s in range(self._n) if places >> s & 1}
        if places >> self._n & 1 and self._out_slots:
            out.add(None)
        return out

    def deal(self, rng: random.Random, tries: int = 200) -> list[int]:
        """A random assignment: per seat, a mask of card indices (the viewer's own hand
        included). If random dealing keeps getting stuck it ignores the facts about
        voids and returns after ``tries`` attempts (it never should: they are facts)."""
        n = self._n
        base = [len(f) for f in self._fixed]
        pool, allowed = self._pool, self._allowed
        rand = rng.random
        for attempt in range(tries + 1):
            strict = attempt < tries
            order = list(range(len(pool)))
            rng.shuffle(order)
            order.sort(key=lambda i: allowed[i].bit_count() if strict else 0)
            left = [self._slots[s] - base[s] for s in range(n)] + [self._out_slots]
            hands = [0] * n
            for s in range(n):
                for c in self._fixed[s]:
                    hands[s] |= 1 << c
            for i in order:
                places = allowed[i] if strict else (1 << (n + 1)) - 1 & ~(1 << self._me)
                total = 0
                for p in range(n + 1):
                    if places >> p & 1:
                        total += left[p]
                if total == 0:
                    break
                pick = rand() * total
                chosen = -1
                for p in range(n + 1):
                    if places >> p & 1 and left[p]:
                        chosen = p
                        if pick < left[p]:
                            break
                        pick -= left[p]
                left[chosen] -= 1
                if chosen < n:
                    hands[chosen] |= 1 << pool[i]
            else:
                for c in self._mine:
                    hands[self._me] |= 1 << c
                return hands
        raise ValueError("no assignment of hands fits this view")  # pragma: no cover


def random_hands(view: Mapping[str, Any], rng: random.Random, tries: int = 200) -> list[list[Card]]:
    """A random full assignment of hands consistent with a seat's view: the viewer keeps
    its own hand, the cards it cannot see are dealt as :class:`Determinizer` says. To deal
    many times from one view, build a :class:`Determinizer` once and call its ``deal``."""
    return [card_list(mask) for mask in Determinizer(view).deal(rng, tries)]
