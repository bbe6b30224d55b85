"""house:random plays only from the seat's own view and always legally."""

import random

import pytest

from bots.strategies import choose_action, strategy_for
from games.engine import Game, Rules
from games.engine.rules import PRESETS


@pytest.mark.parametrize("preset", list(PRESETS))
def test_it_plays_whole_games_legally_from_views(preset: str) -> None:
    rng = random.Random(preset)
    game = Game.new(Rules.from_preset(preset, max_hands=4), seed=f"random-{preset}")
    while not game.is_over():
        for seat in game.to_act():
            game.apply_dict(seat, choose_action("house:random", game.view(seat), rng))
    assert game.outcome().hands_played >= 1


def test_it_knows_its_name_with_or_without_the_prefix() -> None:
    assert strategy_for("random") is strategy_for("house:random")
    with pytest.raises(KeyError):
        strategy_for("house:nonesuch")
