"""Live feeds: a topic's changes read once per web process and handed to all its watchers.

A watcher of a game (a page, a spectator, a bot following ``/live``, a long poll) costs the
server next to nothing because nothing is done for it alone:

* **One feed per topic per process.** The first watcher of a game in a web process starts
  the game's :class:`Feed`; later ones join it. The feed registers once on the game's hub
  channel; when a change is announced (by this process, or by another one through Redis),
  it reads what changed **once**, in one crossing to a thread, through its :class:`Source`,
  which encodes one frame per *audience* (a spectator's, each seat's, with or without the
  page's fragment). The same bytes go to every subscriber of that audience.
* **No timers per watcher.** A subscriber waits on its own queue; it wakes only to send a
  frame or a keep-alive comment. What could be missed (the embedded default has no Redis;
  a subscription may drop) is caught by **one look per process** (:class:`Registry`): the
  versions of every topic with a feed, in one query, every ``hub.recheck_seconds()``
  (0.2 s without Redis, 5 s while the process hears every change); a feed whose version
  moved reads again.
* **Tokens checked in bulk.** A frame goes to a subscriber that opened with a token only if
  that token was found live in the same crossing as the read (one query for all of them);
  a revocation wakes the token's hub channel, and the feed ends the subscriber at once.
* **A slow reader is dropped.** A subscriber holds the frames it has not yet sent; past
  ``settings.LIVE_MAX_BEHIND_BYTES`` it ends, and the others never wait for it.

The state a feed keeps (a game's events so far, its fragments) also answers new subscribers
and long polls from memory. A feed outlives its last subscriber by ``FEED_LINGER_SECONDS``,
so that a long poll's next request or a reconnecting page finds it warm.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import weakref
import zlib
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from django.conf import settings

from accounts.auth import live_token_ids
from api.asyncviews import in_thread
from core import json_codec
from core.errors import Unavailable
from realtime import hub
from realtime.revocation import TOKEN_RECHECK_SECONDS

logger = logging.getLogger(__name__)

#: How long a feed with no subscriber left goes on following its topic.
FEED_LINGER_SECONDS = 30.0
#: A subscriber that opened with a token has it checked by the process's look once its last
#: check is this old, in one query with the others due (a change's frames are only sent on a
#: check made in the change's own read).
IDLE_TOKEN_CHECK_SECONDS = TOKEN_RECHECK_SECONDS
#: How often the process's look asks whether it is due (``hub.recheck_seconds()`` apart).
LOOK_STEP_SECONDS = hub.EMBEDDED_POLL_SECONDS
#: Seconds to wait before reading again after a read failed (the database is down, say).
READ_RETRY_SECONDS = 1.0

#: A Server-Sent Events comment: keeps an idle connection (and the proxies on its way) open.
SSE_KEEPALIVE = b": keep-alive\n\n"

Audience = Hashable


class State(Protocol):
    """What a feed keeps of its topic; made by its source's ``read`` only."""

    @property
    def version(self) -> int:
        """Compared with the topic's stored version by the process-wide look."""
        ...

    @property
    def ended(self) -> bool:
        """No change will follow (a finished game): subscribers end after its frame."""
        ...

    @property
    def position(self) -> int:
        """The id of the last message this state holds (what ``catch_up`` takes as
        ``after``): a game's ``last_seq``, a tournament's version."""
        ...


S = TypeVar("S", bound=State)
#: What a list's page shows that may change (``PersonalList``'s marks).
M = TypeVar("M")


@dataclass
class Read(Generic[S]):
    """What one read found: the new state (None: the topic no longer exists) and, if the
    topic changed, the frame of that change for each audience asked for."""

    state: S | None
    frames: dict[Audience, bytes] = field(default_factory=dict)


class Source(Protocol[S]):
    """A kind of topic (games, tournaments): how to read it. ``read`` and ``versions`` run
    in a thread; ``covers`` and ``catch_up`` on the loop, from memory."""

    kind: str

    def channel(self, key: int) -> str: ...

    def read(self, key: int, state: S | None, audiences: frozenset[Audience]) -> Read[S]: ...

    def versions(self, keys: list[int]) -> dict[int, int]: ...

    def covers(self, state: S, audience: Audience) -> bool: ...

    def catch_up(self, state: S, audience: Audience, after: int | None) -> bytes | None:
        """The frame of what ``audience`` missed after ``after`` (None: a new watcher), or
        None when it missed nothing."""
        ...


