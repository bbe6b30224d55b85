"""``house:strong``: determinized search (perfect-information Monte Carlo) over the engine.

**Card play.** Until the time budget runs out (or for ``MAX_DEALS`` deals) it deals the
cards it cannot see at random within everything its view tells
(:class:`.inference.Determinizer`: hand sizes, voids shown, exchanged and returned cards,
disclosed kitty cards, the swap), and on each such deal scores every legal card by the
tricks it ends the hand with: a playout after the card in which every seat plays
``house:heuristic``'s card play from what that seat would know
(:func:`.search.heuristic_playout`), or, once few cards are left, an exact search
(:func:`.search.exact_tricks`, the others playing against it). Every card is scored on
the same deals. The deals are fitted to what the others played (:func:`fitted_deal`): a
random deal is replayed with every other seat playing ``house:heuristic`` from what it
knew (:func:`.search.misses`; the dealer knows its own discards, :func:`known_out`), and at
the first play the heuristic would not have made, the card it would have played instead
is swapped out of that seat's hand with a card of another place the view allows, until
every play is explained (or a few swaps on a few fresh deals fail: then the deal that
explained the most plays). A model of the opponents within what the view allows; against
``house:heuristic`` the true deal always fits. A seat whose plays the repaired deals keep
failing to explain (every one of a decision's first deals, e.g. ``house:random``
or a person who plays otherwise) is not modelled for the rest of that decision: its plays
are taken as they come instead of bending its hand until they fit, and in the playouts
it plays a uniformly random legal card rather than the heuristic's. A card that falls
clearly behind the best one (paired over the deals so far) stops being searched, leaving
the time to the contenders. It plays the best average: most tricks, i.e. the best
(tricks - target), or fewest at misère. Ties go to the heuristic's card.

**Trump.** As dealer naming a suit, it scores each suit the same way: on random deals of
the unseen cards (the kitty included), it discards and takes the kitty as the heuristic
would with that trump, then plays the hand out by heuristic playouts; it names the suit
with the most tricks on average. (In ``calls``, ``9-5-2-tallyn`` and while an exchange is
still to come after trump, it names the heuristic's call.)

**Discard.** As dealer discarding with a suit named (no exchange pending), it scores a
few discards the same way (:func:`candidate_drops`: the heuristic's, and those that empty
one or two short suits to ruff in), each on the same random deals of the unseen cards and
the kitty still to take, by heuristic playouts, and discards the best on average.

**Elsewhere** -- bids, exchange gives and swaps -- it plays the heuristic's choice. (A
search of the gives like the discard's, with the receiver's returns, measured no better
than the heuristic's gives, and was taken out.)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from bots.strategies.heuristic import (
    choose_heuristic,
    choose_play,
    estimate_tricks,
    least_useful,
)
from bots.strategies.inference import Determinizer, known_voids
from bots.strategies.knowledge import SUIT_OF_CALL, card_index, mask_of, names, part
from bots.strategies.search import exact_tricks, heuristic_playout, misses
from games.engine import Rules

#: Exact search once at most this many cards are left in all hands together.
ENDGAME_CARDS = 12
#: A cap on the deals per decision (None: the time budget alone decides), for a strength that
#: does not depend on the machine's load: experiments, and the platform's
#: ``HOUSE_BOT_STRONG_DEALS`` setting (set here by ``bots.apps``).
MAX_DEALS: int | None = None
#: A card is dropped once it trails the best by this many standard errors (paired).
PRUNE_SE = 3.0
PRUNE_MIN_DEALS = 8
#: Deals are fitted to the play seen by repair (:func:`fitted_deal`): the card the heuristic
#: would have played at the first unexplained play is moved out of that seat's hand
#: (swapped with a card of another place that may hold both), at most REPAIR_STEPS times
#: per fresh deal, on at most REPAIR_FRESH fresh deals.
REPAIR_STEPS = 12
REPAIR_FRESH = 3
#: A seat whose plays stay unexplained in this share of the (at least UNFIT_MIN_DEALS)
#: deals of a decision so far is not modelled as house:heuristic for the rest of it: its
#: plays then constrain nothing but what the view says, and in the playouts it plays a
#: uniformly random legal card. At this share a house:random seat is left out in most
#: decisions and a heuristic seat almost never; a lower share left heuristic seats out
#: far more often.
UNFIT_SHARE = 1.0
UNFIT_MIN_DEALS = 8


def choose_strong(view: Mapping[str, Any], rng: random.Random, budget: float) -> dict[str, Any]:
    """The strong action for a seated view, thinking about ``budget`` seconds at most
    (a play with one legal card, and phases it leaves to the heuristic, are immediate)."""
    phase = view["phase"]
    if phase == "trump":
        suit = search_trump(view, rng, budget)
        if suit is not None:
            return {"type": "trump", "suit": suit}
    if phase == "discard":
        cards = search_discard(view, rng, budget)
        if cards is not None:
            return {"type": "discard", "cards": cards}
    if phase != "play":
        return choose_heuristic(view, rng, budget)
    legal = [card_index(a["card"]) for a in view["legal_actions"]]
    if len(legal) == 1:
        return {"type": "play", "card": names(1 << legal[0])[0]}
    return {"type": "play", "card": names(1 << search_play(view, legal, rng, budget))[0]}


class _Scores:
    """Per candidate, its score on each deal so far; paired pruning of the clear losers."""

    def __init__(self, candidates: list[Any]) -> None:
        self.values: dict[Any, list[int]] = {c: [] for c in candidates}
        self.alive = list(candidates)

    def add(self, candidate: Any, value: int) -> None:
        self.values[candidate].append(value)

    def prune(self, sign: int) -> None:
        """Drop candidates clearly worse than the best (over the deals all have seen)."""
        deals = min(len(self.values[c]) for c in self.alive)
        if deals < PRUNE_MIN_DEALS or len(self.alive) < 2:
            return
        best = max(self.alive, key=lambda c: sign * sum(self.values[c][:deals]))
        keep = []
        for c in self.alive:
            if c == best:
                keep.append(c)
                continue
            d = [sign * (a - b) for a, b in zip(self.values[best], self.values[c], strict=False)]
            d = d[:deals]
            mean = sum(d) / deals
            var = sum((x - mean) ** 2 for x in d) / (deals - 1)
            se = math.sqrt(var / deals) if var > 0 else 0.0
            if mean <= 0 or mean < PRUNE_SE * se or (se == 0 and mean < 0.5):
                keep.append(c)
        self.alive = keep

    def best(self, sign: int, preferred: Any) -> Any:
        def mean(c: Any) -> float:
            v = self.values[c]
            return sum(v) / len(v) if v else -math.inf

        return max(self.alive, key=lambda c: (sign * mean(c), c == preferred))


def search_play(
    view: Mapping[str, Any],
    legal: list[int],
    rng: random.Random,
    budget: float,
    max_deals: int | None = None,
) -> int:
    """The card (index) to play among ``legal``: the best average over random deals of
    the unseen cards, searched for ``budget`` seconds, or over exactly ``max_deals`` deals
    if given (the budget is then ignored: a decision that does not depend on the speed
    of the machine)."""
    max_deals = MAX_DEALS if max_deals is None else max_deals
    deadline = time.perf_counter() + budget
    me: int = view["your_seat"]
    call = view.get("trump") or ""
    trump = SUIT_OF_CALL.get(call, -1)
    misere = call == "MIZ"
    sign = -1 if misere else 1
    current = [card_index(t["card"]) for t in view["current_trick"]]
    leader: int = view["current_trick"][0]["seat"] if current else view["to_act"][0]
    tricks: list[int] = list(view["tricks"])
    determinizer = Determinizer(view)
    voids = known_voids(view)
    known = known_out(view)
    deck = Rules.from_dict(view["rules"]).deck
    played = 0
    for t in view["trick_history"]:
        played |= mask_of(t["cards"])
    for c in current:
        played |= 1 << c
    exact = sum(view["hand_cards_left"]) <= ENDGAME_CARDS
    plays, leaders = plays_seen(view)
    scores = _Scores(legal)
    deals = 0
    unexplained = [0] * len(view["hand_cards_left"])
    unmodelled = 0
    while True:
        if plays:
            masks, seat = fitted_deal(
                determinizer, rng, deck & ~played, trump, misere, plays, leaders, me, known,
                unmodelled,
            )  # fmt: skip
            if seat is not None:
                unexplained[seat] += 1
            if deals + 1 >= UNFIT_MIN_DEALS:
                for other, count in enumerate(unexplained):
                    if count >= UNFIT_SHARE * (deals + 1):
                        # It does not play like the model: infer nothing from its plays
                        # rather than bend its hand until they fit.
                        unmodelled |= 1 << other
        else:
            masks = determinizer.deal(rng)
        hands = [[(mask >> (13 * s)) & 0x1FFF for s in range(4)] for mask in masks]
        out = deck & ~played
        for mask in masks:
            out &= ~mask
        for card in scores.alive:
            suit, rank = divmod(card, 13)
            hands[me][suit] ^= 1 << rank
            trick = [*current, card]
            if exact:
                value = exact_tricks(hands, trump, leader, trick, me, misere)
            else:
                value = heuristic_playout(
                    hands, trump, leader, trick, tricks, voids, out | 1 << card, misere, known,
                    unmodelled, rng,
                )[me]  # fmt: skip
            scores.add(card, value)
            hands[me][suit] ^= 1 << rank
        deals += 1
        if time.perf_counter() >= deadline if max_deals is None else deals >= max_deals:
            break
        if exact and deals >= 64 and max_deals is None:
            break  # the search is exact per deal: more deals add little
        if deals % 4 == 0:
            scores.prune(sign)
            if len(scores.alive) == 1 and max_deals is None:
                break
    return int(scores.best(sign, card_index(choose_play(view))))


def plays_seen(view: Mapping[str, Any]) -> tuple[list[tuple[int, int]], list[int]]:
    """The plays of this hand so far as ``(seat, card)`` in order, and each trick's leader
    (the current trick's included), as :func:`.search.misses` takes them."""
    n = len(view["hand_cards_left"])
    current = [card_index(t["card"]) for t in view["current_trick"]]
    leader: int = view["current_trick"][0]["seat"] if current else view["to_act"][0]
    plays: list[tuple[int, int]] = []
    leaders: list[int] = []
    for t in [*view["trick_history"], {"leader": leader, "cards": []}]:
        leaders.append(t["leader"])
        plays.extend(((t["leader"] + i) % n, card_index(c)) for i, c in enumerate(t["cards"]))
    plays.extend(((leader + i) % n, c) for i, c in enumerate(current))
    return plays, leaders


def known_out(view: Mapping[str, Any]) -> list[int]:
    """Per seat, a mask of cards out of play that seat knows of (so they are not unseen
    to it when it is modelled as ``house:heuristic``): the face-up card for all; the
    viewer's own discards and swapped-away card; all of them for a dealer that took the
    kitty and discarded (with the kitty taken, what is out of play is its discards)."""
    rules = Rules.from_dict(view["rules"])
    public = mask_of([view["face_up"]]) if view.get("face_up") else 0
    known = [public] * rules.players
    me: int = view["your_seat"]
    known[me] |= mask_of(view.get("your_discards") or [])
    if view.get("your_swapped_card"):
        known[me] |= mask_of([view["your_swapped_card"]])
    if rules.kitty == "dealer" and view["discarded"] and view["dealer"] != me:
        known[view["dealer"]] = rules.deck
    return known


def fitted_deal(
    determinizer: Determinizer,
    rng: random.Random,
    live: int,
    trump: int,
    misere: bool,
    plays: list[tuple[int, int]],
    leaders: list[int],
    me: int,
    known: list[int],
    unmodelled: int = 0,
) -> tuple[list[int], int | None]:
    """A random deal of the unseen cards repaired until ``house:heuristic``, holding it,
    would have made every play seen (``live``: the cards not yet played), with the seat
    whose play it still does not explain (None: it explains them all; the plays of the
    seats in the mask ``unmodelled`` are taken as they come). At the first
    unexplained play, the card the heuristic would have played instead is swapped with a
    card of another place (seat or out of play) where it may be and whose card may be in
    the seat's hand (the view's facts hold throughout). Against heuristic opponents only
    deals that explain every play are possible, and random deals rarely do. Gives up after
    ``REPAIR_STEPS`` swaps on ``REPAIR_FRESH`` fresh deals and returns the deal that
    explained the most plays before its first miss."""
    best: tuple[int, list[int], int] | None = None
    for _ in range(REPAIR_FRESH):
        masks = determinizer.deal(rng)
        for _ in range(REPAIR_STEPS + 1):
            out = live
            for mask in masks:
                out &= ~mask
            _, first = misses(masks, trump, misere, plays, leaders, out, me, 0, known, unmodelled)
            if first is None:
                return masks, None
            number, seat, card = first
            if best is None or number > best[0]:
                best = (number, list(masks), seat)
            if not masks[seat] >> card & 1:
                # It played that card later: something else in its hand is wrong; move one
                # of its present cards at random.
                picks = _cards(masks[seat])
                if not picks:
                    break
                card = picks[int(rng.random() * len(picks))]
            if not _move(determinizer, masks, out, seat, card, me, rng):
                break
    assert best is not None
    return best[1], best[2]


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low.bit_length() - 1)
    return out


