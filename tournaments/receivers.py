"""What tournaments does when a game ends (connected in config/wiring.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from games.signals import GameFinished, RecordedGameFinished
from tournaments import selectors
from tournaments.services import changes
from tournaments.tasks import advance_tournament


def on_game_finished(*, event: GameFinished, **_: Any) -> None:
    """Ask the worker to look at the round of a tournament game (the signal comes after
    commit; the task itself decides whether the round is complete), and show the table's
    game over to the tournament's watchers at once."""
    found = selectors.tournaments_with_game(event.game_id)
    for tournament_id in found:
        transaction.on_commit(partial(advance_tournament.delay, tournament_id))
    changes.mark_changed(tournament_ids=found)


def on_recorded_game_finished(*, event: RecordedGameFinished, **_: Any) -> None:
    """A result entered at one of our in-person tables stands: as for an online game's end,
    ask the worker to look at the round once the entry commits."""
    for tournament_id in selectors.tournaments_with_recorded_game(event.key):
        transaction.on_commit(partial(advance_tournament.delay, tournament_id))
