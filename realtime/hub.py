"""Wake-ups for waiting clients (long polls, streams) when a game or a player's inbox changes.

The database is the source of truth; a wake-up tells a waiter to look again, or carries the
stream lines just committed (``lines``), so that the one stream they are for can send them
without a look: every move sends a line to the next seat, and that look (a thread hop and a
query) was a large part of the server's CPU per move. A waiter still looks whenever a wake-up
comes without lines, when its wait times out, and at least every :func:`recheck_seconds`,
so a lost or partial wake-up costs a delay, never a line.

* Service mode: a change is published as one message on one Redis channel
  (:data:`REDIS_CHANNEL`, see :func:`wire_message`); each web process keeps one
  subscription and wakes the waiters of the channels the message names. Every process
  receives every change either way; one message per change (rather than one per waiter
  channel) halves the messages a move costs each process, and a process skips its own,
  whose waiters it has already woken.
* Embedded default: web server and worker are separate processes with no server between
  them, so waiters look again every ``EMBEDDED_POLL_SECONDS`` (and are woken at once by
  changes made in their own process).
* Service mode with the subscription down (Redis unreachable or restarting): as in the
  embedded default, waiters look every ``EMBEDDED_POLL_SECONDS`` until it is back
  (:func:`recheck_seconds`); publishes fail and are skipped meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol

from django.conf import settings

from core import background, redis_client
from core.redis_client import ThrottledLog, shared_redis

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "sergeant:"
#: The one Redis channel every change is published on (its name keeps deployments and test
#: suites on one Redis server apart: settings.REALTIME_CHANNEL).
REDIS_CHANNEL: str = settings.REALTIME_CHANNEL
EMBEDDED_POLL_SECONDS = 0.2
SERVICE_MODE_RECHECK_SECONDS = 5.0
#: A waiter keeps at most this many carried lines between two reads (each is a seat's view).
MAX_CARRIED_LINES = 64


#: A stream message as a wake-up carries it: (its id, its NDJSON line).
Line = tuple[int, bytes]


class Receiver(Protocol):
    """What the hub wakes: ``receive`` is called on ``loop`` with the lines carried (none
    for a plain wake-up)."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    def receive(self, lines: list[Line]) -> None: ...


def game_channel(game_id: int) -> str:
    return f"{CHANNEL_PREFIX}game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"{CHANNEL_PREFIX}player:{player_id}"


def tournament_channel(tournament_id: int) -> str:
    """Woken when a tournament changes in a way its page shows (entrants, rounds, a table's
    game over, standings, its status)."""
    return f"{CHANNEL_PREFIX}tournament:{tournament_id}"


def person_channel(player_id: int) -> str:
    """Woken when something that waits on the person, or that their pages list, may have
    changed: a challenge they sent or are invited to (made, answered, canceled, expired), a
    tournament invitation of theirs, a tournament round that seats them, a turn of theirs
    (started or ended), a club invitation of theirs, a join request of a club they
    administer (or their becoming or ceasing to be its admin). Their challenges page and
    their notifications follow it."""
    return f"{CHANNEL_PREFIX}person:{player_id}"


def chat_channel(room_id: int) -> str:
    """A chat room's: every message posted or deleted in it wakes it."""
    return f"{CHANNEL_PREFIX}chat:{room_id}"


def lobby_channel() -> str:
    """Woken when a game starts or ends: the list of the games being played changed."""
    return f"{CHANNEL_PREFIX}lobby"


def token_channel(token_id: int) -> str:
    """Woken when the API token ``token_id`` is revoked: its waiting clients must end."""
    return f"{CHANNEL_PREFIX}token:{token_id}"


def game_of_channel(channel: str) -> int | None:
    """The game a :func:`game_channel` names, or None for another channel."""
    return _number_of(channel, f"{CHANNEL_PREFIX}game:")


def token_of_channel(channel: str) -> int | None:
    """The token a :func:`token_channel` names, or None for another channel."""
    return _number_of(channel, f"{CHANNEL_PREFIX}token:")