def _move(
    determinizer: Determinizer,
    masks: list[int],
    out: int,
    source: int,
    card: int,
    me: int,
    rng: random.Random,
) -> bool:
    """Swap ``card`` from place ``source`` (a seat, or ``len(masks)``: out of play) with a
    random card of another place (not ``me``) that may hold it and whose card may be in
    ``source``; False if there is none."""
    n = len(masks)
    where = determinizer.place_mask(card)
    options = []
    for place in range(n + 1):
        if place in (source, me) or not where >> place & 1:
            continue
        for other in _cards(masks[place] if place < n else out):
            if determinizer.place_mask(other) >> source & 1:
                options.append((place, other))
    if not options:
        return False
    place, other = options[int(rng.random() * len(options))]
    swap = 1 << card | 1 << other
    if source < n:
        masks[source] ^= swap
    if place < n:
        masks[place] ^= swap
    return True


def _search(
    candidates: list[Any],
    deal: Callable[[], list[int]],
    evaluate: Callable[[list[int], Any], int],
    preferred: Any,
    budget: float,
    max_deals: int | None,
) -> Any:
    """The candidate with the most tricks on average over random deals (``deal()``: hands
    as card masks per seat; ``evaluate(masks, candidate)``: the seat's tricks), every
    candidate scored on the same deals, clear losers pruned, for ``budget`` seconds or
    exactly ``max_deals`` deals (default ``MAX_DEALS``). Ties go to ``preferred``."""
    max_deals = MAX_DEALS if max_deals is None else max_deals
    deadline = time.perf_counter() + budget
    scores = _Scores(candidates)
    deals = 0
    while len(candidates) > 1:
        masks = deal()
        for candidate in scores.alive:
            scores.add(candidate, evaluate(masks, candidate))
        deals += 1
        if time.perf_counter() >= deadline if max_deals is None else deals >= max_deals:
            break
        if deals % 4 == 0:
            scores.prune(1)
            if len(scores.alive) == 1 and max_deals is None:
                break
    return scores.best(1, preferred) if len(candidates) > 1 else candidates[0]


