"""Celery tasks of the games app: housekeeping. (Move time is kept by games/timekeeper.py.)"""

from __future__ import annotations

from celery import shared_task

from games import guests, play


@shared_task(name="games.purge_expired_records", ignore_result=True)
def purge_expired_records() -> None:
    play.purge_expired_records()


@shared_task(name="games.remove_stale_guests", ignore_result=True)
def remove_stale_guests() -> tuple[int, int]:
    return guests.remove_stale_guests()
