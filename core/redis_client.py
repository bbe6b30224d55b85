"""The Redis client of the hot paths (service mode: rate limits, token versions, pub/sub
publishes), and what the request paths do when Redis is down.

One client per process, its connections in redis-py's pool: thread-safe, and a forked
process's pool starts afresh rather than use its parent's sockets.

Redis is never the truth (the database is): a request that cannot reach it goes on without
it (:func:`unavailable`, :func:`went_down`). Its client waits at most
``REDIS_CONNECT_TIMEOUT`` to connect and ``REDIS_SOCKET_TIMEOUT`` for a reply and does not
retry, and after a failure the request paths leave Redis alone for ``DOWN_PAUSE_SECONDS``,
so a dead or unreachable Redis costs a request at most one short wait, not redis-py's
default of 5 s per try and ten tries.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

_clients: dict[str, redis.Redis] = {}  # by URL

#: After a failed call, the request paths skip Redis this long (then the next call tries).
DOWN_PAUSE_SECONDS = 1.0
#: A dependency's failure is logged at most once per this many seconds (not per request).
LOG_INTERVAL_SECONDS = 60.0


def client_options() -> dict[str, Any]:
    """Short waits and no retries: a caller that cannot reach Redis goes on without it."""
    return {
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 10,
    }


def shared_redis() -> redis.Redis:
    """The process's client of ``settings.REDIS_URL`` (another should the setting change)."""
    url = settings.REDIS_URL
    client = _clients.get(url)
    if client is None:
        client = _clients.setdefault(url, redis.Redis.from_url(url, **client_options()))
    return client


class ThrottledLog:
    """Logs a recurring failure at most once per ``interval`` seconds, with how many were
    not logged meanwhile: an outage must not write a line per request."""

    def __init__(self, what: str, interval: float = LOG_INTERVAL_SECONDS) -> None:
        self.what = what
        self.interval = interval
        self._lock = threading.Lock()
        self._last = -float("inf")
        self._unlogged = 0

    def failed(self, error: BaseException) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._last < self.interval:
                self._unlogged += 1
                return
            self._last, unlogged, self._unlogged = now, self._unlogged, 0
        logger.warning(
            "%s: %s: %s (%d more failure(s) since the last report)",
            self.what,
            type(error).__name__,
            error,
            unlogged,
        )


_down_until = 0.0
_redis_failures = ThrottledLog("Redis unreachable; requests go on without it")


def unavailable() -> bool:
    """Whether a request path should skip Redis now (it failed less than
    ``DOWN_PAUSE_SECONDS`` ago)."""
    return time.monotonic() < _down_until


def went_down(error: BaseException) -> None:
    """Record that a call failed: skip Redis for a while, and log it (throttled)."""
    global _down_until
    _down_until = time.monotonic() + DOWN_PAUSE_SECONDS
    _redis_failures.failed(error)
