"""The rate limit (accounts/ratelimit.py) over time, on a clock the tests move: no burst gets
much past the limit, wherever it falls on the clock; a steady client gets the limit's rate; a
refused client let back in after its ``Retry-After``; and, in service mode, one round trip to
Redis a request whatever the caller. In process, in either mode (Redis in service mode, the
file cache on the embedded default). The 429s over HTTP: tests/test_api_errors.py."""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts import ratelimit
from tests.test_token_cache import redis_round_trips_of

WINDOW = ratelimit.WINDOW
#: A moment on a whole minute: where the fixed window's counters used to start again.
BOUNDARY = math.ceil(time.time() / WINDOW) * WINDOW + 10 * WINDOW


class Clock:
    """``time.time`` as the rate limit reads it, set by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:  # the rest of the time module, unchanged
        return getattr(time, name)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock(BOUNDARY)
    monkeypatch.setattr(ratelimit, "time", fake)
    return fake


@pytest.fixture
def caller() -> Iterator[str]:
    """A caller's key of its own (nothing counted yet), forgotten afterwards."""
    key = f"ip:rate-test-{uuid.uuid4().hex[:12]}"
    yield key
    ratelimit.reset(key)


def let_through(caller: str, clock: Clock, *, at: list[float], limit: int) -> int:
    """How many requests made at these moments are let through."""
    passed = 0
    for moment in at:
        clock.now = moment
        passed += ratelimit.hit(caller, limit, WINDOW) is None
    return passed


def test_it_lets_no_burst_across_a_minute_boundary_through_past_the_limit(
    clock: Clock, caller: str
) -> None:
    limit = 60
    # A thousand requests in one second, half of it before a whole minute, half after: the
    # fixed window let the limit through on each side of the boundary, 120.
    burst = [BOUNDARY - 0.5 + i / 1000 for i in range(1000)]

    passed = let_through(caller, clock, at=burst, limit=limit)

    # The documented tolerance: the limit, plus what the limit's own rate adds over the
    # burst's length (one second of 60 a minute: one request).
    assert passed <= limit + limit * 1 / WINDOW
    assert passed >= limit


def test_it_holds_a_client_that_keeps_pressing_to_the_limit_in_every_minute(
    clock: Clock, caller: str
) -> None:
    limit = 30
    # Ten-request bursts every 2 s for three minutes, starting just before a boundary.
    moments = [BOUNDARY - 1 + 2 * b + i / 100 for b in range(90) for i in range(10)]
    let: list[float] = []
    for moment in moments:
        clock.now = moment
        if ratelimit.hit(caller, limit, WINDOW) is None:
            let.append(moment)

    # Past the first burst, a full minute's worth: any 60 s after that let through at most
    # the limit (and a request for the edge's rounding).
    for start in let:
        if start >= let[0] + WINDOW:
            within = [m for m in let if start <= m < start + WINDOW]
            assert len(within) <= limit + 1, (start, len(within))
    # And the client still gets the limit a minute over the whole run.
    assert len(let) >= limit * 3


def test_it_lets_a_steady_client_through_at_the_limits_rate(clock: Clock, caller: str) -> None:
    limit = 120
    steady = [BOUNDARY - 30 + i * WINDOW / limit for i in range(3 * limit)]  # three minutes

    assert let_through(caller, clock, at=steady, limit=limit) == 3 * limit


def test_it_lets_a_refused_client_in_again_after_its_retry_after(clock: Clock, caller: str) -> None:
    limit = 3
    assert let_through(caller, clock, at=[BOUNDARY - 1] * limit, limit=limit) == limit
    wait = ratelimit.hit(caller, limit, WINDOW)
    assert wait is not None and 1 <= wait <= WINDOW

    clock.now += wait - 0.01
    assert ratelimit.hit(caller, limit, WINDOW) is not None  # not yet
    clock.now += 0.01
    assert ratelimit.hit(caller, limit, WINDOW) is None  # the request waited for


def service_mode_only() -> None:
    if not settings.REDIS_URL:
        pytest.skip("the rate limit counts in Redis in service mode only")


@pytest.mark.django_db
def test_it_counts_an_anonymous_caller_in_one_round_trip_to_redis(
    monkeypatch: pytest.MonkeyPatch, caller: str
) -> None:
    service_mode_only()
    address = caller.removeprefix("ip:")
    client = APIClient(REMOTE_ADDR=address)

    def players() -> None:
        assert client.get("/api/v1/players/nobody").status_code == 404

    # This thread's connection to Redis made (its handshake), by a request of another caller.
    APIClient(REMOTE_ADDR="192.0.2.1").get("/api/v1/players/nobody")

    # The caller's first request too, whose count once set its counter's expiry apart.
    assert [redis_round_trips_of(players, monkeypatch) for _ in range(3)] == [1, 1, 1]
