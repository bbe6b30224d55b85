"""A worker proves it is alive by running :func:`record_heartbeat`, which beat schedules
every ``HEARTBEAT_INTERVAL`` seconds, and records one more when it becomes ready."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from core.heartbeats import store_heartbeat


@shared_task(name="health.record_heartbeat", bind=True, ignore_result=True)
def record_heartbeat(self: Any) -> None:
    store_heartbeat(self.request.hostname or "unknown")


@worker_ready.connect
def _heartbeat_on_worker_ready(sender: Any = None, **_: Any) -> None:
    store_heartbeat(getattr(sender, "hostname", None) or "unknown")
