"""house:strong's searched discard: legal, from the view only, and better than the
heuristic's where one choice is clearly better."""

from __future__ import annotations

import random
from typing import Any

from bots.strategies.heuristic import choose_heuristic, least_useful
from bots.strategies.knowledge import mask_of, part
from bots.strategies.strong import candidate_drops, search_discard
from games.engine import Game, Rules


def _deal(seed: str) -> dict[str, Any]:
    return Game.new("classic", seed=seed).record()["deals"][0]


def _swap_hidden(deal: dict[str, Any], a: int, b: int) -> dict[str, Any]:
    """The deal with one card swapped between seats ``a`` and ``b``."""
    hands = [list(h) for h in deal["hands"]]
    hands[a][0], hands[b][-1] = hands[b][-1], hands[a][0]
    return {"hands": hands, "kitty": deal["kitty"]}


def _to_phase(game: Game, phase: str) -> int:
    """Plays ``house:heuristic`` for every seat until ``phase``; the seat to act."""
    rng = random.Random(0)
    while game.phase != phase:
        seat = game.to_move()
        assert seat is not None
        game.apply_dict(seat, choose_heuristic(game.view(seat), rng, 0.0))
    seat = game.to_move()
    assert seat is not None
    return seat


def test_it_searches_a_legal_discard_from_the_view_only() -> None:
    deal = _deal("discard-twins")
    a = Game.from_deals("classic", [deal], 0)
    b = Game.from_deals("classic", [_swap_hidden(deal, 1, 2)], 0)
    for game in (a, b):
        game.apply_dict(0, {"type": "trump", "suit": "S"})
    assert _to_phase(a, "discard") == _to_phase(b, "discard") == 0
    assert a.view(0) == b.view(0) and a.hand(1) != b.hand(1)
    first = search_discard(a.view(0), random.Random(1), 9.0, max_deals=6)
    second = search_discard(b.view(0), random.Random(1), 9.0, max_deals=6)
    assert first == second and first is not None
    assert len(set(first)) == 4 and set(first) <= set(a.view(0)["your_hand"])
    a.apply_dict(0, {"type": "discard", "cards": first})  # legal


def test_it_tries_the_heuristics_cards_and_voids() -> None:
    hand = mask_of(
        [
            "2C",
            "3C",
            "AC",
            "4D",
            "5D",
            "6D",
            "7D",
            "KH",
            "2S",
            "3S",
            "4S",
            "5S",
            "6S",
            "7S",
            "8S",
            "AS",
        ]
    )

    def value(h: int) -> float:
        return float(h.bit_count())

    drops = candidate_drops(hand, 3, value)
    assert drops[0] == least_useful(hand, 3, value)
    assert all(d.bit_count() == 3 and d & ~hand == 0 for d in drops)
    assert len(set(drops)) == len(drops)
    assert mask_of(["2C", "3C", "AC"]) in drops  # clubs emptied
    assert any(part(d, 2) for d in drops)  # the singleton KH given up (hearts emptied)
    # Low cards of a suit they do not empty are no discard worth trying.
    assert mask_of(["4D", "5D", "6D"]) not in drops


def test_it_finds_a_clearly_better_discard_than_the_heuristic() -> None:
    # Found by scanning seeded games: the heuristic spreads its discard over three suits
    # (3C QC 3H 3S with spades trumps); emptying hearts instead is worth about one trick
    # more on average over 80 random deals of the unseen cards.
    game = Game.new(Rules.from_preset("classic", max_hands=3), seed="scan-4")
    dealer = _to_phase(game, "discard")
    view = game.view(dealer)
    heuristic = choose_heuristic(view, random.Random(0), 0.0)["cards"]
    assert sorted(heuristic) == sorted(["3C", "QC", "3H", "3S"])
    searched = search_discard(view, random.Random(7), 9.0, max_deals=40)
    assert searched is not None and sorted(searched) == sorted(["3H", "5H", "7H", "9H"])