def _number_of(channel: str, prefix: str) -> int | None:
    number = channel.removeprefix(prefix)
    return int(number) if number != channel and number.isdigit() else None


#: Told of the channels of every change another process made, as its wake-up arrives, and
#: told None when the subscription (re)starts (changes made meanwhile went unheard).
ChangesElsewhere = Callable[[Iterable[str] | None], None]
_changes_elsewhere: list[ChangesElsewhere] = []


def on_changes_elsewhere(callback: ChangesElsewhere) -> None:
    """Call ``callback`` from the subscription's thread (service mode); see the type."""
    if callback not in _changes_elsewhere:
        _changes_elsewhere.append(callback)


def hears_changes_elsewhere() -> bool:
    """Whether every change made by another process now reaches this one (service mode,
    subscription up): till it drops, :func:`on_changes_elsewhere` callbacks miss none."""
    return bool(settings.REDIS_URL) and _hub.subscribed.is_set()


def start_hearing_changes_elsewhere() -> None:
    """Subscribe this process, if it is not yet (service mode): the subscription otherwise
    starts with the first waiter (:func:`listening`)."""
    _hub._ensure_listener()


def _tell_changes_elsewhere(channels: Iterable[str] | None) -> None:
    for callback in _changes_elsewhere:
        try:
            callback(channels)
        except Exception:  # one consumer's bug must not stop the wake-ups
            logger.exception("a listener of changes made elsewhere failed")


def publish(channels: Iterable[str], lines: Mapping[str, Sequence[Line]] | None = None) -> None:
    """Wake every waiter on ``channels`` (call after commit). A channel in ``lines`` gets
    those lines, which must be every message the change wrote for it; the others, a plain
    wake-up (look again)."""
    channels, lines = list(channels), dict(lines or {})
    _hub.notify_local(channels, lines)
    _publish_to_redis(channels, lines)


def publish_soon(
    channels: Iterable[str], lines: Mapping[str, Sequence[Line]] | None = None
) -> None:
    """:func:`publish`, with the Redis round trip left to the background thread."""
    channels, lines = list(channels), dict(lines or {})
    _hub.notify_local(channels, lines)
    if settings.REDIS_URL:
        background.run_soon(partial(_publish_to_redis, channels, lines))


def _publish_to_redis(channels: list[str], lines: dict[str, Sequence[Line]]) -> None:
    # Tried even while the request paths skip Redis (redis_client.unavailable): off the
    # request, a refused connection costs nothing, and a publish skipped just after Redis came
    # back would go unheard by a process already subscribed again, whose waiters trust it.
    if settings.REDIS_URL:
        try:
            shared_redis().publish(REDIS_CHANNEL, wire_message(channels, lines, process_tag()))
        except Exception as error:  # waiters fall back to their re-looks; the change is committed
            redis_client.went_down(error)


def wire_message(
    channels: Iterable[str], lines: Mapping[str, Sequence[Line]], origin: str
) -> bytes:
    """A change as published on :data:`REDIS_CHANNEL`: newline-separated records, first the
    publishing process's tag, then ``<channel>`` for a plain wake-up or ``<channel> <id>
    <line>`` for each carried line. An NDJSON line holds no newline before its end; a line
    that did would not survive the framing, so its channel gets a plain wake-up instead."""
    records = [origin.encode()]
    for channel in dict.fromkeys(channels):
        carried = [(number, line.rstrip(b"\n")) for number, line in lines.get(channel) or ()]
        name = channel.encode()
        if carried and not any(b"\n" in line for _, line in carried):
            records.extend(b"%s %d %s" % (name, number, line) for number, line in carried)
        else:
            records.append(name)
    return b"\n".join(records)


def read_wire_message(payload: bytes) -> tuple[str, dict[str, list[Line]]]:
    """(origin, {channel: the lines it carries, none for a plain wake-up}) of a
    :func:`wire_message`; a record it cannot read makes its channel a plain wake-up."""
    origin, *records = payload.split(b"\n")
    woken: dict[str, list[Line] | None] = {}  # None: a plain wake-up
    for record in records:
        name, _, rest = record.partition(b" ")
        head, _, line = rest.partition(b" ")
        carried = woken.setdefault(name.decode(), [])
        if carried is not None and line and head.isdigit():
            carried.append((int(head), line + b"\n"))
        else:
            woken[name.decode()] = None
    return origin.decode(), {channel: carried or [] for channel, carried in woken.items()}


