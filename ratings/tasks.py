"""Celery tasks of the ratings app: they take ids, load, and call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from ratings import services


# A deadlock or lost connection aborts the whole transaction, so a retry is safe; the
# per-game record makes a retry of an update that did commit a no-op.
@shared_task(
    name="ratings.rate_game",
    autoretry_for=(OperationalError,),
    retry_backoff=1,
    max_retries=5,
    ignore_result=True,
)
def rate_game(game_id: int) -> bool:
    """Rate a finished game (idempotent: a game is rated once)."""
    return services.rate_game(game_id)


@shared_task(
    name="ratings.rate_recorded_game",
    autoretry_for=(OperationalError,),
    retry_backoff=1,
    max_retries=5,
    ignore_result=True,
)
def rate_recorded_game(recorded_id: int) -> bool:
    """Rate a game recorded from a real table (idempotent: it is rated once)."""
    return services.rate_recorded_game(recorded_id)


@shared_task(name="ratings.rate_missed_games", ignore_result=True)
def rate_missed_games() -> int:
    """Catch up on games whose rating task never ran (scheduled by beat)."""
    return services.rate_missed_games()
