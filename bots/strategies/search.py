"""Perfect-information trick play for ``house:strong``, on one determinization (every hand
known): playouts with every seat playing ``house:heuristic``'s cards, an exact search of the
last tricks, and how well the deal explains the play seen (:func:`misses`).

Positions use :class:`games.engine.kernel.PlayoutState`'s layout: ``hands[seat][suit]`` is
a 13-bit rank mask, ``trick`` the card indices (``suit * 13 + rank``) of the trick in
progress led by ``leader``, ``trump`` -1 for none.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.engine.cards import indices
from games.engine.game import trick_winner


def exact_tricks(
    hands: Sequence[Sequence[int]],
    trump: int,
    leader: int,
    trick: Sequence[int],
    me: int,
    misere: bool = False,
) -> int:
    """The tricks ``me`` wins from here (not counting those already won) when it plays
    best and the others play against it (paranoid search: they take the tricks it does not;
    at misère the others try to make it take tricks)."""
    n = len(hands)
    hs = [list(h) for h in hands]
    memo: dict[tuple[object, ...], int] = {}
    sign = -1 if misere else 1

    def value(leader: int, cards: list[int], alpha: int, beta: int) -> int:
        # Returns sign * (tricks of me from here), maximised by me and minimised by others.
        played = len(cards)
        if played == n:
            w = trick_winner(cards, leader, n, trump)
            gained = sign if w == me else 0
            if not any(hs[w]):
                return gained
            return gained + value(w, [], alpha - gained, beta - gained)
        key: tuple[object, ...] | None = None
        if played == 0:
            key = (leader, *(tuple(h) for h in hs))
            hit = memo.get(key)
            if hit is not None:
                return hit
        p = (leader + played) % n
        h = hs[p]
        led = cards[0] // 13 if played else -1
        suits = [led] if led >= 0 and h[led] else [s for s in range(4) if h[s]]
        moves: list[int] = []
        for s in suits:
            m = h[s]
            prev = -2
            for r in range(12, -1, -1):
                if m >> r & 1:
                    # Of touching cards in one hand, trying one is enough.
                    if prev != r + 1:
                        moves.append(s * 13 + r)
                    prev = r
        maximise = p == me
        best = -99 if maximise else 99
        for c in moves:
            s, r = divmod(c, 13)
            h[s] ^= 1 << r
            cards.append(c)
            v = value(leader, cards, alpha, beta)
            cards.pop()
            h[s] ^= 1 << r
            if maximise:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if key is not None and alpha < best < beta:
            memo[key] = best
        return best

    result = value(leader, list(trick), -99, 99)
    return sign * result


def heuristic_playout(
    hands: Sequence[Sequence[int]],
    trump: int,
    leader: int,
    trick: Sequence[int],
    tricks: Sequence[int],
    voids: Sequence[int],
    out: int,
    misere: bool = False,
    known: Sequence[int] | None = None,
    wild: int = 0,
    rng: random.Random | None = None,
) -> list[int]:
    """Play the hand out with every seat playing ``house:heuristic``'s card play from what
    it would know (its own hand, the cards played, the voids shown; ``out`` are the cards
    out of play, of which ``known[seat]`` are known to that seat, e.g. the dealer's own
    discards) and return the final tricks per seat. The seats in the mask ``wild`` play
    a uniformly random legal card instead (``rng`` required then)."""
    from bots.strategies.heuristic import play_from

    n = len(hands)
    held = [sum(m << (13 * s) for s, m in enumerate(h)) for h in hands]
    void = list(voids)
    won = list(tricks)
    cards = list(trick)
    while True:
        if len(cards) == n:
            leader = trick_winner(cards, leader, n, trump)
            won[leader] += 1
            cards = []
            if not held[leader]:
                return won
        p = (leader + len(cards)) % n
        hand = held[p]
        legal = hand
        if cards:
            led = cards[0] // 13
            suited = hand & (0x1FFF << (13 * led))
            if suited:
                legal = suited
            else:
                void[p] |= 1 << led
        if wild >> p & 1:
            assert rng is not None
            options = indices(legal)
            card = options[int(rng.random() * len(options))]
            held[p] = hand & ~(1 << card)
            cards.append(card)
            continue
        unseen = out & ~known[p] if known is not None else out
        for q in range(n):
            if q != p:
                unseen |= held[q]
        card = play_from(
            p, n, hand, legal, trump, misere, cards, leader, unseen, void,
            [h.bit_count() for h in held],
        )  # fmt: skip
        held[p] = hand & ~(1 << card)
        cards.append(card)


def misses(
    hands: Sequence[int],
    trump: int,
    misere: bool,
    plays: Sequence[tuple[int, int]],
    leaders: Sequence[int],
    out: int,
    me: int,
    limit: int = 1 << 30,
    known: Sequence[int] | None = None,
    unmodelled: int = 0,
) -> tuple[int, tuple[int, int, int] | None]:
    """How many of the other seats' plays so far in this hand ``house:heuristic`` would not
    have made had the seats held ``hands`` (card masks now) -- how well a determinization
    fits the play seen -- and the first miss as ``(number, seat, card)``: the play's number
    in ``plays`` and the card ``house:heuristic`` would have played there instead (None
    when every play fits), what a repair of the deal has to move out of that seat's hand.
    ``plays`` are ``(seat, card)`` in order, ``leaders`` the leader of each trick; counting
    stops above ``limit``. ``out``: the cards out of play, of which ``known[seat]`` are
    known to that seat (the dealer's discards). The plays of the seats in the mask
    ``unmodelled`` are not checked."""
    from bots.strategies.heuristic import play_from

    n = len(hands)
    held = list(hands)
    for seat, card in plays:
        held[seat] |= 1 << card
    voids = [0] * n
    count = 0
    first: tuple[int, int, int] | None = None
    trick: list[int] = []
    for number, (seat, card) in enumerate(plays):
        if number % n == 0:
            trick = []
        hand = held[seat]
        legal = hand
        if trick:
            led = trick[0] // 13
            suited = hand & (0x1FFF << (13 * led))
            if suited:
                legal = suited
        if seat != me and not unmodelled >> seat & 1 and legal & (legal - 1):
            unseen = out & ~known[seat] if known is not None else out
            for q in range(n):
                if q != seat:
                    unseen |= held[q]
            choice = play_from(
                seat, n, hand, legal, trump, misere, trick, leaders[number // n], unseen,
                voids, [h.bit_count() for h in held],
            )  # fmt: skip
            if choice != card:
                count += 1
                if first is None:
                    first = (number, seat, choice)
                if count > limit:
                    return count, first
        if trick and card // 13 != trick[0] // 13:
            voids[seat] |= 1 << (trick[0] // 13)
        held[seat] = hand & ~(1 << card)
        trick.append(card)
    return count, first
