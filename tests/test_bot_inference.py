"""The house bots' inference from a view (bots.strategies.inference): random deals of the
unseen cards that keep every fact the view gives, and only true facts."""

from __future__ import annotations

import random

import pytest

from bots.strategies.inference import Determinizer, random_hands
from games.engine import PRESETS, Card, Game, Rules
from games.engine.kernel import PlayoutState
from tests.engine.engine_helpers import game_in_play


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_it_deals_random_hands_consistent_with_a_view(preset: str) -> None:
    for seed in range(4):
        game = game_in_play(preset, seed, plays=3 * seed + 1)
        if game.phase != "play":
            continue
        seat = game.to_move()
        assert seat is not None
        view = game.view(seat)
        rng = random.Random(seed)
        for _ in range(5):
            hands = random_hands(view, rng)
            assert [str(c) for c in hands[seat]] == view["your_hand"]
            assert [len(h) for h in hands] == view["hand_cards_left"]
            dealt = [c for h in hands for c in h]
            assert len(set(dealt)) == len(dealt)
            played = {c for t in view["trick_history"] for c in t["cards"]}
            played |= {t["card"] for t in view["current_trick"]}
            assert not played & {str(c) for c in dealt}
            state = PlayoutState.from_view(view, hands)
            assert sum(state.random_playout(rng)) == game.rules.tricks_per_hand


def test_it_respects_known_voids() -> None:
    game = game_in_play("classic", 7)
    rng = random.Random(7)
    # Play until someone fails to follow suit.
    while game.phase == "play":
        seat = game.to_move()
        assert seat is not None
        view = game.view(seat)
        voids: dict[int, set[str]] = {}
        for trick in view["trick_history"]:
            led = trick["cards"][0][1]
            for i, card in enumerate(trick["cards"][1:], start=1):
                if card[1] != led:
                    voids.setdefault((trick["leader"] + i) % 3, set()).add(led)
        if voids:
            for _ in range(20):
                hands = random_hands(view, rng)
                for s, suits in voids.items():
                    if s != seat:
                        assert not {str(c)[1] for c in hands[s]} & suits
            return
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    pytest.fail("nobody ever failed to follow suit")  # pragma: no cover


def test_it_keeps_cards_given_in_the_exchange_with_their_receiver() -> None:
    for seed in range(50):
        game = Game.new("classic", seed=seed)
        while game.hand_number == 1 or game.phase != "play":
            seat = game.to_move()
            assert seat is not None
            game.apply(seat, game.fallback_action(seat))
        batches = game.view(None)["exchange"]
        if not batches:
            continue
        giver, receiver = batches[0]["from"], batches[0]["to"]
        view = game.view(giver)
        kept = set(view["exchange"][0]["given"]) - set(view["exchange"][0]["returned"])
        if not kept:
            continue
        hands = random_hands(view, random.Random(seed))
        assert kept <= {str(c) for c in hands[receiver]}
        assert kept <= {str(c) for c in game.hand(receiver)}
        return
    pytest.fail("no exchange found")  # pragma: no cover


def _true_place(game: Game, index: int) -> int | None:
    for seat in range(game.players):
        if game.hand_mask(seat) >> index & 1:
            return seat
    return None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_it_only_infers_true_facts_about_unseen_cards(preset: str) -> None:
    # Whatever the determinizer rules out must really be false: the true place of every
    # unseen card is among its places, at every play decision of a few whole games.
    checked = 0
    for seed in range(4):
        game = Game.new(Rules.from_preset(preset, max_hands=3), seed=f"facts-{seed}")
        rng = random.Random(seed)
        while not game.is_over():
            seat = game.to_move()
            assert seat is not None
            # Every decision of the dealer (who took the kitty, may have given some of it
            # away), a sample of the others'.
            if game.phase == "play" and (seat == game.dealer or rng.random() < 0.15):
                view = game.view(seat)
                determinizer = Determinizer(view)
                for index in range(52):
                    places = determinizer.places(index)
                    if places:
                        assert _true_place(game, index) in places, (preset, str(Card(index)))
                        checked += 1
                    # place_mask is the same fact as a mask (bit ``players``: out of play).
                    mask = determinizer.place_mask(index)
                    seats = {s for s in range(game.players) if mask >> s & 1}
                    assert seats == places - {None}
                    assert None not in places or mask >> game.players & 1
                hands = determinizer.deal(rng)
                assert hands[seat] == game.hand_mask(seat)
                assert [h.bit_count() for h in hands] == view["hand_cards_left"]
            if game.phase == "bid":
                opening = game.view(None)["auction"]["high"] is None
                game.apply(seat, game.legal_actions(seat)[1 if opening else 0])
            else:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
    assert checked > 0


def test_it_keeps_the_swapped_in_card_and_the_2d_with_the_swapper() -> None:
    for seed in range(60):
        game = Game.new("9-5-3-single-kitty", seed=seed)
        rng = random.Random(seed)
        while game.phase != "play":
            seat = game.to_move()
            assert seat is not None
            if game.phase == "swap":
                low = min(game.hand(seat), key=lambda c: (c.rank, c.index))
                game.apply_dict(seat, {"type": "swap", "card": str(low)})
            else:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
        swap = game.view(None)["swap"]
        if swap is None:
            continue
        other = next(s for s in range(3) if s != swap["seat"])
        determinizer = Determinizer(game.view(other))
        assert determinizer.places(swap["taken"]) == {swap["seat"]}
        if "2D" not in {str(c) for c in game.hand(other)}:
            assert determinizer.places("2D") <= {swap["seat"], None}
        return
    pytest.fail("nobody swapped")  # pragma: no cover


def test_it_caps_a_returning_player_below_the_cards_it_returned() -> None:
    for seed in range(80):
        game = Game.new("classic", seed=seed)
        while (game.hand_number == 1 or game.phase != "play") and not game.is_over():
            seat = game.to_move()
            assert seat is not None
            game.apply(seat, game.fallback_action(seat))
        batches = game.view(None)["exchange"]
        if game.is_over() or len(batches) != 1:
            continue
        giver, receiver = batches[0]["from"], batches[0]["to"]
        view = game.view(giver)
        returned = [Card.parse(c) for c in view["exchange"][0]["returned"]]
        given = {str(c) for c in view["exchange"][0]["given"]}
        low = min(returned)
        above = [
            Card(i)
            for i in range(low.index + 1, 13 * low.suit + 13)
            if str(Card(i)) not in set(view["your_hand"]) | given
        ]
        if not above:
            continue
        determinizer = Determinizer(view)
        shown = {c for d in view["disclosures"] for c in d["cards"]}
        for card in above:
            if str(card) not in shown:
                assert receiver not in determinizer.places(card)
        return
    pytest.fail("no single exchange batch with room above its returns")  # pragma: no cover