def sse_frame(event_id: int, event: str, data: bytes) -> bytes:
    """One Server-Sent Events message; ``data`` is one line of JSON."""
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event_id, event.encode(), data)


class Subscriber:
    """One watcher of a feed: the frames it has yet to send, touched only on its loop.

    Kept small (a web process holds one per open stream): a list rather than a deque, and
    a future made only while it waits rather than an ``asyncio.Event``."""

    __slots__ = (
        "_behind", "_frames", "_waiter", "audience", "ended", "feed", "seen_position",
        "seen_version", "started", "token_checked", "token_id",
    )  # fmt: skip

    def __init__(self, feed: Feed[Any], audience: Audience, token_id: int | None) -> None:
        self.feed = feed
        self.audience = audience
        self.token_id = token_id
        self.token_checked = time.monotonic()  # its caller was authenticated just now
        self.started = False
        # The state its frames have brought it to: its version, and the id of its last message.
        self.seen_version = -1
        self.seen_position = 0
        self.ended: str | None = None  # why: "finished", "revoked", "gone", "slow"
        self._frames: list[bytes] = []
        self._behind = 0
        self._waiter: asyncio.Future[None] | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self.feed.loop

    def start(self, state: State, first: bytes | None) -> None:
        """From now on the feed's frames are this subscriber's; ``first`` is its catch-up
        (what it missed up to ``state``, the feed's), made without a wait since the state."""
        self.started = True
        self.seen_version, self.seen_position = state.version, state.position
        if first is not None:
            self.push(first)

    def push(self, frame: bytes) -> None:
        if self.ended is not None:
            return
        self._frames.append(frame)
        self._behind += len(frame)
        if self._behind > settings.LIVE_MAX_BEHIND_BYTES:
            self.end("slow", drop_frames=True)
        self._wake()

    def end(self, reason: str, *, drop_frames: bool = False) -> None:
        """End after the frames queued (or at once, ``drop_frames``). It leaves the feed
        now: a client that stopped reading may never come back to leave it."""
        if self.ended is None:
            self.ended = reason
        if drop_frames:
            self._frames = []
            self._behind = 0
        self._wake()
        self.feed.leave(self)

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def receive(self, lines: list[hub.Line]) -> None:
        """A wake-up on the token's channel: it may have been revoked; check it now."""
        self.token_checked = 0.0
        self.feed.read_soon()

    async def next(self, timeout: float) -> list[bytes] | None:
        """The frames queued, waiting up to ``timeout`` s for one ([] if none came); None
        once the subscriber has ended and sent everything."""
        if not self._frames and self.ended is None:
            self._waiter = self.loop.create_future()
            # asyncio.timeout, not wait_for: no task of its own for each waiting watcher.
            try:
                async with asyncio.timeout(timeout):
                    await self._waiter
            except TimeoutError:
                pass
            finally:
                self._waiter = None
        if self._frames:
            frames, self._frames, self._behind = self._frames, [], 0
            return frames
        return None if self.ended is not None else []

    def leave(self) -> None:
        self.feed.leave(self)


class Gone(LookupError):
    """The topic a feed follows no longer exists (or never did)."""


