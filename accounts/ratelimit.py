"""Per-token rate limits: a fixed-window counter in the shared cache.

The cache is Redis in service mode (so every web process counts together, atomically with
INCR) and a file cache in the embedded default. Anonymous callers are counted per address.

The limits fail open: a request that cannot count itself (Redis down or unreachable) is
let through uncounted rather than refused, so losing Redis costs the platform its rate
limits for the outage, never its API (core/redis_client.py says how long a try may take).

A count is one ``INCR``; the request that starts a window's counter (count 1) sets its expiry
too. Measured against the pipeline of ``INCR`` and ``EXPIRE NX`` it replaced and an
``EVALSHA`` of both: 0.73-0.76 and 0.80-0.83 of the pipeline's client CPU (docs/decisions/
0048). Should a process die between the two, its window's counter stays in Redis without
an expiry: a few bytes, never a wrong count, since each window counts under its own key.
"""

from __future__ import annotations

import time
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.models import ApiToken
from core import redis_client


def caller_key(auth: object, remote_addr: str) -> str:
    if isinstance(auth, ApiToken):
        return f"token:{auth.pk}"
    return f"ip:{remote_addr}"


def _counter(key: str, window_start: int) -> str:
    # Prefixed like the cache's keys, so suites and sites sharing a Redis never mix counts.
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:ratelimit:{key}:{window_start}"


def reset(key: str, window: int = 60) -> None:
    """Forget the counts of ``key`` for the current and the next window."""
    start = int(time.time() // window) * window
    for counter in (_counter(key, start), _counter(key, start + window)):
        if settings.REDIS_URL:
            redis_client.shared_redis().delete(counter)
        else:
            cache.delete(counter)


def _count(counter: str, window: int) -> int | None:
    """The count of ``counter`` with this request; None when it could not be counted."""
    if settings.REDIS_URL:
        if redis_client.unavailable():
            return None
        try:
            client = redis_client.shared_redis()
            count = int(client.incr(counter))
            if count == 1:
                client.expire(counter, window + 1)
            return count
        except redis.RedisError as error:
            redis_client.went_down(error)
            return None
    cache.add(counter, 0, timeout=window + 1)
    try:
        return cache.incr(counter)
    except ValueError:  # expired between add and incr
        cache.add(counter, 1, timeout=window + 1)
        return 1


def hit(key: str, limit: int, window: int) -> float | None:
    """Count one request for ``key``; None if allowed (or not countable: fail open), else
    seconds until the window resets."""
    now = time.time()
    window_start = int(now // window) * window
    count = _count(_counter(key, window_start), window)
    if count is not None and count > limit:
        return max(1.0, window_start + window - now)
    return None


class TokenRateThrottle(BaseThrottle):
    """``RATE_LIMIT_PER_MINUTE`` requests per token (or per address without one)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        key = caller_key(request.auth, self.get_ident(request))
        self._wait = hit(key, settings.RATE_LIMIT_PER_MINUTE, 60)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
