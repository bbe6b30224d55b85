"""``house:heuristic``: rules of thumb for every phase, a few hundred microseconds a move.

- **Hand value**: :func:`estimate_tricks` scores a hand for a trump suit (or no trump) from
  honours, trump length, long suits and short suits to ruff in; :func:`estimate_misere`
  the tricks a hand is likely to be forced to take at misère.
- **Bid** (Woburn): the minimum bid when the hand, as dealer with the best trump and the
  kitty, is worth it; otherwise pass (and never raise its own bid).
- **Trump / call**: the call the hand is worth most at; in ``calls`` relative to what an
  average hand is worth at that call, since every call must be made once.
- **Discard, give, swap**: keep the cards that carry the hand's value, i.e. dump the ones
  whose loss costs the least estimated tricks (low cards of short side suits first). A given
  low card also brings back the receiver's highest card of its suit.
- **Card play**: counts trumps and tracks every card played (masters, voids shown). The
  objective is the game's (tricks - target): each overtrick scores like a trick short, so
  it keeps taking tricks after its target; only at misère (``MIZ``, diff = target - tricks)
  does it duck every trick it can. It draws trumps when it holds the top one and at least
  its share, cashes side masters when no opponent can ruff, ruffs when void, wins a trick as
  last player as cheaply as possible, plays low second hand unless it holds the master (or
  the only higher unseen card is unlikely to be behind it), and discards from short suits.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from bots.strategies.knowledge import (
    SUIT_OF_CALL,
    TrickView,
    card_index,
    low_bit,
    mask_of,
    names,
    part,
    top_bit,
)
from games.engine.cards import indices
from games.engine.game import trick_winner

ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8


# ---------------------------------------------------------------------- hand value
@lru_cache(maxsize=65536)
def _suit_value(ranks: int, role: int, trumps: int) -> float:
    """Estimated tricks from one suit: ``role`` 1 trump, 0 side suit with a trump suit
    named, -1 no trump; ``trumps``: the hand's trump count (for ruffing)."""
    length = ranks.bit_count()
    has = [bool(ranks >> r & 1) for r in range(13)]
    if role == 1:
        value = 0.0
        value += 1.0 if has[ACE] else 0.0
        value += (0.9 if length >= 2 else 0.3) if has[KING] else 0.0
        value += 0.7 if has[QUEEN] and length >= 3 else 0.0
        value += 0.4 if has[JACK] and length >= 4 else 0.0
        return value + max(0, length - 3) * 0.85
    value = 0.0
    if has[ACE]:
        value += 1.0 if length <= 5 else 0.8
    if has[KING] and length >= 2:
        value += 0.65 if length <= 5 else 0.45
    if has[QUEEN] and length >= 3 and (has[ACE] or has[KING]):
        value += 0.3
    if role == -1 and length >= 5 and (has[ACE] or has[KING]):
        value += (length - 4) * 0.6
    if role == 0 and length <= 1 and trumps >= 3:
        value += (2 - length) * 0.45
    return value


def estimate_tricks(hand: int, trump: int) -> float:
    """Estimated tricks of ``hand`` with ``trump`` (-1: no trump) as the trump suit."""
    trumps = part(hand, trump).bit_count() if trump >= 0 else 0
    total = 0.0
    for suit in range(4):
        role = -1 if trump < 0 else (1 if suit == trump else 0)
        total += _suit_value(part(hand, suit), role, trumps)
    return total


@lru_cache(maxsize=16384)
def _suit_misere_risk(ranks: int) -> float:
    """Tricks one suit is likely to force on a misère player: high cards not covered by
    low ones to duck with."""
    risk = 0.0
    lows = 0
    for r in range(13):
        if ranks >> r & 1:
            if r <= 4:
                lows += 1
            elif r >= 7:
                risk += (r - 6) / 6 * (0.5 if lows else 1.0)
    return risk


def estimate_misere(hand: int) -> float:
    """Estimated tricks ``hand`` is forced to take at misère (fewer is better)."""
    return sum(_suit_misere_risk(part(hand, s)) for s in range(4))


