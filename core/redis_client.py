"""One Redis client per process (service mode), shared by every thread.

Django's cache objects live per thread, and under ASGI every request runs in a new thread,
so a cache-backed Redis call opened a new connection per request. redis-py's client is
thread-safe and pools its connections: hot paths (rate limits, pub/sub publishes) use this.
"""

from __future__ import annotations

import threading

import redis
from django.conf import settings

_lock = threading.Lock()
_client: redis.Redis | None = None


def shared_redis() -> redis.Redis:
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = redis.Redis.from_url(settings.REDIS_URL)
    return _client
