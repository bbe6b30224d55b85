"""Wake-ups for waiting clients: Redis pub/sub across processes in service mode."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis
from django.conf import settings

from realtime import hub


@pytest.fixture
def publisher(monkeypatch: pytest.MonkeyPatch) -> redis.Redis:
    """Another Redis client (service mode only); waiters' safety re-check is moved far away,
    so that only the subscription can wake them in time."""
    if not settings.REDIS_URL:
        pytest.skip("pub/sub exists in service mode only")
    monkeypatch.setattr(hub, "SERVICE_MODE_RECHECK_SECONDS", 30.0)
    return redis.Redis.from_url(settings.REDIS_URL)


def publish_elsewhere(
    publisher: redis.Redis, channel: str, lines: list[hub.Line] | None = None
) -> None:
    """Publish a change as another process does."""
    message = hub.wire_message([channel], {channel: lines or []}, "another-process")
    publisher.publish(hub.REDIS_CHANNEL, message)


def listener_connections(publisher: redis.Redis) -> list[dict[str, str]]:
    """This process's pub/sub connections, as Redis lists them."""
    return [c for c in publisher.client_list() if c["name"] == hub.listener_name()]


def test_it_wakes_a_waiter_on_a_message_published_by_another_client(
    publisher: redis.Redis,
) -> None:
    channel = hub.game_channel(987654)

    async def scenario() -> tuple[bool, float]:
        with hub.listening(channel) as waiter:
            assert await hub.wait_subscribed(10)
            started = time.monotonic()
            loop = asyncio.get_running_loop()
            loop.call_later(0.2, publish_elsewhere, publisher, channel)
            woken = await waiter.wait(10)
            return woken, time.monotonic() - started

    woken, elapsed = asyncio.run(scenario())

    assert woken
    assert elapsed < 3.0


def test_it_has_waiters_look_and_subscribes_again_when_redis_drops_it(
    publisher: redis.Redis,
) -> None:
    channel = hub.player_channel(987655)

    async def scenario() -> None:
        with hub.listening(channel) as waiter:
            assert await hub.wait_subscribed(10)
            (listener,) = listener_connections(publisher)
            assert publisher.client_kill_filter(_id=listener["id"]) == 1
            # A wake-up may have been lost meanwhile: every waiter is told to look.
            assert await waiter.wait(5)
            assert waiter.take() == ([], True)
            assert await hub.wait_subscribed(10)
            publish_elsewhere(publisher, channel, [(7, b"line\n")])
            assert await waiter.wait(5)
            assert waiter.take() == ([(7, b"line\n")], False)
            assert len(listener_connections(publisher)) == 1

    asyncio.run(scenario())


def test_it_gives_up_waiting_after_the_timeout() -> None:
    async def scenario() -> tuple[bool, float]:
        with hub.listening(hub.player_channel(424242)) as waiter:
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


def test_it_reads_back_the_changes_it_publishes() -> None:
    turn, start = (7, b'{"type":"your_turn","game":7}\n'), (8, b'{"type":"game_start"}\n')
    lines = {"sergeant:player:1": [turn, start], "sergeant:player:2": []}
    channels = ["sergeant:game:7", "sergeant:player:1", "sergeant:player:2", "sergeant:game:7"]

    message = hub.wire_message(channels, lines, "web-1")

    assert hub.read_wire_message(message) == (
        "web-1",
        {"sergeant:game:7": [], "sergeant:player:1": [turn, start], "sergeant:player:2": []},
    )


def test_it_turns_a_line_the_framing_cannot_carry_into_a_plain_wake_up() -> None:
    lines = {"sergeant:player:1": [(7, b'{"a":\n1}\n')], "sergeant:player:2": [(8, b"{}\n")]}

    message = hub.wire_message(lines, lines, "web-1")

    woken = hub.read_wire_message(message)[1]
    assert woken == {"sergeant:player:1": [], "sergeant:player:2": [(8, b"{}\n")]}
    assert hub.read_wire_message(b"web-1\nsergeant:player:3 7")[1] == {"sergeant:player:3": []}


def test_it_skips_its_own_changes_coming_back_from_redis(publisher: redis.Redis) -> None:
    """A process woke its own waiters when it published; its message, echoed back by Redis,
    must not wake them again. Another process's message does."""
    channel = hub.player_channel(987656)

    async def scenario() -> tuple[bool, bool]:
        with hub.listening(channel) as waiter:
            assert await hub.wait_subscribed(10)
            own = hub.wire_message([channel], {}, hub.process_tag())
            publisher.publish(hub.REDIS_CHANNEL, own)
            woken_by_own = await waiter.wait(1.0)
            publish_elsewhere(publisher, channel)
            woken_by_other = await waiter.wait(5)
            return woken_by_own, woken_by_other

    assert asyncio.run(scenario()) == (False, True)
