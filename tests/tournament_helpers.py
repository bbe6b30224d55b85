"""Running tournaments in tests: players, and games driven to their end by fallback moves.

House bots do not play by themselves yet, so :func:`play_fallbacks` plays the engine's
fallback action (the timeout rule) for every seat due, through the same server-side service
that bots and timeouts use. The round-advancing task runs on the real Celery worker.
"""

from __future__ import annotations

import time
from typing import Any

from accounts.models import Player
from accounts.services import register_player
from games import play
from games.engine import Game as Engine
from games.models import Game
from tournaments.models import Tournament
from tournaments.services import entries, setup

PASSWORD = "correct horse battery"


def players(prefix: str, count: int) -> list[Player]:
    return [register_player(f"{prefix}{i:02d}", password=PASSWORD)[0] for i in range(count)]


def new_tournament(creator: Player, entrants: list[Player], **settings: Any) -> Tournament:
    values = {
        "name": "Club night",
        "rules": "classic",
        "format": "swiss",
        "rounds": 3,
        "hands_per_game": 1,
        "move_seconds": 600,
        **settings,
    }
    tournament = setup.create_tournament(creator, values=values)
    for player in entrants:
        entries.register(player, tournament_id=tournament.pk)
    return tournament


def play_fallbacks(game_id: int) -> None:
    """Play the game to its end: each seat due plays the engine's fallback action."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return
        engine = Engine.from_json(game.state)
        seat = engine.to_act()[0]
        action = engine.fallback_action(seat).to_dict()
        play.act_for_seat(game_id, seat=seat, action=action, expected_version=game.version)


def run_to_the_end(tournament_id: int, timeout: float = 240.0) -> Tournament:
    """Play every game of the tournament as it appears until the worker finishes it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tournament = Tournament.objects.get(pk=tournament_id)
        if tournament.status == Tournament.Status.FINISHED:
            return tournament
        waiting = list(
            Game.objects.filter(
                tournament_table__round__tournament_id=tournament_id,
                status=Game.Status.PLAYING,
            ).values_list("pk", flat=True)
        )
        for game_id in waiting:
            play_fallbacks(game_id)
        if not waiting:
            time.sleep(0.05)
    raise AssertionError(f"tournament {tournament_id} did not finish in {timeout} s")