def _play_hand(masks: list[int], me: int, trump: int, eldest: int, rules: Rules, out: int) -> int:
    """The tricks ``me`` ends the hand with when every seat, holding ``masks`` after the
    kitty, plays the heuristic's cards from the first lead (``out``: cards out of play)."""
    hands = [[(m >> (13 * s)) & 0x1FFF for s in range(4)] for m in masks]
    tricks = [0] * rules.players
    dealer = (eldest - 1) % rules.players
    if rules.discard_trick:
        tricks[dealer] += 1
    # The dealer knows its own discards (the cards out of play here); the others do not.
    known = [0] * rules.players
    known[dealer] = rules.deck
    return heuristic_playout(
        hands, trump, eldest, [], tricks, [0] * rules.players, out, False, known
    )[me]


def _dealer_kitty(hand: int, kitty: int, trump: int, rules: Rules) -> tuple[int, int]:
    """The dealer's hand after the heuristic's discard for ``trump`` and taking ``kitty``
    (in the order the rules say), and the discards."""

    def value(h: int) -> float:
        return estimate_tricks(h, trump)

    take_first = rules.kitty_order == "take_then_discard"
    discards = least_useful(hand | kitty if take_first else hand, rules.kitty_size, value)
    return (hand | kitty) & ~discards, discards


