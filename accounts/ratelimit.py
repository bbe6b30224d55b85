"""Per-token rate limits: a fixed-window counter in the shared cache.

The cache is Redis in service mode (so every web process counts together, atomically with
INCR) and a file cache in the embedded default. Anonymous callers are counted per address.

The limits fail open: a request that cannot count itself (Redis down or unreachable) is
let through uncounted rather than refused, so losing Redis costs the platform its rate
limits for the outage, never its API (core/redis_client.py says how long a try may take).

A count is one ``INCR``; the request that starts a window's counter (count 1) sets its expiry
too. That costs less client CPU than the pipeline of ``INCR`` and ``EXPIRE NX`` it replaced,
or an ``EVALSHA`` of both. Should a process die between the two, its window's counter stays
in Redis without an expiry: a few bytes, never a wrong count, since each window counts under
its own key.

A request authenticated by a kept token (accounts/token_cache.py) must read the token's
version in Redis anyway: it is counted in the same round trip (:func:`count_ahead`, one
script that counts, sets the expiry of a new counter and reads the version), and the
throttle takes that count instead of counting again (:func:`hit` with the request): a
second round trip from the request's thread is costly in server CPU, and the script costs
less client CPU than the pipeline of ``INCR`` and ``GET`` it replaced. So a request with a
token is counted when it is authenticated, before its permissions are checked, as the async
views always counted theirs: one refused for its token's scopes counts too.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.models import ApiToken
from core import redis_client

#: Seconds of a window: limits are per minute.
WINDOW = 60
#: The attribute of a request counted ahead: (caller key, window start, count).
_COUNTED = "_rate_limit_counted"


def caller_key(auth: object, remote_addr: str) -> str:
    if isinstance(auth, ApiToken):
        return token_key(auth.pk)
    return f"ip:{remote_addr}"


def token_key(token_id: int) -> str:
    return f"token:{token_id}"


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
            return _redis_count(counter, window)[0]
        except redis.RedisError as error:
            redis_client.went_down(error)
            return None
    cache.add(counter, 0, timeout=window + 1)
    try:
        return cache.incr(counter)
    except ValueError:  # expired between add and incr
        cache.add(counter, 1, timeout=window + 1)
        return 1


def _redis_count(
    counter: str, window: int, *, also_get: str | None = None
) -> tuple[int, bytes | None]:
    """``INCR`` the counter (and set its expiry when it starts), reading ``also_get`` in the
    same round trip; raises RedisError."""
    client = redis_client.shared_redis()
    if also_get is not None:
        try:
            count, value = client.evalsha(_COUNT_AND_GET_SHA, 2, counter, also_get, window + 1)
        except redis.exceptions.NoScriptError:  # Redis restarted, or flushed its scripts
            count, value = client.eval(_COUNT_AND_GET, 2, counter, also_get, window + 1)
        assert value is None or isinstance(value, bytes)
        return int(count), value
    count = client.incr(counter)
    if count == 1:
        client.expire(counter, window + 1)
    return int(count), None


#: One command for a count and a read: cheaper in the client's CPU than a pipeline of INCR
#: and GET. EVAL keeps the script in Redis's cache, where the next EVALSHA finds it.
_COUNT_AND_GET = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('GET', KEYS[2])}
"""
_COUNT_AND_GET_SHA = hashlib.sha1(_COUNT_AND_GET.encode()).hexdigest()


def count_ahead(request: HttpRequest, key: str, *, also_get: str) -> tuple[bool, bytes | None]:
    """Count ``request`` for ``key`` now (its throttle, :func:`hit`, takes this count) and
    read the Redis key ``also_get`` in the same round trip: (whether Redis answered, the
    value read). Service mode only: it is Redis's. Unanswered, the request is not counted
    here and its throttle counts it (or fails open) as any other. A request already counted
    (a kept token found out of date, then looked up again) is not counted again."""
    if redis_client.unavailable():
        return False, None
    counted = getattr(request, _COUNTED, None)
    try:
        if counted is not None and counted[0] == key:
            value = redis_client.shared_redis().get(also_get)
        else:
            window_start = int(time.time() // WINDOW) * WINDOW
            counter = _counter(key, window_start)
            count, value = _redis_count(counter, WINDOW, also_get=also_get)
            setattr(request, _COUNTED, (key, window_start, count))
    except redis.RedisError as error:
        redis_client.went_down(error)
        return False, None
    assert value is None or isinstance(value, bytes)
    return True, value


def hit(key: str, limit: int, window: int, *, request: HttpRequest | None = None) -> float | None:
    """Count one request for ``key`` (or take the count ``request`` had ahead: once a
    request, whoever asks); None if allowed (or not countable: fail open), else seconds
    until the window resets."""
    now = time.time()
    counted = getattr(request, _COUNTED, None)
    if counted is not None and counted[0] == key and window == WINDOW:
        delattr(request, _COUNTED)
        _, window_start, count = counted
    else:
        window_start = int(now // window) * window
        count = _count(_counter(key, window_start), window)
    if count is not None and count > limit:
        return max(1.0, window_start + window - now)
    return None


class TokenRateThrottle(BaseThrottle):
    """``RATE_LIMIT_PER_MINUTE`` requests per token (or per address without one)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        auth = request.auth
        # A token's key needs no address: working one out would be wasted CPU on every call.
        key = caller_key(auth, "" if isinstance(auth, ApiToken) else self.get_ident(request))
        self._wait = hit(key, settings.RATE_LIMIT_PER_MINUTE, WINDOW, request=request._request)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
