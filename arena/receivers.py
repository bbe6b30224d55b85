"""What the arena does when a game ends (connected in config/wiring.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from arena import services
from arena.tasks import enqueue_seating
from games.signals import GameFinished


def on_game_finished(*, event: GameFinished, **_: Any) -> None:
    """An arena game ended: seat its pool again, on the worker (the bots of that game are
    idle now). The signal comes after commit; the task itself decides who plays."""
    for pool in services.pools_of_game(event.game_id):
        transaction.on_commit(partial(enqueue_seating, pool))
