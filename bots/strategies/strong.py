"""``house:strong``: determinized search (perfect-information Monte Carlo) for card play.

For each play decision, until the time budget runs out, it deals the cards it cannot see
at random within everything its view tells (:class:`games.engine.kernel.Determinizer`:
hand sizes, voids shown, exchanged and returned cards, disclosed kitty cards, the swap),
and on that deal scores every legal card by the tricks it ends the hand with: a greedy
playout (:func:`.search.greedy_playout`) after the card, or, once few cards are left, an
exact search (:func:`.search.exact_tricks`). Every card is scored on the same deals; it
plays the best average -- most tricks, i.e. the best (tricks - target), or fewest at
misère. Ties go to the heuristic's card. Bids, calls, discards, gives and swaps are the
heuristic's.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any

from bots.strategies.heuristic import choose_heuristic, choose_play
from bots.strategies.knowledge import SUIT_OF_CALL, card_index, names
from bots.strategies.search import exact_tricks, greedy_playout, heuristic_playout
from games.engine import Rules
from games.engine.kernel import Determinizer, known_voids

#: Exact search once at most this many cards are left in all hands together.
ENDGAME_CARDS = 12
#: Playouts per candidate card per deal (more of them evens out a deal's randomness).
PLAYOUTS_PER_DEAL = 1
#: A cap on the deals per decision (None: the time budget alone decides); for experiments
#: that must not depend on the machine's load.
MAX_DEALS: int | None = None
#: The playout policy: "greedy" (fast, sees all hands) or "heuristic" (house:heuristic's
#: card play for every seat, from what each would know).
ROLLOUT = "greedy"


def choose_strong(view: Mapping[str, Any], rng: random.Random, budget: float) -> dict[str, Any]:
    """The strong action for a seated view, thinking about ``budget`` seconds at most
    (a play with one legal card, and other phases, are immediate)."""
    if view["phase"] != "play":
        return choose_heuristic(view, rng, budget)
    legal = [card_index(a["card"]) for a in view["legal_actions"]]
    if len(legal) == 1:
        return {"type": "play", "card": names(1 << legal[0])[0]}
    return {"type": "play", "card": names(1 << search_play(view, legal, rng, budget))[0]}


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
    start = time.perf_counter()
    deadline = start + budget
    me: int = view["your_seat"]
    call = view.get("trump") or ""
    trump = SUIT_OF_CALL.get(call, -1)
    misere = call == "MIZ"
    current = [card_index(t["card"]) for t in view["current_trick"]]
    leader: int = view["current_trick"][0]["seat"] if current else view["to_act"][0]
    tricks: list[int] = list(view["tricks"])
    determinizer = Determinizer(view)
    voids = known_voids(view)
    deck = Rules.from_dict(view["rules"]).deck
    played = 0
    for t in view["trick_history"]:
        for c in t["cards"]:
            played |= 1 << card_index(c)
    for c in current:
        played |= 1 << c
    exact = sum(view["hand_cards_left"]) <= ENDGAME_CARDS
    totals = dict.fromkeys(legal, 0)
    deals = 0
    while True:
        masks = determinizer.deal(rng)
        hands = [[(mask >> (13 * s)) & 0x1FFF for s in range(4)] for mask in masks]
        out = deck & ~played
        for mask in masks:
            out &= ~mask
        for card in legal:
            suit, rank = divmod(card, 13)
            hands[me][suit] ^= 1 << rank
            trick = [*current, card]
            if exact:
                totals[card] += exact_tricks(hands, trump, leader, trick, me, misere)
            elif ROLLOUT == "heuristic":
                totals[card] += heuristic_playout(
                    hands, trump, leader, trick, tricks, voids, out | 1 << card, misere
                )[me]
            else:
                for _ in range(PLAYOUTS_PER_DEAL):
                    totals[card] += greedy_playout(
                        hands, trump, leader, trick, tricks, rng, misere
                    )[me]
            hands[me][suit] ^= 1 << rank
        deals += 1
        if time.perf_counter() >= deadline if max_deals is None else deals >= max_deals:
            break
        if exact and deals >= 64 and max_deals is None:
            break  # the search is exact per deal: more deals add little
    sign = -1 if misere else 1
    preferred = card_index(choose_play(view))
    return max(legal, key=lambda c: (sign * totals[c], c == preferred))
