"""The trick-play kernel agrees with the Game."""

from __future__ import annotations

import random

import pytest
from engine_helpers import game_in_play

from games.engine import PRESETS, Card, Game
from games.engine.kernel import PlayoutState


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("plays", [0, 1, 5])
def test_it_agrees_with_the_game_on_the_same_choices(preset: str, plays: int) -> None:
    for seed in range(6):
        game = game_in_play(preset, seed, plays)
        state = PlayoutState.from_game(game)
        record: list[int] = []
        tricks = state.random_playout(random.Random(seed), record)
        assert sum(tricks) == game.rules.tricks_per_hand
        hand_number = game.hand_number
        for idx in record:
            seat = game.to_move()
            assert seat is not None
            legal = [a.card.index for a in game.legal_actions(seat)]  # type: ignore[union-attr]
            assert idx in legal
            game.apply_dict(seat, {"type": "play", "card": str(Card(idx))})
        assert game.hand_number == hand_number + 1 or game.is_over()
        assert game.history[-1]["tricks"] == tricks


def test_it_does_not_change_the_state_during_a_playout() -> None:
    game = game_in_play("classic", 3, plays=4)
    state = PlayoutState.from_game(game)
    before = (state.hands, state.trick, state.tricks, state.leader)
    before = tuple(repr(x) for x in before)  # type: ignore[assignment]
    state.random_playout(random.Random(1))
    assert tuple(repr(x) for x in (state.hands, state.trick, state.tricks, state.leader)) == before


def test_it_lists_the_same_legal_moves_and_plays_step_by_step() -> None:
    game = game_in_play("four-handed", 5, plays=2)
    state = PlayoutState.from_game(game)
    rng = random.Random(2)
    while not state.is_done():
        seat = game.to_move()
        assert seat is not None and state.to_move() == seat
        legal = [a.card for a in game.legal_actions(seat)]  # type: ignore[union-attr]
        assert state.legal_cards() == legal
        card = rng.choice(legal)
        state.play(card)
        game.apply_dict(seat, {"type": "play", "card": str(card)})
        if not state.is_done():
            assert state.tricks == game.tricks
    assert game.history[-1]["tricks"] == state.tricks


def test_it_builds_from_a_view_and_a_determinization() -> None:
    game = game_in_play("classic", 11, plays=2)
    seat = game.to_move()
    assert seat is not None
    view = game.view(seat)
    # The true hands are one possible assignment; a swap between the others is another.
    hands = [game.hand(s) for s in range(3)]
    from_view = PlayoutState.from_view(view, hands)
    from_game = PlayoutState.from_game(game)
    assert (from_view.hands, from_view.trick, from_view.leader, from_view.tricks) == (
        from_game.hands,
        from_game.trick,
        from_game.leader,
        from_game.tricks,
    )
    assert from_view.random_playout(random.Random(5)) == from_game.random_playout(random.Random(5))
    with pytest.raises(ValueError, match="wrong number"):
        PlayoutState.from_view(view, [hands[0], hands[1][:-1], hands[2]])
    with pytest.raises(ValueError, match="play phase"):
        PlayoutState.from_game(Game.new("classic", seed=1))


def test_it_plays_uniformly_among_legal_cards() -> None:
    # From a lead, each of the leader's cards should come first about equally often.
    game = game_in_play("classic", 21)
    state = PlayoutState.from_game(game)
    rng = random.Random(0)
    counts: dict[int, int] = {}
    for _ in range(3200):
        record: list[int] = []
        state.random_playout(rng, record)
        counts[record[0]] = counts.get(record[0], 0) + 1
    assert len(counts) == 16
    assert min(counts.values()) > 120 and max(counts.values()) < 280  # expectation 200


def test_it_replaces_only_the_seats_given_in_a_mapping() -> None:
    game = game_in_play("classic", 12)
    a, b = (game.to_move() or 0) + 1, (game.to_move() or 0) + 2
    a, b = a % 3, b % 3
    swapped = PlayoutState.from_game(game, {a: game.hand(b), b: game.hand(a)})
    assert swapped.hands[a] == PlayoutState.from_game(game).hands[b]
