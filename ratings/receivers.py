"""What the ratings app does when the games app announces something."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction


def on_game_finished(sender: Any, game_id: int, rated: bool, **_: Any) -> None:
    """Queue the rating update of a finished rated game (off the request that ended it)."""
    from ratings.tasks import rate_game

    if rated:
        transaction.on_commit(partial(rate_game.delay, game_id))
