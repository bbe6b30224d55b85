"""A player's NDJSON stream (``GET /api/v1/stream``): what is sent, and when.

On connect, the lines other apps give for the player's current state (the games app: a
``your_turn`` for every game waiting on them: ``ON_CONNECT``); then every stream message
written for the player (``realtime.models.PlayerMessage``), in id order, as the wake-ups
of ``realtime.hub`` carry them or a look at the database finds them; an empty line when
nothing was sent for ``KEEPALIVE_SECONDS``. It ends when the token it was opened with is
revoked (``realtime.revocation``): nothing is sent on a token not checked in the last second.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from accounts.models import Player
from api.asyncviews import in_thread
from core import json_codec
from realtime import hub
from realtime.models import PlayerMessage
from realtime.revocation import TokenWatch

logger = logging.getLogger(__name__)

KEEPALIVE_SECONDS = 5.0

#: What a stream sends first, on connect: each takes the player and gives whole lines'
#: objects (``{"type": ..., ...}``). Registered in config/wiring.py.
ON_CONNECT: list[Callable[[Player], list[dict[str, Any]]]] = []


def _pending_lines(player: Player) -> list[dict[str, Any]]:
    return [line for lines_of in ON_CONNECT for line in lines_of(player)]


#: A stream's cursor moves past a message id once a look began this long after the id was
#: delivered. It assumes that no transaction writing stream messages takes longer than this
#: to commit (a move takes milliseconds; the longest, opening a tournament round, takes
#: seconds for a large round); the stream logs every line it finds out of id order, with
#: how late it was, to check this. SQLite runs one writer at a time, so its ids show in
#: order: no wait.
STREAM_SETTLE_SECONDS = 20.0
#: At most this many ids are remembered above the settled one: each look reads the rows
#: of its player back to the settled id (a look's CPU grows with the ids left out), so a
#: stream getting more than about a dozen lines a second moves on sooner than the settle
#: time.
STREAM_RECENT_MAX = 256
STREAM_PAGE = 100


@dataclass
class StreamCursor:
    """Where a stream is in its player's messages.

    Message ids come from one sequence, but transactions commit in their own order: on
    PostgreSQL a message can become visible after one with a higher id (a bot account's
    moves in two games committing out of order). A cursor moved to the highest id delivered
    would skip the lower one for good, and the bot would miss its turn. So the cursor moves
    only past ids delivered at least ``settle_seconds`` before a look began, when every
    transaction that took a lower id has ended and been looked at, and remembers the ids
    delivered above it (``recent``), which the next looks leave out.
    """

    settled: int
    recent: dict[int, float] = field(default_factory=dict)  # id -> when delivered
    settle_seconds: float = STREAM_SETTLE_SECONDS

    def delivered(self, message_id: int, now: float) -> None:
        self.recent[message_id] = now

    def has_sent(self, message_id: int) -> bool:
        """Whether the stream sent this message already (or moved past it)."""
        return message_id <= self.settled or message_id in self.recent

    def settle(self, looked: float) -> None:
        """Move past what was delivered long enough before the look that began at
        ``looked`` (call it only after a look that returned every line there was)."""
        old = [i for i, at in self.recent.items() if looked - at >= self.settle_seconds]
        if len(self.recent) > STREAM_RECENT_MAX:
            old.append(sorted(self.recent)[-STREAM_RECENT_MAX - 1])
        if old:
            self.settled = max(self.settled, *old)
            self.recent = {i: at for i, at in self.recent.items() if i > self.settled}


def stream_cursor(player: Player, now: float) -> StreamCursor:
    """A new stream's cursor: past every message there is (a stream sends what comes after
    it connects; pending turns are sent apart). Messages younger than the settle time count
    as delivered rather than settled, so one committing later with a lower id still goes
    out."""
    if connection.vendor != "postgresql":
        ids = PlayerMessage.objects.filter(player=player).order_by("-id")
        return StreamCursor(ids.values_list("id", flat=True).first() or 0, settle_seconds=0.0)
    table = PlayerMessage._meta.db_table
    cutoff = timezone.now() - timedelta(seconds=STREAM_SETTLE_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {table} WHERE player_id = %s AND created_at < %s"
            " ORDER BY id DESC LIMIT 1",
            [player.pk, cutoff],
        )
        row = cursor.fetchone()
        settled = row[0] if row else 0
        cursor.execute(
            f"SELECT id FROM {table} WHERE player_id = %s AND id > %s", [player.pk, settled]
        )
        recent = {message_id: now for (message_id,) in cursor.fetchall()}
    return StreamCursor(settled, recent)


def stream_lines_after(
    player: Player, after_id: int, exclude_ids: Collection[int] = ()
) -> list[tuple[int, bytes, datetime]]:
    """The caller's next stream messages as (id, NDJSON line, created at), oldest first, at
    most ``STREAM_PAGE``: those above ``after_id`` but not in ``exclude_ids`` (the ids a
    :class:`StreamCursor` delivered above it).

    Raw SQL, and the line is spliced from the stored JSON text: every stream runs this after
    each wake-up, and compiling the ORM's query, then decoding the payload (a seat's whole
    view, growing with the game) only to encode it again, cost more than the query itself.
    A payload key ``type`` would come after ours and win, as ``{"type": t, **payload}`` did.
    """
    exclude = list(exclude_ids)
    params: list[Any] = [player.pk, after_id]
    not_delivered = ""
    if connection.vendor == "postgresql":
        # One array parameter: the statement's text stays the same whatever the count.
        not_delivered = " AND NOT (id = ANY(%s))"
        params.append(exclude)
    elif exclude:
        not_delivered = f" AND id NOT IN ({', '.join(['%s'] * len(exclude))})"
        params.extend(exclude)
    sql = (
        f"SELECT id, type, payload, created_at FROM {PlayerMessage._meta.db_table}"
        f" WHERE player_id = %s AND id > %s{not_delivered} ORDER BY id LIMIT {STREAM_PAGE}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        (message_id, stream_line(message_type, payload), created_at)
        for message_id, message_type, payload, created_at in rows
    ]


def stream_line(message_type: str, payload: str | dict[str, Any]) -> bytes:
    """A stream message's NDJSON line, ``{"type": ..., **payload}``; a payload given as JSON
    text is spliced in, not decoded and encoded again."""
    text = payload.encode() if isinstance(payload, str) else json_codec.dumps(payload)
    body = text.strip()[1:].lstrip()
    head = b'{"type":' + json_codec.dumps(message_type)
    return head + (b"," if body != b"}" else b"") + body + b"\n"


def _line(data: dict[str, Any]) -> bytes:
    return json_codec.dumps(data) + b"\n"


def _log_late_line(player: Player, message_id: int, created_at: Any) -> None:
    """A line found after a higher id was sent: how late, to check the settle time holds."""
    aware = isinstance(created_at, datetime) and timezone.is_aware(created_at)
    late = (timezone.now() - created_at).total_seconds() if aware else -1.0
    logger.info(
        "stream of player %s: message %s came after a higher id, %.1f s after it was written",
        player.pk, message_id, late,
    )  # fmt: skip


def stream_start(player: Player) -> tuple[StreamCursor, list[dict[str, Any]]]:
    """A new stream's cursor, and the lines it sends first (``ON_CONNECT``)."""
    return stream_cursor(player, time.monotonic()), _pending_lines(player)


