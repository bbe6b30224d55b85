"""The games being played now, followed live: the home page's list, pushed to every page.

One topic (key 0) of ``realtime.feeds``: a web process keeps one feed of it for all its
home pages. A game that starts or ends wakes the lobby's channel (``games.changes``); the
feed reads the list once and renders it once (``FRAGMENTS``), and every page gets the same
bytes. What the list shows that changes without a wake-up (a new hand of a game) is caught
by the process-wide look, which compares the list's marks (:func:`mark`).

A message: ``id:`` the list's mark, ``event: change``, ``data: {"version", "html"}``. The
mark is a fingerprint, not a count: a page resumes by it (``Last-Event-ID`` or ``after``)
and is sent the list unless it shows that one already.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core import json_codec
from games import selectors
from realtime.delivery import feeds, lobby_channel

#: How many games the list shows (the newest).
SHOWN = 8
#: The list's renderers: name → render(the games, as ``selectors.games_in_play`` gives them,
#: and the list's mark). Registered by the web app (config/wiring.py).
FRAGMENTS: dict[str, Callable[[list[dict[str, Any]], int], str]] = {}
#: The one fragment the feed renders (the home page's).
FRAGMENT = "home"
KEY = 0


def mark(marks: list[tuple[int, int]]) -> int:
    """The list's fingerprint from its games' (id, hand number): it changes when they do."""
    return zlib.crc32(repr(marks).encode())


@dataclass
class InPlayState:
    version: int
    frame: bytes

    @property
    def ended(self) -> bool:
        return False

    @property
    def position(self) -> int:
        return self.version


class InPlaySource:
    """The games in play as a :class:`realtime.feeds.Source` (one key, one audience)."""

    kind = "in_play"

    def channel(self, key: int) -> str:
        return lobby_channel()

    def read(
        self, key: int, state: InPlayState | None, audiences: frozenset[feeds.Audience]
    ) -> feeds.Read[InPlayState]:
        games = selectors.games_in_play(SHOWN)
        version = mark([(g["id"], g["hand_number"]) for g in games])
        if state is not None and version == state.version:
            return feeds.Read(state)
        render = FRAGMENTS.get(FRAGMENT)
        html = render(games, version) if render is not None else ""
        data = b'{"version":%d,"html":%s}' % (version, json_codec.dumps(html))
        kept = InPlayState(version, feeds.sse_frame(version, "change", data))
        return feeds.Read(kept, {FRAGMENT: kept.frame} if state is not None else {})

    def versions(self, keys: list[int]) -> dict[int, int]:
        return {KEY: mark(selectors.in_play_marks(SHOWN))}

    def covers(self, state: InPlayState, audience: Any) -> bool:
        return True

    def catch_up(self, state: InPlayState, audience: Any, after: int | None) -> bytes | None:
        """The list, unless the page shows this one already."""
        return None if after == state.version else state.frame


SOURCE = InPlaySource()


def shown() -> tuple[list[dict[str, Any]], int]:
    """The games the list shows now, and its mark (a page's ``after``)."""
    games = selectors.games_in_play(SHOWN)
    return games, mark([(g["id"], g["hand_number"]) for g in games])


async def follow(after: int | None) -> feeds.Subscriber:
    """A subscriber of the list (see ``realtime.feeds.follow``)."""
    return await feeds.follow(
        SOURCE, KEY, audience_of=lambda state: FRAGMENT, token_id=None, after=after
    )


def sse(subscriber: feeds.Subscriber) -> AsyncIterator[bytes]:
    """The live stream's bytes for ``subscriber``."""
    return feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)
