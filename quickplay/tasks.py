"""Celery tasks of quick play."""

from __future__ import annotations

from celery import shared_task

from quickplay import services


@shared_task(name=services.MATCH_TASK)
def match() -> list[int]:
    """Seat the tables the open seeks make now (asked for by each new seek, and run by beat
    every second for the house-bot fills that come due); the games started."""
    return services.match_seeks()


@shared_task(name=services.EXPIRE_TASK, ignore_result=True)
def expire_due() -> None:
    """Beat's sweep: mark expired the open seeks past their ``expires_at`` and tell their
    seekers (``seek_expired``)."""
    services.expire_due_seeks()
