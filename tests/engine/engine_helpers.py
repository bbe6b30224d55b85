"""Helpers for the engine tests: scripted deals, playing out, collecting cards in views,
doctoring records."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from typing import Any

from games.engine import Game, Rules
from games.engine.cards import RANKS, SUITS
from games.engine.replay import replay_case

# Ranks used by scripted tricks: for suit trick k (0..3), (low, middle, high).
_TRIPLES = [("3", "4", "5"), ("6", "7", "8"), ("9", "T", "J"), ("Q", "K", "A")]


def scripted_hand(
    dealer: int, winners: Sequence[int]
) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    """A classic 3-player deal where every trick is won as ``winners`` says (16 seats).

    The scheme of shared/replay-cases/README.md: tricks go through the suits C D H S, four
    tricks each, ranks (3 4 5), (6 7 8), (9 T J), (Q K A). In each trick the winner holds
    the high card, the seat after the winner the low card and the other seat the middle
    one. The dealer also holds the four 2s (to discard) and its cards for the last trick of
    each suit are the kitty. Everybody always follows suit, so trumps never matter.
    Returns the deal and the plays ``(seat, card)`` in order.
    """
    assert len(winners) == 16
    hands: list[list[str]] = [[], [], []]
    kitty: list[str] = []
    tricks: list[dict[int, str]] = []
    for t, winner in enumerate(winners):
        suit = SUITS[t // 4]
        low, mid, high = _TRIPLES[t % 4]
        assignment = {
            winner: high + suit,
            (winner + 1) % 3: low + suit,
            (winner + 2) % 3: mid + suit,
        }
        tricks.append(assignment)
        for seat, card in assignment.items():
            if seat == dealer and t % 4 == 3:
                kitty.append(card)
            else:
                hands[seat].append(card)
    hands[dealer].extend("2" + s for s in SUITS)
    plays: list[tuple[int, str]] = []
    leader = (dealer + 1) % 3
    for t, assignment in enumerate(tricks):
        for i in range(3):
            seat = (leader + i) % 3
            plays.append((seat, assignment[seat]))
        leader = winners[t]
    return {"hands": hands, "kitty": kitty}, plays


def winners_for(tricks: Sequence[int], dealer: int) -> list[int]:
    """16 trick winners giving each seat ``tricks[seat]`` tricks (any order will do)."""
    out: list[int] = []
    for seat, count in enumerate(tricks):
        out.extend([seat] * count)
    assert len(out) == 16
    return out


def play_scripted_first_hand(
    game: Game, plays: Sequence[tuple[int, str]], trump: str = "S"
) -> None:
    """Trump, discard the dealer's 2s, then the scripted plays (classic-like presets)."""
    dealer = game.dealer
    if game.phase == "discard":  # kitty first presets (take then discard) or tallyn
        game.apply_dict(dealer, {"type": "discard", "cards": ["2C", "2D", "2H", "2S"]})
    if game.phase == "trump":
        game.apply_dict(dealer, {"type": "trump", "suit": trump})
    if game.phase == "discard":
        game.apply_dict(dealer, {"type": "discard", "cards": ["2C", "2D", "2H", "2S"]})
    for seat, card in plays:
        game.apply_dict(seat, {"type": "play", "card": card})


def simple_deal(hands: Sequence[str], kitty: str = "") -> dict[str, Any]:
    """A deal from space-separated card strings."""
    return {"hands": [h.split() for h in hands], "kitty": kitty.split()}


def suit_cards(suit: str, ranks: str) -> list[str]:
    return [r + suit for r in ranks]


def play_randomly(game: Game, rng: random.Random, max_actions: int = 100_000) -> None:
    """Random legal actions until the game stops."""
    for _ in range(max_actions):
        if game.is_stopped():
            return
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    raise AssertionError("the game did not stop")


def cards_in(obj: object) -> set[str]:
    """Every card string anywhere inside a JSON-like value."""
    found: set[str] = set()
    names = {r + s for r in RANKS for s in SUITS}

    def walk(value: object) -> None:
        if isinstance(value, str):
            if value in names:
                found.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(obj)
    return found


