"""What the ratings app does when the games app announces something."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from games.signals import GameFinished, RecordedGameFinished, SeatResult
from ratings import services
from ratings.tasks import rate_game, rate_recorded_game

log = logging.getLogger(__name__)


def on_game_finished(*, event: GameFinished, **_: Any) -> None:
    """Queue the rating update of a finished rated game (off the request that ended it). A
    game with a guest in it is never rated (games.tables keeps guests from rated tables;
    this holds whatever seated them)."""
    if event.rated and settings.RATINGS_RATE_FINISHED_GAMES and not _has_guest(event.standings):
        transaction.on_commit(lambda: enqueue_rating(event.game_id))


def _has_guest(standings: tuple[SeatResult, ...]) -> bool:
    ids = [seat.player_id for seat in standings]
    return Player.objects.filter(pk__in=ids, is_guest=True).exists()


def on_recorded_game_finished(*, event: RecordedGameFinished, **_: Any) -> None:
    """Keep a rated game played at a real table (in the transaction that announced it) and
    queue its rating once that commits: the same model and the same update as an online
    game's, in the in-person pool. Kept even when live rating is off, as a finished game
    is: the sweep (ratings.tasks.rate_missed_games) rates what was not queued."""
    if not event.rated or _has_guest(event.standings):
        return
    recorded_id = services.record_game(
        key=event.key,
        finished_at=event.finished_at,
        seats=[
            {"seat": s.seat, "player_id": s.player_id, "rank": s.rank, "score": s.score}
            for s in event.standings
        ],
    )
    if recorded_id is not None and settings.RATINGS_RATE_FINISHED_GAMES:
        transaction.on_commit(lambda: enqueue_recorded_rating(recorded_id))


def enqueue_recorded_rating(recorded_id: int) -> None:
    try:
        rate_recorded_game.delay(recorded_id)
    except Exception:  # the broker is down: the entry must not fail for it
        # The periodic sweep (ratings.tasks.rate_missed_games) rates it later.
        log.exception("could not queue the rating of recorded game %s", recorded_id)


def enqueue_rating(game_id: int) -> None:
    try:
        rate_game.delay(game_id)
    except Exception:  # the broker is down: the move must not fail for it
        # The periodic sweep (ratings.tasks.rate_missed_games) rates the game later.
        log.exception("could not queue the rating of game %s", game_id)
