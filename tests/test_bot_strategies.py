"""house:heuristic and house:strong: legal whole games from views only, and sound play."""

from __future__ import annotations

import random

import pytest

from bots.strategies import choose_action, strategy_for
from bots.strategies.strong import search_play
from games.engine import Game, Rules
from games.engine.cards import Card
from games.engine.deal import Deal
from games.engine.rules import PRESETS

# Tiny budgets keep the suite quick; strong still searches at least one deal per move.
BUDGET = 0.002


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("name", ["house:heuristic", "house:strong"])
def test_it_plays_whole_games_legally_from_views(name: str, preset: str) -> None:
    rng = random.Random(preset)
    game = Game.new(Rules.from_preset(preset, max_hands=2), seed=f"{name}-{preset}")
    phases = set()
    while not game.is_over():
        for seat in game.to_act():
            phases.add(game.phase)
            # apply_dict raises IllegalAction on anything illegal.
            game.apply_dict(seat, choose_action(name, game.view(seat), rng, BUDGET))
    assert game.outcome().hands_played >= 1
    assert "play" in phases


def test_it_makes_every_kind_of_decision_in_the_special_presets() -> None:
    seen: dict[str, set[str]] = {}
    for preset in ("woburn", "calls", "9-5-3-single-kitty", "four-handed", "9-5-2-tallyn"):
        for seed in range(3):
            game = Game.new(Rules.from_preset(preset, max_hands=3), seed=f"kinds-{seed}")
            rng = random.Random(seed)
            while not game.is_over():
                seat = game.to_move()
                assert seat is not None
                action = choose_action("house:heuristic", game.view(seat), rng)
                seen.setdefault(preset, set()).add(action["type"])
                game.apply_dict(seat, action)
    assert {"bid", "pass"} <= seen["woburn"]
    assert "give" in seen["four-handed"] and "give" in seen["9-5-2-tallyn"]
    assert seen["9-5-3-single-kitty"] & {"swap", "no_swap"}
    assert {"trump", "discard", "play"} <= seen["calls"]


def _twin_games() -> tuple[Game, Game, int]:
    """Two classic games at seat 0's first lead whose seat-0 views are identical while
    seats 1 and 2 hold different cards (one card swapped between them)."""
    deal = Game.new("classic", seed="twins").record()["deals"][0]
    hands = [list(h) for h in deal["hands"]]
    x, y = hands[1][0], hands[2][-1]
    other = [hands[0], [y, *hands[1][1:]], [*hands[2][:-1], x]]
    games = []
    for h in (hands, other):
        game = Game.from_deals(
            "classic",
            [Deal.from_dict({"hands": h, "kitty": deal["kitty"]}, Rules.from_preset("classic"))],
            2,
        )
        game.apply_dict(2, {"type": "trump", "suit": "H"})
        dealer_hand = [str(c) for c in game.hand(2)]
        discard = [c for c in dealer_hand if c not in (x, y)][:4]
        game.apply_dict(2, {"type": "discard", "cards": discard})
        games.append(game)
    return games[0], games[1], 0


def test_it_decides_from_the_view_only() -> None:
    a, b = _twin_games()[:2]
    assert a.to_move() == b.to_move() == 0
    assert a.hand(1) != b.hand(1)
    view_a, view_b = a.view(0), b.view(0)
    assert view_a == view_b
    for name in ("house:random", "house:heuristic", "house:strong"):
        first = choose_action(name, view_a, random.Random(3), BUDGET)
        second = choose_action(name, view_b, random.Random(3), BUDGET)
        if name != "house:strong":  # strong's timed search may see more deals in one call
            assert first == second
    legal = [Card.parse(x["card"]).index for x in view_a["legal_actions"]]
    assert search_play(view_a, legal, random.Random(5), 1.0, max_deals=30) == search_play(
        view_b, legal, random.Random(5), 1.0, max_deals=30
    )


def _last_to_play_decisions(preset: str, seeds: range) -> list[tuple[dict, str]]:
    """(view, heuristic card) at every decision of seeded heuristic games where the seat
    is the last to play to a trick."""
    out = []
    for seed in seeds:
        game = Game.new(Rules.from_preset(preset, max_hands=1), seed=f"last-{seed}")
        rng = random.Random(seed)
        while not game.is_over():
            seat = game.to_move()
            assert seat is not None
            view = game.view(seat)
            action = choose_action("house:heuristic", view, rng)
            if game.phase == "play" and len(view["current_trick"]) == game.players - 1:
                out.append((view, action["card"]))
            game.apply_dict(seat, action)
    return out


def _winner(cards: list[Card], trump: int) -> Card:
    best = cards[0]
    for card in cards[1:]:
        if (card.suit == best.suit and card > best) or (card.suit == trump and best.suit != trump):
            best = card
    return best


def test_it_wins_a_trick_as_cheaply_as_it_can_when_last_to_play() -> None:
    checked = 0
    for view, card in _last_to_play_decisions("classic", range(6)):
        trump = "CDHS".index(view["trump"])
        trick = [Card.parse(t["card"]) for t in view["current_trick"]]
        led = trick[0].suit
        legal = [Card.parse(x["card"]) for x in view["legal_actions"]]
        best = _winner(trick, trump)
        if legal[0].suit != led or best.suit != led:
            continue
        winning = [c for c in legal if c > best]
        if winning:
            assert Card.parse(card) == min(winning)
        else:
            assert Card.parse(card).rank == min(c.rank for c in legal)
        checked += 1
    assert checked > 10


def test_it_ducks_at_misere() -> None:
    checked = 0
    for seed in range(12):
        game = Game.new("calls", seed=f"miz-{seed}")
        rng = random.Random(seed)
        while game.hand_number <= 6 and not game.is_over():
            seat = game.to_move()
            assert seat is not None
            view = game.view(seat)
            action = choose_action("house:heuristic", view, rng)
            if game.trump == "MIZ" and view["current_trick"]:
                trick = [Card.parse(t["card"]) for t in view["current_trick"]]
                legal = [Card.parse(x["card"]) for x in view["legal_actions"]]
                best = _winner(trick, -1)
                under = [c for c in legal if c.suit == best.suit and c < best]
                if under:
                    assert Card.parse(action["card"]) == max(under)
                    checked += 1
            game.apply_dict(seat, action)
    assert checked > 10


def test_it_knows_the_new_names() -> None:
    assert strategy_for("heuristic") is strategy_for("house:heuristic")
    assert strategy_for("strong") is strategy_for("house:strong")