def candidate_drops(hand: int, count: int, value: Callable[[int], float]) -> list[int]:
    """Sets of ``count`` cards worth trying to discard: the heuristic's
    (:func:`.heuristic.least_useful` by ``value``), and every way to empty one or two short
    suits (a void to ruff in); each filled up to ``count`` by the heuristic's choice among
    the rest."""

    def filled(chosen: int) -> int:
        rest = count - chosen.bit_count()
        return chosen | least_useful(hand & ~chosen, rest, value) if rest > 0 else chosen

    out = [least_useful(hand, count, value)]
    held = [part(hand, s) for s in range(4)]
    for suit in range(4):
        ranks = held[suit]
        low = 0
        while ranks and low.bit_count() < count:
            low |= ranks & -ranks
            ranks &= ranks - 1
        if low and not ranks:  # it empties the suit
            out.append(filled(low << (13 * suit)))
    for a in range(4):
        for b in range(a + 1, 4):
            both = held[a].bit_count() + held[b].bit_count()
            if held[a] and held[b] and both <= count:
                out.append(filled(held[a] << (13 * a) | held[b] << (13 * b)))
    return list(dict.fromkeys(out))


def search_trump(
    view: Mapping[str, Any],
    rng: random.Random,
    budget: float,
    max_deals: int | None = None,
) -> str | None:
    """The trump suit that does best on random deals (see the module doc), or ``None``
    where the strong bot leaves the call to the heuristic."""
    rules = Rules.from_dict(view["rules"])
    allowed = [a["suit"] for a in view["legal_actions"]]
    pending = any(not b["done"] for b in view["exchange"])
    if rules.calls or rules.sequence == "tallyn" or pending or allowed != ["C", "D", "H", "S"]:
        return None
    if rules.kitty not in ("dealer", "none") or (rules.kitty == "dealer" and view["discarded"]):
        return None
    me: int = view["your_seat"]
    hand = mask_of(view["your_hand"])
    kitty = rules.kitty == "dealer"
    determinizer = Determinizer(view)
    eldest = (view["dealer"] + 1) % rules.players

    def evaluate(masks: list[int], trump: int) -> int:
        # Before the dealer's discard the only cards out of play are the kitty.
        kitty_cards = rules.deck
        for mask in masks:
            kitty_cards &= ~mask
        mine, discards = _dealer_kitty(hand, kitty_cards, trump, rules) if kitty else (hand, 0)
        return _play_hand([*masks[:me], mine, *masks[me + 1 :]], me, trump, eldest, rules, discards)

    preferred = max(range(4), key=lambda s: estimate_tricks(hand, s))
    best = _search(
        list(range(4)), lambda: determinizer.deal(rng), evaluate, preferred, budget, max_deals
    )
    return "CDHS"[best]