class Feed(Generic[S]):
    """One topic followed by this process on one event loop (see the module)."""

    def __init__(self, registry: Registry, source: Source[S], key: int) -> None:
        self.registry = registry
        self.source = source
        self.key = key
        self.loop = registry.loop
        self.state: S | None = None
        self.gone = False
        self.error: BaseException | None = None
        self.subscribers: set[Subscriber] = set()
        self._alarms: dict[Subscriber, contextlib.ExitStack] = {}
        self._wanted: set[Audience] = set()
        self._due = asyncio.Event()
        self._read_done = asyncio.Event()
        self._idle_since = time.monotonic()
        self._task = self.loop.create_task(self._run())

    # --- The hub's wake-ups -----------------------------------------------------------------

    def receive(self, lines: list[hub.Line]) -> None:
        self.read_soon()

    def read_soon(self) -> None:
        self._due.set()

    # --- Subscribers ------------------------------------------------------------------------

    async def ensure(self, audience: Audience | None = None) -> S:
        """The state, once read and holding what ``audience``'s frames need; raises
        :class:`Gone`, or what the last read raised."""
        while True:
            if self.gone:
                raise Gone(self.key)
            state = self.state
            if state is not None and (audience is None or self.source.covers(state, audience)):
                return state
            if audience is not None:
                self._wanted.add(audience)
            done = self._read_done
            self.error = None
            self._due.set()
            await done.wait()
            if self.error is not None and not self.gone:
                raise self.error

    def join(self, audience: Audience, token_id: int | None) -> Subscriber:
        """A subscriber, not yet started (:meth:`Subscriber.start`)."""
        subscriber = Subscriber(self, audience, token_id)
        self.subscribers.add(subscriber)
        if token_id is not None:
            stack = contextlib.ExitStack()
            stack.enter_context(hub.receiving(hub.token_channel(token_id), subscriber))
            self._alarms[subscriber] = stack
        return subscriber

    def leave(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)
        stack = self._alarms.pop(subscriber, None)
        if stack is not None:
            stack.close()
        if not self.subscribers:
            self._idle_since = time.monotonic()

    # --- Reading ----------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            with hub.receiving(self.source.channel(self.key), self):
                while True:
                    if not self._due.is_set() and not await self._wait_due():
                        return
                    self._due.clear()
                    # Read even with nobody subscribed while it lingers: the next watcher
                    # (a long poll's next request) is answered from its state.
                    try:
                        await self._read()
                    except Exception:  # a bug in a source must not end every watcher
                        logger.exception("live feed %s %s failed", self.source.kind, self.key)
                        self.error = Unavailable(
                            "service_unavailable",
                            "The live feed failed; try again shortly.",
                            retry_after=math.ceil(READ_RETRY_SECONDS),
                        )
                        self._finish_read()
                        await asyncio.sleep(READ_RETRY_SECONDS)
        finally:
            self.registry.forget(self)

    async def _wait_due(self) -> bool:
        """Wait for a read to be due; False when the feed has lingered long enough."""
        while not self._due.is_set():
            left = FEED_LINGER_SECONDS
            if not self.subscribers and not self._wanted:
                left -= time.monotonic() - self._idle_since
                if left <= 0:
                    return False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._due.wait()
        return True

    async def _read(self) -> None:
        audiences = frozenset({s.audience for s in self.subscribers} | self._wanted)
        now = time.monotonic()
        tokens = {s.token_id for s in self.subscribers if s.token_id is not None}
        try:
            read, live = await in_thread(_read_and_check)(
                self.source, self.key, self.state, audiences, tokens
            )
        except Exception as error:  # the database is down, say: the subscribers wait
            logger.warning("live feed %s %s: read failed: %r", self.source.kind, self.key, error)
            self.error = error
            self._finish_read()
            await asyncio.sleep(READ_RETRY_SECONDS)
            self._due.set()
            return
        self._wanted -= audiences
        before, self.state = self.state, read.state
        if read.state is None:
            self.gone = True
        self._deliver(read, before, tokens, live, now)
        self._finish_read()

    def _finish_read(self) -> None:
        done, self._read_done = self._read_done, asyncio.Event()
        done.set()

    def _deliver(
        self,
        read: Read[S],
        before: S | None,
        checked: set[int],
        live: set[int],
        now: float,
    ) -> None:
        """Bring every started subscriber to the state read: the read's frame of its audience
        if it stood where the read began, else its own catch-up (it joined during the read,
        or its audience's fragment is only made now)."""
        state = read.state
        for subscriber in list(self.subscribers):
            if subscriber.token_id in checked:
                if subscriber.token_id not in live:
                    subscriber.end("revoked", drop_frames=True)
                    continue
                subscriber.token_checked = now
            if state is None:
                subscriber.end("gone")
                continue
            if not subscriber.started or subscriber.seen_version == state.version:
                continue
            audience = subscriber.audience
            if not self.source.covers(state, audience):
                self._wanted.add(audience)  # its fragment: the next read makes it
                self.read_soon()
                continue
            frame = None
            if before is not None and subscriber.seen_version == before.version:
                frame = read.frames.get(audience)
            if frame is None:
                frame = self.source.catch_up(state, audience, subscriber.seen_position)
            if frame is not None:
                subscriber.push(frame)
            subscriber.seen_version, subscriber.seen_position = state.version, state.position
            if state.ended:
                subscriber.end("finished")

    def check_tokens(self, live: set[int], checked: set[int], now: float) -> None:
        """The process-wide look's token check: end the subscribers whose token died."""
        for subscriber in list(self.subscribers):
            if subscriber.token_id in checked:
                if subscriber.token_id in live:
                    subscriber.token_checked = now
                else:
                    subscriber.end("revoked", drop_frames=True)


