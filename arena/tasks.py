"""Celery tasks of the arena: they take a pool's name, and the service they call is idempotent."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

from arena import services

log = logging.getLogger(__name__)


# A deadlock or a lost connection aborts the whole transaction, so a retry is safe.
@shared_task(
    name="arena.seat",
    autoretry_for=(OperationalError,),
    retry_backoff=1,
    max_retries=5,
    ignore_result=True,
)
def seat_arena_task(pool: str) -> list[int]:
    """Seat the idle bots of a pool's arena (after a join, or an arena game's end)."""
    return services.seat_arena(pool)


@shared_task(name="arena.sweep", ignore_result=True)
def sweep() -> list[int]:
    """Beat's safety net: seat every arena (lost tasks, bots that waited long enough)."""
    return services.sweep()


def enqueue_seating(pool: str) -> None:
    """Ask the worker to seat ``pool``'s arena (after a join, or an arena game's end)."""
    try:
        seat_arena_task.delay(pool)
    except Exception:  # the broker is down: beat's sweep seats the pool later
        log.exception("could not queue the seating of the %s arena", pool)
