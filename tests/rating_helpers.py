"""Finished games for the ratings tests, made through the games services."""

from __future__ import annotations

import random
from typing import Any

from accounts.models import Player
from accounts.services import register_player
from games import play, selectors, tables
from games.engine import Game as Engine
from games.models import Game
from tests.game_helpers import choose_action

QUICK_RULES: dict[str, Any] = {"preset": "classic", "max_hands": 1}


def new_players(prefix: str, count: int) -> list[Player]:
    return [
        register_player(f"{prefix}{i}", password="correct horse battery")[0] for i in range(count)
    ]


def start_game(seated: list[Player | str], rules: Any = QUICK_RULES, rated: bool = True) -> int:
    """A started game with ``seated`` in seat order (a player, or a house bot's name)."""
    creator = next(p for p in seated if isinstance(p, Player))
    table = tables.create_table(creator, rules=rules, rated=rated, move_seconds=600, seat=None)
    for seat, who in enumerate(seated):
        if isinstance(who, str):
            tables.seat_bot(creator, table_id=table.pk, bot=who, seat=seat)
        else:
            tables.join_table(who, table_id=table.pk, seat=seat)
    return Game.objects.get(table=table).pk


def play_out(game_id: int, rng: random.Random) -> Game:
    """Play uniformly random legal actions for every seat until the game ends."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return game
        engine = Engine.from_json(game.state)
        seat = game.to_act[0]
        view = selectors.game_view(game, engine, seat)
        play.act_for_seat(
            game_id, seat=seat, action=choose_action(view, rng), expected_version=game.version
        )


def finished_game(
    seated: list[Player | str], seed: int, rules: Any = QUICK_RULES, rated: bool = True
) -> Game:
    return play_out(start_game(seated, rules, rated), random.Random(seed))
