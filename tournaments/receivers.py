"""What tournaments does when a game ends (connected in TournamentsConfig.ready)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from tournaments import services


def on_game_finished(sender: Any, game_id: int, **kwargs: Any) -> None:
    """Ask the worker to look at the round of a tournament game (the signal comes after
    commit; the task itself decides whether the round is complete)."""
    from tournaments.tasks import advance_tournament

    for tournament_id in services.tournaments_with_game(game_id):
        transaction.on_commit(partial(advance_tournament.delay, tournament_id))
