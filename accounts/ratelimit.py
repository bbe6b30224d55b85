"""Per-token rate limits: a token bucket in the shared cache, one read-and-write a request.

The cache is Redis in service mode (so every web process counts together, atomically in one
script) and a file cache in the embedded default. Anonymous callers are counted per address.

**The bucket** (the generic cell rate algorithm's form of it): a caller's bucket holds up to
``limit`` requests and refills at ``limit`` per ``window`` (a minute), continuously. It is one
number per caller, the *theoretical arrival time* (TAT): when the bucket would be full again
at the rate, if nothing more came. A request at ``now`` is let through if
``max(TAT, now) + window / limit - now <= window`` (the bucket then had a request's room),
and moves the TAT on by ``window / limit``; a refused request changes nothing. Its
``Retry-After`` is the time until that holds again: when one more request is let through.

Fixed one-minute windows (a counter per caller and minute) would let the limit through on
each side of a minute's boundary: twice the limit within a second. The bucket has no
boundary: in any span of ``S`` seconds it lets through at most ``limit`` (a full bucket) plus
what its rate adds meanwhile, ``limit * S / window``, and a client that keeps pressing gets
the limit's rate and no more (tests/test_rate_limit.py).

The limits fail open: a request that cannot count itself (Redis down or unreachable) is
let through uncounted rather than refused, so losing Redis costs the platform its rate
limits for the outage, never its API (core/redis_client.py says how long a try may take).

One round trip a request in service mode: one ``EVALSHA`` of :data:`_TAKE` reads the TAT,
decides, writes the new TAT with its expiry (when the bucket is full again: nothing is
kept for a caller gone quiet), and, for a request with a token, reads the token's version
too (:func:`count_ahead`). A request authenticated by a kept token (accounts/token_cache.py)
must read the token's version in Redis anyway: it is counted in that same round trip, and
the throttle takes that decision instead of counting again (:func:`hit` with the request):
a second round trip from the request's thread is costly in server CPU. So a request with a
token is counted when it is authenticated, before its permissions are checked, as the async
views always counted theirs: one refused for its token's scopes counts too.

The clock is the web process's (``time.time()``, passed to the script, so that a test can
move it): web machines sharing one Redis should keep their clocks in step (NTP); a skew of
``d`` seconds between two of them is worth ``limit * d / window`` requests to a caller that
alternates between them.
"""

from __future__ import annotations

import hashlib
import math
import threading
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

#: Seconds the limit is given for: limits are per minute.
WINDOW = 60
#: Rounding room of the bucket's arithmetic (floats of seconds since 1970): a request
#: exactly on its time is not refused for the last bits of a sum.
SLACK = 0.001
#: The attribute of a request counted ahead: (caller key, limit, window, wait or None).
_COUNTED = "_rate_limit_counted"
#: The embedded default's read and write of a bucket, one thread of this process at a time
#: (the file cache has no atomic update; processes apart are as before, best effort).
_file_lock = threading.Lock()


def caller_key(auth: object, remote_addr: str) -> str:
    if isinstance(auth, ApiToken):
        return token_key(auth.pk)
    return f"ip:{remote_addr}"


def token_key(token_id: int) -> str:
    return f"token:{token_id}"


def _bucket(key: str) -> str:
    # Prefixed like the cache's keys, so suites and sites sharing a Redis never mix counts.
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:ratelimit:{key}"


def reset(key: str) -> None:
    """Forget what ``key`` has used: its bucket is full again."""
    if settings.REDIS_URL:
        redis_client.shared_redis().delete(_bucket(key))
    else:
        cache.delete(_bucket(key))


def decide(tat: float | None, now: float, limit: int, window: float) -> tuple[float, float | None]:
    """The bucket's rule: (the TAT after a request at ``now``, the seconds to wait if it is
    refused, else None). :data:`_TAKE` is the same in Lua."""
    start = now if tat is None or tat < now else tat
    ahead = start + window / limit - now
    if ahead > window + SLACK:
        return start, ahead - window
    return start + window / limit, None


def _take_from_file_cache(bucket: str, now: float, limit: int, window: float) -> float | None:
    with _file_lock:
        stored = cache.get(bucket)
        tat, wait = decide(stored if isinstance(stored, float) else None, now, limit, window)
        if wait is None:
            cache.set(bucket, tat, timeout=math.ceil(tat - now) + 1)
    return wait


