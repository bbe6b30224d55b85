"""The Redis client of the hot paths (service mode: rate limits, token versions, pub/sub
publishes), and what the request paths do when Redis is down.

A client per thread, each holding one connection (redis-py's ``single_connection_client``):
the request threads are kept between requests (config/asgi.py), and so are their clients
and connections. One process-wide client pooling its connections cost about 75 µs of CPU a
command against 45 (redis-py 8.1: taking a connection from the pool and giving it back, a
third of a command's client work; docs/decisions/0053). A thread's client is closed with
the thread. (Django's cache objects are per thread too, but made anew in every thread that
asks, so they are not used on the hot paths.)

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

#: This thread's client and the URL it was made for.
_local = threading.local()

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
    """This thread's client of ``settings.REDIS_URL`` (made anew should the setting change)."""
    client: redis.Redis | None = getattr(_local, "client", None)
    if client is None or _local.url != settings.REDIS_URL:
        if client is not None:
            client.close()
        client = _local.client = redis.Redis.from_url(
            settings.REDIS_URL, single_connection_client=True, **client_options()
        )
        _local.url = settings.REDIS_URL
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