def scripted_17(
    dealer: int, winners: Sequence[int], twos: Sequence[str], face_up: str = ""
) -> tuple[dict[str, Any], list[tuple[int, str]]]:
    """A 17-card deal (``6-3-8``, ``17-card-2s-removed``, ``9-5-3-single-kitty``).

    The first 16 tricks follow :func:`scripted_hand`'s scheme (ranks 3..A); ``twos[seat]``
    is each seat's 2, played to the 17th trick, which its leader (the winner of trick 16)
    wins as long as none of the 2s is a trump. ``face_up`` is the single kitty card, if any.
    """
    deal, plays = scripted_hand(dealer, winners)
    hands = [[c for c in hand if c[0] != "2"] for hand in deal["hands"]]
    hands[dealer].extend(deal["kitty"])  # no kitty: the dealer keeps its last-trick cards
    for seat, two in enumerate(twos):
        hands[seat].append(two)
    leader = winners[-1]
    plays = plays + [((leader + i) % 3, twos[(leader + i) % 3]) for i in range(3)]
    return {"hands": hands, "kitty": [face_up] if face_up else []}, plays


def game_in_play(preset: str, seed: int, plays: int = 0) -> Game:
    """A seeded game brought to the play phase of its first hand, then ``plays`` cards in."""
    game = Game.new(Rules.from_preset(preset), seed=seed)
    rng = random.Random(seed)
    while game.phase != "play":
        seat = game.to_move()
        assert seat is not None
        if game.phase == "bid":  # the first bidder bids 8, the others pass
            opening = game.view(None)["auction"]["high"] is None
            game.apply(seat, game.legal_actions(seat)[1 if opening else 0])
        else:
            game.apply(seat, rng.choice(game.legal_actions(seat)))
    for _ in range(plays):
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return game


def finished_record(
    preset: str = "classic", seed: str = "verify-me", max_hands: int = 2
) -> dict[str, Any]:
    """The record of a game of ``preset`` dealt from ``seed`` and played out at random (the
    same every time), as JSON gives it back."""
    game = Game.new(Rules.from_preset(preset, max_hands=max_hands), seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    result: dict[str, Any] = json.loads(json.dumps(game.record()))
    return result


def swapped(value: Any, a: str, b: str) -> Any:
    """``value`` with the cards ``a`` and ``b`` exchanged wherever they appear."""
    if isinstance(value, str):
        return b if value == a else a if value == b else value
    if isinstance(value, list):
        return [swapped(item, a, b) for item in value]
    if isinstance(value, dict):
        return {key: swapped(item, a, b) for key, item in value.items()}
    return value


def doctor(record: dict[str, Any], *, outcomes_change: bool) -> dict[str, Any]:
    """A one-hand record doctored consistently: two cards of one seat's hand exchanged
    everywhere in it (the deal, the plays, the results), every play still legal, so the
    deals are still the seed's. The first such exchange whose plays give other outcomes
    (``outcomes_change``) or the same ones; in the first case the doctored record also
    states the new scores, winner and ranks (not the new tricks of its hand)."""
    assert len(record["deals"]) == 1
    for hand in record["deals"][0]["hands"]:
        for a, b in itertools.combinations(hand, 2):
            if a[1] != b[1]:  # another suit: some play would not follow suit
                continue
            changed = swapped(record, a, b)
            replayed = replay_case(changed)
            if any(step["result"] != "ok" for step in replayed["steps"]):
                continue
            if (replayed["hands"] != changed["hands"]) != outcomes_change:
                continue
            if outcomes_change:
                game = Game.new(Rules.from_dict(record["rules"]), seed=record["seed"])
                for action in changed["actions"]:
                    game.apply_dict(action["seat"], action)
                restated = game.record()
                for key in ("scores", "winner", "ranks", "game_over"):
                    changed[key] = restated[key]
            return dict(changed)
    raise AssertionError("no such exchange in this game")
