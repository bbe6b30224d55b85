"""Celery tasks of the games app: move timers, the overdue sweep, housekeeping."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings

from games import services

log = logging.getLogger(__name__)


@shared_task(name="games.expire_turns", ignore_result=True)
def expire_turns(game_id: int, version: int) -> None:
    """The move timer of one game state: plays for the late seats unless they acted."""
    services.expire_turns(game_id, version)


@shared_task(name="games.sweep_overdue_games", ignore_result=True)
def sweep_overdue_games() -> int:
    """Resolve games whose timer was lost (worker killed, broker restarted, very long move
    times that get no timer): any game past its deadline by more than the grace period."""
    resolved = 0
    grace = timedelta(seconds=settings.MOVE_TIMER_SWEEP_GRACE)
    for game_id in services.overdue_games(grace, limit=settings.MOVE_TIMER_SWEEP_BATCH):
        try:
            resolved += services.expire_turns(game_id)
        except Exception:  # one broken game must not stop the sweep for the others
            log.exception("sweep: game %s could not be moved on", game_id)
    if resolved:
        log.info("sweep: moved %d overdue game(s) on", resolved)
    return resolved


@shared_task(name="games.purge_expired_records", ignore_result=True)
def purge_expired_records() -> None:
    services.purge_expired_records()