# --- A person's own list ------------------------------------------------------------------


def fingerprint(marks: object) -> int:
    """A list's mark: a fingerprint of what its page shows (anything with a stable
    ``repr``), which changes when that does."""
    return zlib.crc32(repr(marks).encode())


@dataclass
class ListState:
    """A list as its feed keeps it: its mark and the one message that shows it."""

    version: int
    frame: bytes

    @property
    def ended(self) -> bool:
        return False

    @property
    def position(self) -> int:
        return self.version


#: The one audience of a :class:`PersonalList`: the person's own pages.
OWN_PAGES = "page"


class PersonalList(Generic[M]):
    """A list that a person's own pages show (their challenges, what waits on them), as a
    :class:`Source`: one topic per person (the key is the player's id), followed on the
    person's channel (``hub.person_channel``), with one audience, the person's pages.

    ``marks(keys)`` gives, for each of these people, what their list shows that may change,
    in one or a few statements for them all (the process's look compares their fingerprints);
    ``render(key, marks, version)`` the list's HTML from the person's marks (None: the
    person no longer exists). The list is read and rendered once per change for all the
    person's pages. A message: ``id:`` the list's mark, ``event: change``, ``data:
    {"version", "html"}``; the mark is a fingerprint, so a page resumes by it
    (``Last-Event-ID`` or ``after``) and is sent the list unless it shows that one already.

    A feed is only ever its own person's list: a view follows the signed-in person's key,
    never one the request names."""

    def __init__(
        self,
        kind: str,
        *,
        marks: Callable[[list[int]], dict[int, M]],
        render: Callable[[int, M, int], str | None],
    ) -> None:
        self.kind = kind
        self.marks = marks
        self.render = render

    def channel(self, key: int) -> str:
        return hub.person_channel(key)

    def read(
        self, key: int, state: ListState | None, audiences: frozenset[Audience]
    ) -> Read[ListState]:
        marks = self.marks([key])[key]
        version = fingerprint(marks)
        if state is not None and version == state.version:
            return Read(state)
        html = self.render(key, marks, version)
        if html is None:
            return Read(None)
        data = b'{"version":%d,"html":%s}' % (version, json_codec.dumps(html))
        kept = ListState(version, sse_frame(version, "change", data))
        return Read(kept, {OWN_PAGES: kept.frame} if state is not None else {})

    def versions(self, keys: list[int]) -> dict[int, int]:
        return {key: fingerprint(found) for key, found in self.marks(keys).items()}

    def covers(self, state: ListState, audience: Audience) -> bool:
        return True

    def catch_up(self, state: ListState, audience: Audience, after: int | None) -> bytes | None:
        """The list, unless the page shows this one already."""
        return None if after == state.version else state.frame

    async def follow(self, key: int, *, token_id: int | None, after: int | None) -> Subscriber:
        """A subscriber of person ``key``'s own list (see :func:`follow`); it ends when the
        token the person was reached with (``token_id``) is revoked (a logout)."""
        return await follow(
            self, key, audience_of=lambda state: OWN_PAGES, token_id=token_id, after=after
        )


def _read_and_check(
    source: Source[S], key: int, state: S | None, audiences: frozenset[Audience], tokens: set[int]
) -> tuple[Read[S], set[int]]:
    """A feed's read and its subscribers' token check, in one crossing to a thread."""
    return source.read(key, state, audiences), live_token_ids(tokens)