#: The bucket in Redis: KEYS[1] the bucket, KEYS[2] (optional) a key read in the same trip;
#: ARGV now, the refill interval (window / limit), the window. Returns the wait in whole
#: microseconds (0: let through), with the value read when there is KEYS[2] (a plain number
#: costs the client less to read than a list). Numbers reach Redis as strings of full
#: precision (redis-py's ``repr`` of a float), and Redis writes a Lua number it stores with
#: all its digits. EVAL keeps the script in Redis's cache, where the next EVALSHA finds it.
_TAKE = """
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local start = tonumber(redis.call('GET', KEYS[1]))
if start == nil or start < now then start = now end
local ahead = start + interval - now
local wait = 0
if ahead > window + 0.001 then
  wait = math.ceil((ahead - window) * 1000000)
else
  redis.call('SET', KEYS[1], start + interval, 'PX', math.ceil(ahead * 1000) + 1000)
end
if #KEYS > 1 then return {wait, redis.call('GET', KEYS[2])} end
return wait
"""
_TAKE_SHA = hashlib.sha1(_TAKE.encode()).hexdigest()


def _take_from_redis(
    bucket: str, now: float, limit: int, window: float, *, also_get: str | None = None
) -> tuple[float | None, bytes | None]:
    """One ``EVALSHA``: the wait (None: let through) and ``also_get``'s value; raises
    RedisError."""
    client = redis_client.shared_redis()
    keys = (bucket,) if also_get is None else (bucket, also_get)
    args = (*keys, repr(now), repr(window / limit), window)
    try:
        reply = client.evalsha(_TAKE_SHA, len(keys), *args)
    except redis.exceptions.NoScriptError:  # Redis restarted, or flushed its scripts
        reply = client.eval(_TAKE, len(keys), *args)
    wait, value = (reply, None) if also_get is None else reply
    assert value is None or isinstance(value, bytes)
    return (int(wait) / 1_000_000 if wait else None), value


def _take(key: str, limit: int, window: float) -> float | None:
    """Take a request from ``key``'s bucket: None if let through (or not countable: fail
    open), else the seconds until one would be."""
    now = time.time()
    if not settings.REDIS_URL:
        return _take_from_file_cache(_bucket(key), now, limit, window)
    if redis_client.unavailable():
        return None
    try:
        return _take_from_redis(_bucket(key), now, limit, window)[0]
    except redis.RedisError as error:
        redis_client.went_down(error)
        return None


def count_ahead(request: HttpRequest, key: str, *, also_get: str) -> tuple[bool, bytes | None]:
    """Count ``request`` for ``key`` now (its throttle, :func:`hit`, takes this decision) and
    read the Redis key ``also_get`` in the same round trip: (whether Redis answered, the
    value read). Service mode only: it is Redis's. Unanswered, the request is not counted
    here and its throttle counts it (or fails open) as any other. A request already counted
    (a kept token found out of date, then looked up again) is not counted again."""
    if redis_client.unavailable():
        return False, None
    counted = getattr(request, _COUNTED, None)
    limit = settings.RATE_LIMIT_PER_MINUTE
    try:
        if counted is not None and counted[0] == key:
            value = redis_client.shared_redis().get(also_get)
        else:
            now = time.time()
            wait, value = _take_from_redis(_bucket(key), now, limit, WINDOW, also_get=also_get)
            setattr(request, _COUNTED, (key, limit, WINDOW, wait))
    except redis.RedisError as error:
        redis_client.went_down(error)
        return False, None
    assert value is None or isinstance(value, bytes)
    return True, value


def hit(key: str, limit: int, window: int, *, request: HttpRequest | None = None) -> float | None:
    """Count one request for ``key`` (or take the decision ``request`` had ahead: once a
    request, whoever asks); None if allowed (or not countable: fail open), else the seconds
    until a request is let through again (at least 1: ``Retry-After`` is whole seconds)."""
    counted = getattr(request, _COUNTED, None)
    if counted is not None and counted[:3] == (key, limit, window):
        delattr(request, _COUNTED)
        wait = counted[3]
    else:
        wait = _take(key, limit, window)
    return None if wait is None else max(1.0, wait)


class TokenRateThrottle(BaseThrottle):
    """``RATE_LIMIT_PER_MINUTE`` requests per token (or per address without one)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        auth = request.auth
        # A token's key needs no address: working one out is a hundredth of a GET /me's CPU.
        key = caller_key(auth, "" if isinstance(auth, ApiToken) else self.get_ident(request))
        self._wait = hit(key, settings.RATE_LIMIT_PER_MINUTE, WINDOW, request=request._request)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait
