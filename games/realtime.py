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
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from django.conf import settings

from config.redis_client import shared_redis
from games import background

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "sergeant:"
EMBEDDED_POLL_SECONDS = 0.2
SERVICE_MODE_RECHECK_SECONDS = 5.0


def game_channel(game_id: int) -> str:
    return f"{CHANNEL_PREFIX}game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"{CHANNEL_PREFIX}player:{player_id}"


def publish(channels: Iterable[str]) -> None:
    """Tell every waiter on ``channels`` to look again (call after commit)."""
    channels = list(channels)
    _hub.notify_local(channels)
    _publish_to_redis(channels)


def publish_soon(channels: Iterable[str]) -> None:
    """:func:`publish`, with the Redis round trip left to the background thread."""
    channels = list(channels)
    _hub.notify_local(channels)
    if settings.REDIS_URL:
        background.run_soon(partial(_publish_to_redis, channels))


def _publish_to_redis(channels: list[str]) -> None:
    if settings.REDIS_URL:
        try:
            pipe = shared_redis().pipeline(transaction=False)
            for channel in channels:
                pipe.publish(channel, b"1")
            pipe.execute()
        except Exception:  # waiters fall back to their timeout; the change is committed
            logger.exception("could not publish wake-ups on %s", channels)


class Hub:
    """Per-process registry of waiters, fed by one Redis subscription in service mode.

    The subscription runs in a daemon thread with the blocking Redis client: it outlives any
    one event loop (each in-process test request has its own) and never holds a loop open.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = (
            defaultdict(set)
        )
        self._listener: threading.Thread | None = None

    def _wake(self, channels: Iterable[str]) -> None:
        with self._lock:
            targets = [w for channel in channels for w in self._waiters.get(channel, ())]
        for loop, event in targets:
            with contextlib.suppress(RuntimeError):  # that loop has closed meanwhile
                loop.call_soon_threadsafe(event.set)

    def notify_local(self, channels: Iterable[str]) -> None:
        self._wake(channels)

    def _listen_forever(self) -> None:
        import redis

        while True:
            try:
                pubsub = redis.Redis.from_url(settings.REDIS_URL).pubsub(
                    ignore_subscribe_messages=True
                )
                pubsub.psubscribe(CHANNEL_PREFIX + "*")
                for message in pubsub.listen():
                    channel = message["channel"]
                    self._wake([channel.decode() if isinstance(channel, bytes) else channel])
            except Exception:
                logger.exception("pub/sub listener failed; reconnecting")
                # Anyone waiting may have missed a wake-up: let them look again.
                with self._lock:
                    channels = list(self._waiters)
                self._wake(channels)
                time.sleep(1)

    def _ensure_listener(self) -> None:
        if not settings.REDIS_URL:
            return
        with self._lock:
            if self._listener is None or not self._listener.is_alive():
                self._listener = threading.Thread(
                    target=self._listen_forever, name="pubsub-listener", daemon=True
                )
                self._listener.start()

    @contextlib.contextmanager
    def listening(self, channel: str) -> Iterator[Waiter]:
        """Register for wake-ups on ``channel`` *before* looking at the database, so a change
        committed between the look and the wait still wakes us."""
        self._ensure_listener()
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters[channel].add(entry)
        try:
            yield Waiter(entry[1])
        finally:
            with self._lock:
                waiters = self._waiters.get(channel)
                if waiters is not None:
                    waiters.discard(entry)
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
