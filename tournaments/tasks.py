"""Celery tasks of tournaments: they take ids, and the services they call are idempotent."""

from __future__ import annotations

from celery import shared_task

from tournaments import selectors
from tournaments.services import running


@shared_task(name="tournaments.advance")
def advance_tournament(tournament_id: int) -> bool:
    """Score the current round and start the next one once all its games are over."""
    return running.advance(tournament_id=tournament_id)


@shared_task(name="tournaments.sweep")
def sweep() -> None:
    """The safety net for beat: start due tournaments, and advance any running tournament
    whose last game ended while no worker took the task (a lost message, a restart)."""
    running.start_due_tournaments()
    for tournament_id in selectors.running_tournaments():
        running.advance(tournament_id=tournament_id)