def search_discard(
    view: Mapping[str, Any],
    rng: random.Random,
    budget: float,
    max_deals: int | None = None,
) -> list[str] | None:
    """The dealer's discard that does best on random deals of the unseen cards (the kitty
    included, when it has not been taken yet): each of :func:`candidate_drops` for the
    trump named, then playouts; ``None`` where it is left to the heuristic (no suit named
    yet, misère or no trump, an exchange still to come)."""
    rules = Rules.from_dict(view["rules"])
    trump = SUIT_OF_CALL.get(view.get("trump") or "", -1)
    pending = any(not b["done"] for b in view["exchange"])
    if trump < 0 or pending or rules.sequence == "tallyn" or rules.kitty != "dealer":
        return None
    me: int = view["your_seat"]
    hand = mask_of(view["your_hand"])
    count: int = view["legal_actions"][0]["count"]
    determinizer = Determinizer(view)
    eldest = (view["dealer"] + 1) % rules.players

    def value(h: int) -> float:
        return estimate_tricks(h, trump)

    candidates = candidate_drops(hand, count, value)

    def evaluate(masks: list[int], discards: int) -> int:
        # What nobody holds is the kitty still to take (none once it is in the hand).
        kitty = rules.deck
        for mask in masks:
            kitty &= ~mask
        mine = (hand | kitty) & ~discards
        return _play_hand([*masks[:me], mine, *masks[me + 1 :]], me, trump, eldest, rules, discards)

    best = _search(
        candidates, lambda: determinizer.deal(rng), evaluate, candidates[0], budget, max_deals
    )
    return names(best)
