"""Wake-ups for waiting clients: Redis pub/sub across processes in service mode."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis
from django.conf import settings

from games import realtime


@pytest.mark.skipif(not settings.REDIS_URL, reason="pub/sub exists in service mode only")
def test_it_wakes_a_waiter_on_a_message_published_by_another_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Only the subscription can wake the waiter in time: the safety re-check is far away.
    monkeypatch.setattr(realtime, "SERVICE_MODE_RECHECK_SECONDS", 30.0)
    channel = realtime.game_channel(987654)
    publisher = redis.Redis.from_url(settings.REDIS_URL)

    async def scenario() -> tuple[bool, float]:
        with realtime.listening(channel) as waiter:
            await asyncio.sleep(0.5)  # the process's listener subscribes
            started = time.monotonic()
            loop = asyncio.get_running_loop()
            loop.call_later(0.2, publisher.publish, channel, b"1")
            woken = await waiter.wait(10)
            return woken, time.monotonic() - started

    woken, elapsed = asyncio.run(scenario())

    assert woken
    assert elapsed < 3.0


def test_it_gives_up_waiting_after_the_timeout() -> None:
    async def scenario() -> tuple[bool, float]:
        with realtime.listening(realtime.player_channel(424242)) as waiter:
            started = time.monotonic()
            woken = await waiter.wait(0.1)
            return woken, time.monotonic() - started

    woken, elapsed = asyncio.run(scenario())

    assert not woken
    assert 0.1 <= elapsed < 1.0
