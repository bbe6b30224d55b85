"""What the background processes record to show they are alive, in a shared cache of their own.

A Celery worker records a heartbeat every ``HEARTBEAT_INTERVAL`` seconds (a task beat
sends, and once when it becomes ready); the move timer records its looks as often. ``GET
/healthz`` (the health app) reads both: a record older than ``HEARTBEAT_MAX_AGE`` means
that process is not doing its work.

The records live in the ``heartbeats`` cache, not the default one: the embedded default's
file cache culls entries at random once full of rate-limit counters (config/settings/base.py).
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, caches

HEARTBEAT_KEY = "health:worker-heartbeat"
MOVE_TIMER_KEY = "health:move-timer-look"


def heartbeat_store() -> BaseCache:
    """The cache the heartbeats are recorded in and read from."""
    return caches["heartbeats"]


def _keep_for() -> int:
    return int(settings.HEARTBEAT_MAX_AGE * 10)


def store_heartbeat(hostname: str) -> dict[str, Any]:
    beat = {"at": time.time(), "hostname": hostname}
    heartbeat_store().set(HEARTBEAT_KEY, beat, timeout=_keep_for())
    return beat


def store_move_timer_look() -> None:
    heartbeat_store().set(MOVE_TIMER_KEY, time.time(), timeout=_keep_for())