_tag = ("", 0)
_listener_failures = ThrottledLog("pub/sub listener failed; waiters poll while it reconnects")


def process_tag() -> str:
    """This process's tag in the messages it publishes (a forked child gets its own)."""
    global _tag
    if _tag[1] != os.getpid():
        _tag = (f"{os.getpid()}-{uuid.uuid4().hex[:12]}", os.getpid())
    return _tag[0]


def listener_name() -> str:
    """This process's subscription as Redis lists it (``CLIENT LIST``)."""
    return f"sergeant-pubsub-{os.getpid()}"


def recheck_seconds() -> float:
    """The longest a waiter goes without looking at the database: wake-ups from other
    processes reach it only through Redis, which the embedded default does not have, and
    which service mode has only while this process's subscription is up."""
    return SERVICE_MODE_RECHECK_SECONDS if hears_changes_elsewhere() else EMBEDDED_POLL_SECONDS


class Hub:
    """Per-process registry of waiters, fed by one Redis subscription in service mode.

    The subscription runs in a daemon thread with the blocking Redis client: it outlives any
    one event loop (each in-process test request has its own) and never holds a loop open.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[Receiver]] = defaultdict(set)
        self._listener: threading.Thread | None = None
        # Set once the Redis subscription is confirmed, cleared when the listener fails (redis-py
        # may resubscribe by itself meanwhile). Tests wait on it instead of sleeping.
        self.subscribed = threading.Event()

    def _wake(self, channels: Iterable[str], lines: Mapping[str, Sequence[Line]]) -> None:
        with self._lock:
            targets = [
                (channel, waiter, list(lines.get(channel, ())))
                for channel in channels
                for waiter in self._waiters.get(channel, ())
            ]
        gone: list[tuple[str, Receiver]] = []
        for channel, waiter, carried in targets:
            try:
                waiter.loop.call_soon_threadsafe(waiter.receive, carried)
            except RuntimeError:  # that loop has closed meanwhile: nobody is left to wake
                gone.append((channel, waiter))
        if gone:
            self._unregister(gone)

    def _register(self, registrations: Sequence[tuple[str, Receiver]]) -> None:
        with self._lock:
            for name, registered in registrations:
                self._waiters[name].add(registered)

    def _unregister(self, registrations: Sequence[tuple[str, Receiver]]) -> None:
        with self._lock:
            for name, registered in registrations:
                waiters = self._waiters.get(name)
                if waiters is not None:
                    waiters.discard(registered)
                    if not waiters:
                        self._waiters.pop(name, None)

    def watched_channels(self) -> int:
        """How many channels have someone waiting on them in this process."""
        with self._lock:
            return len(self._waiters)

    def notify_local(self, channels: Iterable[str], lines: Mapping[str, Sequence[Line]]) -> None:
        self._wake(channels, lines)

    def _listen_forever(self) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        while True:
            # No retries inside redis-py: a dropped connection reaches the handler below at
            # once, so that waiters fall back to polling meanwhile (recheck_seconds).
            client = redis.Redis.from_url(
                settings.REDIS_URL,
                client_name=listener_name(),
                socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT,
                retry=Retry(NoBackoff(), 0),
            )
            pubsub = client.pubsub()
            own = process_tag().encode() + b"\n"  # this thread does not outlive a fork
            try:
                pubsub.subscribe(REDIS_CHANNEL)
                for message in pubsub.listen():
                    if message["type"] == "subscribe":
                        _tell_changes_elsewhere(None)  # what came before it went unheard
                        self.subscribed.set()
                    if message["type"] != "message":
                        continue
                    if message["data"].startswith(own):  # woken at publish: not read again
                        continue
                    _, woken = read_wire_message(message["data"])
                    _tell_changes_elsewhere(woken)
                    self._wake(woken, woken)
            except Exception as error:
                self.subscribed.clear()
                _listener_failures.failed(error)
                with contextlib.suppress(Exception):  # its connection, not left for the GC
                    pubsub.close()
                # Anyone waiting may have missed a wake-up: let them look again.
                with self._lock:
                    channels = list(self._waiters)
                self._wake(channels, {})
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
    def listening(self, channel: str, *, alarm: str | None = None) -> Iterator[Waiter]:
        """Register for wake-ups on ``channel`` *before* looking at the database, so a change
        committed between the look and the wait still wakes us; a wake-up on ``alarm``
        wakes us too and raises the waiter's alarm (:meth:`Waiter.take_alarm`)."""
        self._ensure_listener()
        waiter = Waiter(asyncio.get_running_loop())
        registrations: list[tuple[str, Receiver]] = [(channel, waiter)]
        if alarm is not None:
            registrations.append((alarm, _Alarm(waiter)))
        self._register(registrations)
        try:
            yield waiter
        finally:
            self._unregister(registrations)

    @contextlib.contextmanager
    def receiving(self, channel: str, receiver: Receiver) -> Iterator[None]:
        """Have ``receiver.receive(lines)`` called on ``receiver.loop`` for every wake-up on
        ``channel`` while inside."""
        self._ensure_listener()
        self._register([(channel, receiver)])
        try:
            yield
        finally:
            self._unregister([(channel, receiver)])