def best_trump_value(hand: int) -> float:
    return max(estimate_tricks(hand, s) for s in range(4))


def least_useful(hand: int, count: int, value: Callable[[int], float]) -> int:
    """The mask of ``count`` cards whose loss costs ``value`` (higher is better) least, chosen
    one at a time; ties go to the lower rank."""
    chosen = 0
    for _ in range(count):
        best = -1
        best_loss = 0.0
        for c in indices(hand & ~chosen):
            loss = -value(hand & ~chosen & ~(1 << c)) + (c % 13) * 1e-3
            if best < 0 or loss < best_loss:
                best, best_loss = c, loss
        chosen |= 1 << best
    return chosen


def hand_value_for(view: Mapping[str, Any]) -> Callable[[int], float]:
    """How the seat should value a hand now: for the named call, or the best trump."""
    call = view.get("trump")
    if call == "MIZ":
        return lambda hand: -estimate_misere(hand)
    if call is None:
        return best_trump_value
    trump = SUIT_OF_CALL.get(call, -1)
    return lambda hand: estimate_tricks(hand, trump)


# ---------------------------------------------------------------------- non-play phases
#: Rough value of an average 16-card hand at each kind of call, from sampled deals; used
#: in ``calls`` to spend each call on the hand that suits it best.
_CALL_BASELINE = {"suit": 5.4, "NT": 3.3, "MIZ": 3.6}


def choose_call(view: Mapping[str, Any]) -> str:
    hand = mask_of(view["your_hand"])
    calls = [a["suit"] for a in view["legal_actions"]]
    target = view["targets"][view["your_seat"]]

    def merit(call: str) -> float:
        if call == "MIZ":
            return _CALL_BASELINE["MIZ"] - estimate_misere(hand)
        if call == "NT":
            return estimate_tricks(hand, -1) - _CALL_BASELINE["NT"]
        return estimate_tricks(hand, SUIT_OF_CALL[call]) - (
            _CALL_BASELINE["suit"] if len(calls) < 4 or "NT" in calls else target
        )

    return max(calls, key=merit)


def choose_bid(view: Mapping[str, Any]) -> dict[str, Any]:
    auction = view.get("auction") or {}
    high = auction.get("high")
    if high is not None and high["seat"] == view["your_seat"]:
        return {"type": "pass"}
    bids = [a["tricks"] for a in view["legal_actions"] if a["type"] == "bid"]
    if not bids:
        return {"type": "pass"}
    hand = mask_of(view["your_hand"])
    # As dealer it would name its best trump and swap 4 of its worst cards for the kitty.
    worth = best_trump_value(hand) + 1.0
    if worth >= min(bids) + 0.5:
        return {"type": "bid", "tricks": min(bids)}
    return {"type": "pass"}


def choose_discard(view: Mapping[str, Any], count: int) -> list[str]:
    hand = mask_of(view["your_hand"])
    return names(least_useful(hand, count, hand_value_for(view)))


def choose_give(view: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, Any]:
    hand = mask_of(view["your_hand"])
    cards = least_useful(hand, entry["count"], hand_value_for(view))
    return {"type": "give", "to": entry["to"], "cards": names(cards)}


def choose_swap(view: Mapping[str, Any]) -> dict[str, Any]:
    hand = mask_of(view["your_hand"])
    face_up = card_index(view["face_up"]) if view.get("face_up") else -1
    value = hand_value_for(view)
    if face_up < 0:
        return {"type": "no_swap"}
    worst = least_useful(hand, 1, value)
    if value(hand & ~worst | 1 << face_up) > value(hand) + 1e-9:
        return {"type": "swap", "card": names(worst)[0]}
    return {"type": "no_swap"}


# ---------------------------------------------------------------------- card play
def _winning(trick: list[int], trump: int) -> tuple[int, int]:
    """(position in the trick, card) of the card winning the trick so far."""
    # The engine's rule, with the trick's first card as "seat" 0 of a trick-sized table.
    best = trick_winner(trick, 0, len(trick), trump)
    return best, trick[best]


