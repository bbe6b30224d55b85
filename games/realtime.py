"""Wake-ups for waiting clients (long polls, streams) when a game or a player's inbox changes.

The database is the source of truth; a wake-up only tells a waiter to look again.

* Service mode: the change is published on Redis pub/sub; each web process keeps one
  subscription and wakes the waiters of a channel.
* Embedded default: web server and worker are separate processes with no server between
  them, so waiters look again every ``EMBEDDED_POLL_SECONDS`` (and are woken at once by
  changes made in their own process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.conf import settings

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "sergeant:"
EMBEDDED_POLL_SECONDS = 0.2
SERVICE_MODE_RECHECK_SECONDS = 2.0


def game_channel(game_id: int) -> str:
    return f"{CHANNEL_PREFIX}game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"{CHANNEL_PREFIX}player:{player_id}"


_redis_client = None


def _sync_redis():  # type: ignore[no-untyped-def]
    global _redis_client
    if _redis_client is None:
        import redis

        _redis_client = redis.Redis.from_url(settings.REDIS_URL)
    return _redis_client


def publish(channels: Iterable[str]) -> None:
    """Tell every waiter on ``channels`` to look again (call after commit)."""
    channels = list(channels)
    _hub.notify_local(channels)
    if settings.REDIS_URL:
        try:
            pipe = _sync_redis().pipeline(transaction=False)
            for channel in channels:
                pipe.publish(channel, b"1")
            pipe.execute()
        except Exception:  # waiters fall back to their timeout; the change is committed
            logger.exception("could not publish wake-ups on %s", channels)


class Hub:
    """Per-process registry of waiters, fed by one Redis subscription in service mode."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._listener: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def notify_local(self, channels: Iterable[str]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        for channel in channels:
            for event in list(self._waiters.get(channel, ())):
                loop.call_soon_threadsafe(event.set)

    def _wake(self, channel: str) -> None:
        for event in list(self._waiters.get(channel, ())):
            event.set()

    async def _listen(self) -> None:
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(settings.REDIS_URL)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(CHANNEL_PREFIX + "*")
                    async for message in pubsub.listen():
                        if message.get("type") == "pmessage":
                            channel = message["channel"]
                            self._wake(channel.decode() if isinstance(channel, bytes) else channel)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("pub/sub listener failed; reconnecting")
                # Anyone waiting may have missed a wake-up: let them look again.
                for channel in list(self._waiters):
                    self._wake(channel)
                await asyncio.sleep(1)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

    def _ensure_started(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop = loop
            self._listener = None
        if settings.REDIS_URL and (self._listener is None or self._listener.done()):
            self._listener = loop.create_task(self._listen())

    @contextlib.contextmanager
    def listening(self, channel: str) -> Iterator[Waiter]:
        """Register for wake-ups on ``channel`` *before* looking at the database, so a change
        committed between the look and the wait still wakes us."""
        self._ensure_started()
        waiter = Waiter(asyncio.Event())
        self._waiters[channel].add(waiter.event)
        try:
            yield waiter
        finally:
            waiters = self._waiters.get(channel)
            if waiters is not None:
                waiters.discard(waiter.event)
                if not waiters:
                    self._waiters.pop(channel, None)


@dataclass
class Waiter:
    event: asyncio.Event

    async def wait(self, timeout: float) -> bool:
        """Wait until woken or ``timeout`` s pass; True if woken. Waits are capped so that a
        missed wake-up (listener reconnecting, or the embedded default) costs one re-look."""
        cap = SERVICE_MODE_RECHECK_SECONDS if settings.REDIS_URL else EMBEDDED_POLL_SECONDS
        try:
            await asyncio.wait_for(self.event.wait(), max(0.0, min(timeout, cap)))
        except TimeoutError:
            return False
        self.event.clear()
        return True


_hub = Hub()


def listening(channel: str) -> contextlib.AbstractContextManager[Waiter]:
    """``with listening(channel) as waiter: ... await waiter.wait(seconds)``"""
    return _hub.listening(channel)