class Registry:
    """The feeds of one event loop (a web process has one), and their one look."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.feeds: dict[tuple[str, int], Feed[Any]] = {}
        self._look: asyncio.Task[None] | None = None

    def feed(self, source: Source[S], key: int) -> Feed[S]:
        found = self.feeds.get((source.kind, key))
        if found is None:
            found = self.feeds[(source.kind, key)] = Feed(self, source, key)
        if self._look is None or self._look.done():
            self._look = self.loop.create_task(self._look_while_feeds())
        return found

    def read_all(self) -> None:
        for feed in list(self.feeds.values()):
            feed.read_soon()

    def forget(self, feed: Feed[Any]) -> None:
        if self.feeds.get((feed.source.kind, feed.key)) is feed:
            del self.feeds[(feed.source.kind, feed.key)]
        for subscriber in list(feed.subscribers):
            subscriber.end("gone")

    async def _look_while_feeds(self) -> None:
        """Every ``hub.recheck_seconds()``: each followed topic's version, one query per
        kind, in one crossing; a feed whose topic moved reads again. Idle subscribers'
        tokens are checked in the same crossing."""
        last_look = time.monotonic()
        while self.feeds:
            # In short steps: a subscription that drops shortens the interval at once.
            await asyncio.sleep(LOOK_STEP_SECONDS)
            now = time.monotonic()
            if now - last_look < hub.recheck_seconds():
                continue
            last_look = now
            feeds = [f for f in self.feeds.values() if f.state is not None]
            tokens = {
                s.token_id
                for f in feeds
                for s in f.subscribers
                if s.token_id is not None and now - s.token_checked >= IDLE_TOKEN_CHECK_SECONDS
            }
            if not feeds:
                continue
            try:
                versions, live = await in_thread(_look)(feeds, tokens)
            except Exception as error:
                logger.warning("live feeds' look failed: %r", error)
                continue
            for feed in feeds:
                state = feed.state
                if (
                    state is not None
                    and versions.get((feed.source.kind, feed.key)) != state.version
                ):
                    feed.read_soon()
                if tokens:
                    feed.check_tokens(live, tokens, now)


def _look(feeds: list[Feed[Any]], tokens: set[int]) -> tuple[dict[tuple[str, int], int], set[int]]:
    by_source: dict[str, tuple[Source[Any], list[int]]] = {}
    for feed in feeds:
        by_source.setdefault(feed.source.kind, (feed.source, []))[1].append(feed.key)
    versions = {
        (kind, key): version
        for kind, (source, keys) in by_source.items()
        for key, version in source.versions(keys).items()
    }
    return versions, live_token_ids(tokens)


_registries: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Registry] = (
    weakref.WeakKeyDictionary()
)


def read_all_when_unheard(channels: Any) -> None:
    """``hub.on_changes_elsewhere``: when the subscription (re)starts (``None``), changes
    made while it was down went unheard; every feed reads once (from the listener's
    thread)."""
    if channels is not None:
        return
    for loop, found in list(_registries.items()):
        with contextlib.suppress(RuntimeError):  # that loop has closed
            loop.call_soon_threadsafe(found.read_all)


def registry() -> Registry:
    """The running loop's feeds."""
    loop = asyncio.get_running_loop()
    found = _registries.get(loop)
    if found is None:
        found = _registries[loop] = Registry(loop)
    return found


def feed(source: Source[S], key: int) -> Feed[S]:
    """The running loop's feed of ``key`` (started if there is none)."""
    return registry().feed(source, key)


async def follow(
    source: Source[S],
    key: int,
    *,
    audience_of: Callable[[S], Audience],
    token_id: int | None,
    after: int | None,
) -> Subscriber:
    """A started subscriber of ``key``'s feed: its first frame is what it missed after
    ``after`` (None: a new watcher, sent the whole topic), then each change.
    ``audience_of`` picks its audience from the state and raises a domain error to refuse
    it. Raises :class:`Gone` for a topic that does not exist. The caller must
    :meth:`~Subscriber.leave` it."""
    followed = feed(source, key)
    state = await followed.ensure()
    audience = audience_of(state)
    subscriber = followed.join(audience, token_id)
    try:
        state = await followed.ensure(audience)
        audience_of(state)  # refused now, if it changed meanwhile
        # No wait between the catch-up and the start: nothing is missed or sent twice.
        subscriber.start(state, source.catch_up(state, audience, after))
        if state.ended:
            subscriber.end("finished")
    except BaseException:
        subscriber.leave()
        raise
    return subscriber


async def frames_of(subscriber: Subscriber, keepalive_seconds: float) -> AsyncIterator[bytes]:
    """The bytes of a Server-Sent Events response for ``subscriber``: its frames, a comment
    when nothing was sent for ``keepalive_seconds``; it ends when the subscriber does.

    A frame is not held while the stream waits: after the first (a catch-up of this
    watcher's own, which may be large), an empty chunk takes its place in the handler."""
    try:
        first = True
        while True:
            frames = await subscriber.next(keepalive_seconds)
            if frames is None:
                return
            if not frames:
                yield SSE_KEEPALIVE
                continue
            chunk = frames[0] if len(frames) == 1 else b"".join(frames)
            del frames
            yield chunk
            del chunk
            if first:
                first = False
                yield b""
    finally:
        subscriber.leave()