def _higher_unseen(tv: TrickView, card: int) -> int:
    """How many unseen cards of the card's suit rank above it."""
    return (part(tv.unseen, card // 13) >> (card % 13 + 1)).bit_count()


def _lowest_equal(tv: TrickView, card: int) -> int:
    """The lowest card of the hand as good as ``card`` (no unseen card of the suit between
    them; played cards do not separate them)."""
    suit, rank = divmod(card, 13)
    mine, unseen = part(tv.hand, suit), part(tv.unseen, suit)
    best = rank
    for below in range(rank - 1, -1, -1):
        if unseen >> below & 1:
            break
        if mine >> below & 1:
            best = below
    return suit * 13 + best


def _later_seats(tv: TrickView) -> list[int]:
    n = tv.players
    return [(tv.leader + i) % n for i in range(len(tv.trick) + 1, n)]


def _may_ruff(tv: TrickView, seat: int, suit: int) -> bool:
    """Could ``seat`` trump a lead of ``suit``: void in it and maybe holding trumps."""
    if tv.trump < 0 or suit == tv.trump or not tv.voids[seat] >> suit & 1:
        return False
    return bool(part(tv.unseen, tv.trump)) and not tv.voids[seat] >> tv.trump & 1


def _opponents_may_ruff(tv: TrickView, suit: int, seats: list[int]) -> bool:
    if tv.trump < 0 or suit == tv.trump or not part(tv.unseen, tv.trump):
        return False
    if any(_may_ruff(tv, s, suit) for s in seats):
        return True
    # Few unseen cards of the suit left for so many opponents: someone is likely void.
    return part(tv.unseen, suit).bit_count() < len(seats)


def _discard_value(tv: TrickView, card: int) -> float:
    """How much the hand wants to keep ``card`` when it may throw any card."""
    suit, rank = card // 13, card % 13
    value = float(rank)
    if suit == tv.trump:
        value += 20
    if _higher_unseen(tv, card) == 0:
        value += 12
    length = part(tv.hand, suit).bit_count()
    if length == 1 and suit != tv.trump:
        value -= 3  # throwing it makes a void to ruff in
    return value


def _lead(tv: TrickView, legal: list[int]) -> int:
    n = tv.players
    others = [(tv.me + i) % n for i in range(1, n)]
    trump = tv.trump
    if trump >= 0 and part(tv.hand, trump):
        mine = part(tv.hand, trump)
        theirs = part(tv.unseen, trump).bit_count()
        top = trump * 13 + top_bit(mine)
        holders = sum(1 for s in others if not tv.voids[s] >> trump & 1)
        drawing = theirs and holders and _higher_unseen(tv, top) == 0
        if drawing and mine.bit_count() * holders >= theirs:
            return _lowest_equal(tv, top)
    best: tuple[int, int] | None = None
    for suit in range(4):
        if suit == trump or not part(tv.hand, suit):
            continue
        top = suit * 13 + top_bit(part(tv.hand, suit))
        if _higher_unseen(tv, top) == 0 and not _opponents_may_ruff(tv, suit, others):
            key = part(tv.unseen, suit).bit_count()
            if best is None or key > best[0]:
                best = (key, _lowest_equal(tv, top))
    if best is not None:
        return best[1]
    if trump >= 0 and part(tv.hand, trump).bit_count() >= 2:
        for suit in range(4):
            ranks = part(tv.hand, suit)
            if (
                suit != trump
                and ranks.bit_count() == 1
                and _higher_unseen(tv, 13 * suit + top_bit(ranks))
            ):
                return 13 * suit + top_bit(ranks)
    sides = [s for s in range(4) if s != trump and part(tv.hand, s)]
    if not sides:
        return min(legal)
    longest = max(sides, key=lambda s: (part(tv.hand, s).bit_count(), -low_bit(part(tv.hand, s))))
    return 13 * longest + low_bit(part(tv.hand, longest))


def _follow(tv: TrickView, legal: list[int]) -> int:
    led = tv.trick[0] // 13
    _, winner = _winning(tv.trick, tv.trump)
    later = _later_seats(tv)
    lowest = min(legal, key=lambda c: c % 13)
    if legal[0] // 13 == led:
        if winner // 13 != led:  # trumped already: nothing to gain
            return lowest
        beating = [c for c in legal if c > winner]
        if not beating:
            return lowest
        if not later:
            return min(beating)
        if any(_may_ruff(tv, s, led) for s in later):
            return lowest
        top = max(beating)
        if _higher_unseen(tv, top) == 0:
            return _lowest_equal(tv, top)
        # A card with few higher unseen cards left may well stand.
        cheap = min(beating, key=lambda c: (_higher_unseen(tv, c), c))
        unseen_slots = max(1, tv.unseen.bit_count())
        behind = sum(tv.sizes[s] for s in later) / unseen_slots
        if (1 - min(1.0, behind)) ** _higher_unseen(tv, cheap) >= 0.55:
            return cheap
        return lowest
    # Void in the suit led.
    trump = tv.trump
    trumps = [c for c in legal if c // 13 == trump] if trump >= 0 else []
    if trumps:
        over = [c for c in trumps if winner // 13 != trump or c > winner]
        if over:
            if later and any(_may_ruff(tv, s, led) for s in later):
                masters = [c for c in over if _higher_unseen(tv, c) == 0]
                if masters:
                    return min(masters)
            return min(over)
    return min(legal, key=lambda c: _discard_value(tv, c))


def _misere(tv: TrickView, legal: list[int]) -> int:
    """Misère: take as few tricks as possible."""
    if not tv.trick:
        # Lead the card most likely to be beaten.
        return max(legal, key=lambda c: (_higher_unseen(tv, c), -(c % 13)))
    led = tv.trick[0] // 13
    _, winner = _winning(tv.trick, -1)
    if legal[0] // 13 == led:
        under = [c for c in legal if c < winner]
        if under:
            return max(under)
        if not _later_seats(tv):
            return max(legal)  # the trick is ours anyway: shed the highest
        return min(legal)
    # Void: shed the most dangerous card.
    return max(legal, key=lambda c: (c % 13, -_higher_unseen(tv, c)))


def play_from(
    me: int,
    players: int,
    hand: int,
    legal_mask: int,
    trump: int,
    misere: bool,
    trick: list[int],
    leader: int,
    unseen: int,
    voids: list[int],
    sizes: list[int],
) -> int:
    """The heuristic card (index) from a position given as masks (for playouts)."""
    if legal_mask & (legal_mask - 1) == 0:
        return legal_mask.bit_length() - 1  # one legal card
    tv = TrickView(players, me, hand, trump, misere, trick, leader, unseen, voids, sizes, [], [])
    legal = indices(legal_mask)
    if misere:
        return _misere(tv, legal)
    if trick:
        return _follow(tv, legal)
    return _lead(tv, legal)


def choose_play(view: Mapping[str, Any]) -> str:
    tv = TrickView.from_view(view)
    legal = sorted(card_index(a["card"]) for a in view["legal_actions"])
    if len(legal) == 1:
        card = legal[0]
    elif tv.misere:
        card = _misere(tv, legal)
    elif tv.trick:
        card = _follow(tv, legal)
    else:
        card = _lead(tv, legal)
    return names(1 << card)[0]


# ---------------------------------------------------------------------- entry point
def choose_heuristic(view: Mapping[str, Any], rng: random.Random, budget: float) -> dict[str, Any]:
    """The heuristic action for a seated view (deterministic: ``rng`` and ``budget`` are
    unused)."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has nothing to do in this view")
    phase = view["phase"]
    if phase == "play":
        return {"type": "play", "card": choose_play(view)}
    if phase == "trump":
        return {"type": "trump", "suit": choose_call(view)}
    if phase == "discard":
        return {"type": "discard", "cards": choose_discard(view, legal[0]["count"])}
    if phase == "exchange":
        return choose_give(view, legal[0])
    if phase == "bid":
        return choose_bid(view)
    if phase == "swap":
        return choose_swap(view)
    raise ValueError(f"no heuristic for the {phase} phase")
