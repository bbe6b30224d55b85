"""What the ratings app does when the games app announces something."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from games.signals import GameFinished
from ratings.tasks import rate_game

log = logging.getLogger(__name__)


def on_game_finished(*, event: GameFinished, **_: Any) -> None:
    """Queue the rating update of a finished rated game (off the request that ended it). A
    game with a guest in it is never rated (games.tables keeps guests from rated tables;
    this holds whatever seated them)."""
    if event.rated and settings.RATINGS_RATE_FINISHED_GAMES and not _has_guest(event):
        transaction.on_commit(lambda: enqueue_rating(event.game_id))


def _has_guest(event: GameFinished) -> bool:
    ids = [seat.player_id for seat in event.standings]
    return Player.objects.filter(pk__in=ids, is_guest=True).exists()


def enqueue_rating(game_id: int) -> None:
    try:
        rate_game.delay(game_id)
    except Exception:  # the broker is down: the move must not fail for it
        # The periodic sweep (ratings.tasks.rate_missed_games) rates the game later.
        log.exception("could not queue the rating of game %s", game_id)
