"""Celery tasks of challenges."""

from __future__ import annotations

from celery import shared_task

from challenges import services


@shared_task(name="challenges.expire_due", ignore_result=True)
def expire_due_challenges() -> None:
    """Beat's sweep: mark expired the pending challenges past their ``expires_at``."""
    services.expire_due_challenges()
