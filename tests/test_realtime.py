"""Wake-ups for waiting clients: Redis pub/sub across processes in service mode."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis
from django.conf import settings

from games import realtime


@pytest.fixture
def publisher(monkeypatch: pytest.MonkeyPatch) -> redis.Redis:
    """Another Redis client (service mode only); waiters' safety re-check is moved far away,
    so that only the subscription can wake them in time."""
    if not settings.REDIS_URL:
        pytest.skip("pub/sub exists in service mode only")
    monkeypatch.setattr(realtime, "SERVICE_MODE_RECHECK_SECONDS", 30.0)
    return redis.Redis.from_url(settings.REDIS_URL)


def listener_connections(publisher: redis.Redis) -> list[dict[str, str]]:
    """This process's pub/sub connections, as Redis lists them."""
    return [c for c in publisher.client_list() if c["name"] == realtime.listener_name()]


def test_it_wakes_a_waiter_on_a_message_published_by_another_client(
    publisher: redis.Redis,
) -> None:
    channel = realtime.game_channel(987654)

    async def scenario() -> tuple[bool, float]:
        with realtime.listening(channel) as waiter:
            assert await realtime.wait_subscribed(10)
            started = time.monotonic()
            loop = asyncio.get_running_loop()
            loop.call_later(0.2, publisher.publish, channel, b"1")
            woken = await waiter.wait(10)
            return woken, time.monotonic() - started

    woken, elapsed = asyncio.run(scenario())

    assert woken
    assert elapsed < 3.0


def test_it_has_waiters_look_and_subscribes_again_when_redis_drops_it(
    publisher: redis.Redis,
) -> None:
    channel = realtime.player_channel(987655)

    async def scenario() -> None:
        with realtime.listening(channel) as waiter:
            assert await realtime.wait_subscribed(10)
            (listener,) = listener_connections(publisher)
            assert publisher.client_kill_filter(_id=listener["id"]) == 1
            # A wake-up may have been lost meanwhile: every waiter is told to look.
            assert await waiter.wait(5)
            assert waiter.take() == ([], True)
            assert await realtime.wait_subscribed(10)
            publisher.publish(channel, b"7 line")
            assert await waiter.wait(5)
            assert waiter.take() == ([(7, b"line")], False)
            assert len(listener_connections(publisher)) == 1

    asyncio.run(scenario())


def test_it_gives_up_waiting_after_the_timeout() -> None:
    async def scenario() -> tuple[bool, float]:
        with realtime.listening(realtime.player_channel(424242)) as waiter:
            started = time.monotonic()
            woken = await waiter.wait(0.1)
            return woken, time.monotonic() - started

    woken, elapsed = asyncio.run(scenario())

    assert not woken
    assert 0.1 <= elapsed < 1.0


@pytest.mark.django_db(transaction=True)
def test_it_lets_each_request_loop_close_after_a_waiting_endpoint() -> None:
    """Run in-process (a new event loop per request), the wake-up listener must stop when its
    loop closes; it once swallowed the cancellation and hung the second request forever."""
    from django.test import Client

    codes: list[int] = []

    def two_requests() -> None:
        client = Client()
        for _ in range(2):
            codes.append(client.get("/api/v1/games/999999/events").status_code)

    worker = threading.Thread(target=two_requests, daemon=True)
    worker.start()
    worker.join(timeout=20)

    assert not worker.is_alive(), "a request hung"
    assert codes == [404, 404]