async def lines_for(
    player: Player, start: tuple[StreamCursor, list[dict[str, Any]]] | None = None
) -> AsyncIterator[bytes]:
    """The stream of ``player`` (authenticated with a token that may play, just now); it
    ends, and sends nothing more, once that token stops working (realtime.revocation).
    ``start``: its :func:`stream_start`, if the caller looked it up already."""
    watch = TokenWatch(player)
    cursor, pending = start if start is not None else await in_thread(stream_start)(player)
    with hub.listening(hub.player_channel(player.pk), alarm=watch.alarm) as waiter:
        for turn in pending:
            if await watch.revoked(waiter):
                return
            yield _line(turn)
        quiet_since = time.monotonic()
        look, last_look = True, 0.0
        carried: list[hub.Line] = []
        while True:
            if await watch.revoked(waiter):
                return
            if look:
                looked = time.monotonic()
                lines = await in_thread(stream_lines_after)(player, cursor.settled, cursor.recent)
                highest = max(cursor.recent, default=cursor.settled)
                for message_id, line, created_at in lines:
                    if await watch.revoked(waiter):
                        return
                    if message_id < highest:
                        _log_late_line(player, message_id, created_at)
                    highest = max(highest, message_id)
                    quiet_since = time.monotonic()
                    cursor.delivered(message_id, quiet_since)
                    yield line
                if len(lines) == STREAM_PAGE:
                    continue  # more are waiting: look again at once, and settle after them
                cursor.settle(looked)
                last_look = looked
            else:  # the wake-ups carried every line their changes wrote: no look needed
                for message_id, line in carried:
                    if not cursor.has_sent(message_id):
                        if await watch.revoked(waiter):
                            return
                        quiet_since = time.monotonic()
                        cursor.delivered(message_id, quiet_since)
                        yield line
            quiet = time.monotonic() - quiet_since
            if quiet >= KEEPALIVE_SECONDS:
                if await watch.revoked(waiter):
                    return
                yield b"\n"
                quiet_since = time.monotonic()
                quiet = 0.0
            woken = await waiter.wait(KEEPALIVE_SECONDS - quiet)
            carried, must_look = waiter.take()
            since_look = time.monotonic() - last_look
            look = not woken or must_look or since_look >= hub.recheck_seconds()
