"""A chat room followed live: its new and deleted messages read once per web process.

One topic of ``realtime.feeds`` per room (the key is the room's id): every watcher of a room
in a web process (pages, API clients) subscribes to its one feed. A post or a deletion moves
the room's ``version`` and wakes its channel (chat.services); the feed reads what changed
after the version it holds, in one query, encodes one message and hands the same bytes to
every subscriber. A room is one audience: the rules of who may follow it are checked before
a subscriber joins (chat.selectors), and a players' room and a spectators' room are two
topics, so no message of one can reach a watcher of the other.

A message: ``id:`` the room's version, ``event: chat``, ``data: {"version", "reset",
"messages", "deleted"}``: ``messages`` posted (oldest first), ``deleted`` their ids. The
first message of a stream (and of a reconnection that missed something) is the room's newest
messages with ``reset: true``: the client shows those in place of what it had.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from chat import selectors
from chat.models import Room
from core import json_codec
from realtime.delivery import chat_channel, feeds

EVENT = "chat"


@dataclass
class RoomState:
    """What a feed keeps of a room: its version and its newest messages (oldest first)."""

    version: int
    recent: list[dict[str, Any]]

    @property
    def ended(self) -> bool:
        return False  # people chat after a game, and between a tournament's rounds

    @property
    def position(self) -> int:
        return self.version

    def frame(self, posted: list[dict[str, Any]], deleted: list[int], *, reset: bool) -> bytes:
        data = json_codec.dumps(
            {"version": self.version, "reset": reset, "messages": posted, "deleted": deleted}
        )
        return feeds.sse_frame(self.version, EVENT, data)


class RoomSource:
    """The chat rooms' :class:`realtime.feeds.Source` (one audience per room: None)."""

    kind = "chat"

    def channel(self, key: int) -> str:
        return chat_channel(key)

    def read(
        self, key: int, state: RoomState | None, audiences: frozenset[feeds.Audience]
    ) -> feeds.Read[RoomState]:
        version = selectors.room_versions([key]).get(key)
        if version is None:
            return feeds.Read(None)
        if state is None:
            return feeds.Read(RoomState(version, selectors.recent(key)))
        if version == state.version:
            return feeds.Read(state)
        posted, deleted = selectors.changes_after(key, state.version)
        gone = set(deleted)
        recent = [m for m in state.recent if m["id"] not in gone] + posted
        kept = RoomState(version, recent[-selectors.SHOWN :])
        return feeds.Read(kept, {None: kept.frame(posted, deleted, reset=False)})

    def versions(self, keys: list[int]) -> dict[int, int]:
        return selectors.room_versions(keys)

    def covers(self, state: RoomState, audience: Any) -> bool:
        return True

    def catch_up(self, state: RoomState, audience: Any, after: int | None) -> bytes | None:
        """The room's newest messages, unless the watcher has seen this version already."""
        if after is not None and after >= state.version:
            return None
        return state.frame(state.recent, [], reset=True)


SOURCE = RoomSource()


async def follow(room: Room, *, token_id: int | None, after: int | None) -> feeds.Subscriber:
    """A subscriber of ``room`` (see ``realtime.feeds.follow``), whose reader the caller has
    checked may read it; it ends when ``token_id`` is revoked."""
    return await feeds.follow(
        SOURCE, room.pk, audience_of=lambda state: None, token_id=token_id, after=after
    )


def sse(subscriber: feeds.Subscriber) -> AsyncIterator[bytes]:
    """The live stream's bytes for ``subscriber``."""
    return feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)