@dataclass(eq=False)
class Waiter:
    """One waiting client's wake-ups; touched only on its event loop."""

    loop: asyncio.AbstractEventLoop
    event: asyncio.Event = field(default_factory=asyncio.Event)
    lines: list[Line] = field(default_factory=list)
    must_look: bool = False
    alarmed: bool = False

    def receive(self, lines: list[Line]) -> None:
        if lines and len(self.lines) < MAX_CARRIED_LINES:
            self.lines.extend(lines)
        else:  # a plain wake-up, or a client that does not read: the look finds them all
            self.lines, self.must_look = [], True
        self.event.set()

    async def wait(self, timeout: float) -> bool:
        """Wait until woken or ``timeout`` s pass; True if woken. Waits are capped so that a
        missed wake-up (listener reconnecting, or the embedded default) costs one re-look."""
        try:
            await asyncio.wait_for(self.event.wait(), max(0.0, min(timeout, recheck_seconds())))
        except TimeoutError:
            return False
        self.event.clear()
        return True

    def take(self) -> tuple[list[Line], bool]:
        """The lines the wake-ups since the last call carried, and whether one of them asked
        for a look instead."""
        lines, must_look = self.lines, self.must_look
        self.lines, self.must_look = [], False
        return lines, must_look

    def take_alarm(self) -> bool:
        """Whether a wake-up came on the alarm channel since the last call."""
        alarmed, self.alarmed = self.alarmed, False
        return alarmed


@dataclass(eq=False)
class _Alarm:
    """A waiter's registration on its alarm channel: a wake-up there raises its alarm."""

    waiter: Waiter

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self.waiter.loop

    def receive(self, lines: list[Line]) -> None:
        self.waiter.alarmed = True
        self.waiter.event.set()


_hub = Hub()


def listening(
    channel: str, *, alarm: str | None = None
) -> contextlib.AbstractContextManager[Waiter]:
    """``with listening(channel) as waiter: ... await waiter.wait(seconds)``"""
    return _hub.listening(channel, alarm=alarm)


def receiving(channel: str, receiver: Receiver) -> contextlib.AbstractContextManager[None]:
    """``with receiving(channel, receiver): ...``: see :meth:`Hub.receiving`."""
    return _hub.receiving(channel, receiver)


async def wait_subscribed(timeout: float) -> bool:
    """Wait until this process's Redis subscription is confirmed (service mode; it starts
    with the first :func:`listening`): from then on a publish anywhere wakes its waiters."""
    return await asyncio.to_thread(_hub.subscribed.wait, timeout)
