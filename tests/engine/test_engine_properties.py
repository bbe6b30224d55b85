"""Property tests (hypothesis) over random games of every preset."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from engine_helpers import cards_in
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import PRESETS, Game, IllegalAction, Rules
from games.engine.cards import SUIT_MASKS, cards_to_str
from games.engine.replay import replay_case
from games.engine.verify import verify_record

OPTION_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "kitty_order": st.sampled_from(["discard_then_take", "take_then_discard"]),
        "one_up_two_down": st.sampled_from(["simultaneous", "sequential"]),
        "two_up_order": st.sampled_from(["higher_target_first", "most_up_first"]),
        "exchange_cap": st.one_of(st.none(), st.integers(0, 4)),
        "exchange_before_trump": st.booleans(),
        "deal_packet": st.sampled_from([1, 4]),
    },
)

SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)


def _state(game: Game) -> dict[str, Any]:
    return game.to_state()


def _out_of_hands(game: Game) -> int:
    """Cards of this deal that are not in a hand: kitty, discards, played, swapped out."""
    state = _state(game)
    kitty, _, _ = state["kitty"]
    _, swapped, _ = state["swap"]
    played = 0
    for idx in state["play"][3]:
        played |= 1 << idx
    out = kitty | state["disc"] | played
    if swapped >= 0:
        out |= 1 << swapped
    return out


def _allowed_cards(game: Game, seat: int | None) -> set[str]:
    """What the seat may know of the cards of this deal (docs/rules.md "Information")."""
    state = _state(game)
    mask = 0
    for idx in state["play"][3]:  # every card played this hand
        mask |= 1 << idx
    faceup, swapped, swapper = state["swap"]
    if faceup >= 0:
        mask |= 1 << faceup  # face up, public
    if seat is not None:
        mask |= state["hands"][seat]
        for giver, receiver, given, returned in state["ex"][3]:
            if seat in (giver, receiver):
                mask |= given | returned
        for up, shown in state["discl"]:
            if up == seat:
                mask |= shown
        if seat == game.dealer:
            mask |= state["disc"]
            if state["kitty"][2]:
                mask |= state["kitty"][1]
        if swapper == seat:
            mask |= 1 << swapped
    return set(cards_to_str(mask))


def _check_step(game: Game, rng: random.Random) -> None:
    rules = game.rules
    n = rules.players
    hands = [game.hand_mask(s) for s in range(n)]
    # Cards are conserved: hands and the rest partition the deck, no card twice.
    out = _out_of_hands(game)
    total = sum(h.bit_count() for h in hands) + out.bit_count()
    union = out
    for h in hands:
        union |= h
    assert union == rules.deck and total == rules.deck.bit_count()
    # The JSON round trip gives an equal state.
    text = game.to_json()
    again = Game.from_json(text)
    assert again == game and again.to_json() == text
    assert again.view(None) == game.view(None)
    # Views never show another seat's hidden cards.
    for seat in [None, *range(n)]:
        view = game.view(seat)
        json.dumps(view)
        assert cards_in(view) <= _allowed_cards(game, seat), seat
    # Every legal play follows suit.
    mover = game.to_move()
    if game.phase == "play" and mover is not None:
        trick = game.current_trick()
        hand = game.hand_mask(mover)
        legal = game.legal_actions(mover)
        assert legal
        if trick:
            led = trick[0][1].suit
            if hand & SUIT_MASKS[led]:
                assert all(a.card.suit == led for a in legal)  # type: ignore[union-attr]
    # Illegal actions change nothing.
    attempts: list[tuple[object, object]] = []
    if mover is not None:
        others = [s for s in range(n) if s != mover]
        other = rng.choice(others)
        if game.hand_mask(other):
            card = str(rng.choice(game.hand(other)))
            attempts.append((other, {"type": "play", "card": card}))
            attempts.append((mover, {"type": "play", "card": card}))
            attempts.append((mover, {"type": "swap", "card": card}))
        attempts.append((mover, {"type": "bid", "tricks": 7}))
        attempts.append((mover, {"type": "trump", "suit": "XX"}))
        attempts.append((mover, {"type": "discard", "cards": []}))
        attempts.append((mover, {"type": "give", "to": mover, "cards": []}))
        attempts.append((mover, {"type": "lead"}))
    else:
        attempts.append((0, {"type": "play", "card": "AS"}))
    for seat, action in attempts:
        try:
            game.apply_dict(seat, action)
        except IllegalAction:
            pass
        else:  # pragma: no cover - a test bug if it happens
            raise AssertionError(f"{action} by {seat} was accepted")
        assert game.to_json() == text


@pytest.mark.parametrize("preset", sorted(PRESETS))
@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    options=OPTION_VALUES,
    max_hands=st.integers(1, 3),
)
def test_it_keeps_every_invariant_in_random_games(
    preset: str, seed: int, options: dict[str, Any], max_hands: int
) -> None:
    rules = Rules.from_preset(preset, max_hands=max_hands, **options)
    game = Game.new(rules, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not game.is_over():
        _check_step(game, rng)
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        steps += 1
        assert steps < 2000
    _check_step(game, rng)
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.hands_played <= max_hands
    for hand in game.history:
        assert sum(hand["diffs"]) == 0
        assert sum(hand["tricks"]) == rules.tricks_per_hand
    assert sum(outcome.scores) == 0
    assert sorted(outcome.ranks)[0] == 1
    # The record replays to the same result.
    record = game.record()
    replayed = replay_case(record, "record.json")
    assert all(step["result"] == "ok" for step in replayed["steps"])
    assert replayed["hands"] == record["hands"] == game.history
    assert replayed["scores"] == game.scores
    assert (replayed["game_over"], replayed["winner"]) == (True, outcome.winner)
    # And its deals are the seed's (every preset, redeals and dealer changes included).
    assert verify_record(record).to_dict()["ok"] is True


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32))
def test_it_ends_every_preset_under_max_hands_with_fallback_play(seed: int, preset: str) -> None:
    game = Game.new(Rules.from_preset(preset, max_hands=4), seed=seed)
    while not game.is_over():
        seat = game.to_move()
        assert seat is not None
        action = game.fallback_action(seat)
        if game.phase == "bid" and seat == game.dealer:
            # The fallback in an auction is to pass, and three passes redeal (docs/rules.md):
            # a table of absent players would redeal for ever, so the opener bids here.
            action = game.legal_actions(seat)[1]
        events = game.apply(seat, action)
        for event in events:
            json.dumps(event.to_dict())
            assert event.visibility is None or event.visibility <= set(range(game.players))
    outcome = game.outcome()
    assert outcome is not None and outcome.hands_played <= 4
