"""A person's pending challenges, followed live: their challenges page, kept current.

One topic per player (the key is the player's id) of ``realtime.feeds``: a web process keeps
one feed of a player for all that player's open challenges pages. Every change of a
challenge wakes the challenges channel of each person it involves (``challenges.services``);
the feed reads the player's list once and renders it once (``FRAGMENTS``) for their pages.
A challenge that runs out of time without a wake-up (before the expiry sweep marks it) is
caught by the process-wide look, which compares the list's marks (:func:`mark`).

A feed is only ever the list of its own player: the page's view follows the signed-in
person's key, never one the request names, so no page gets another person's challenges.

A message: ``id:`` the list's mark, ``event: change``, ``data: {"version", "html"}``. The
mark is a fingerprint: a page resumes by it (``Last-Event-ID`` or ``after``) and is sent the
list unless it shows that one already.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from accounts.models import Player
from challenges import selectors
from core import json_codec
from realtime.delivery import challenges_channel, feeds

#: How many challenges the page lists (the newest).
SHOWN = 100
#: The list's renderers: name → render(the player's username, their pending challenges as
#: ``selectors.challenges_data`` gives them, the list's mark). Registered by the web app
#: (config/wiring.py).
FRAGMENTS: dict[str, Callable[[str, list[dict[str, Any]], int], str]] = {}
#: The one fragment the feed renders (the challenges page's lists).
FRAGMENT = "page"


def mark(marks: list[selectors.Mark]) -> int:
    """The list's fingerprint from its challenges' marks: it changes when they do."""
    return zlib.crc32(repr(marks).encode())


@dataclass
class ChallengesState:
    version: int
    frame: bytes

    @property
    def ended(self) -> bool:
        return False

    @property
    def position(self) -> int:
        return self.version


def shown(player: Player) -> tuple[list[dict[str, Any]], int]:
    """The challenges the page lists now, and the list's mark (a page's ``after``)."""
    pending = selectors.challenges_data(selectors.pending_challenges(player)[:SHOWN])
    return pending, mark(selectors.pending_marks([player.pk])[player.pk])


class ChallengesSource:
    """Each player's pending challenges as a :class:`realtime.feeds.Source` (one audience:
    the player's own pages)."""

    kind = "challenges"

    def channel(self, key: int) -> str:
        return challenges_channel(key)

    def read(
        self, key: int, state: ChallengesState | None, audiences: frozenset[feeds.Audience]
    ) -> feeds.Read[ChallengesState]:
        version = mark(selectors.pending_marks([key])[key])
        if state is not None and version == state.version:
            return feeds.Read(state)
        player = Player.objects.filter(pk=key).first()
        if player is None:
            return feeds.Read(None)
        pending = selectors.challenges_data(selectors.pending_challenges(player)[:SHOWN])
        render = FRAGMENTS.get(FRAGMENT)
        html = render(player.username, pending, version) if render is not None else ""
        data = b'{"version":%d,"html":%s}' % (version, json_codec.dumps(html))
        kept = ChallengesState(version, feeds.sse_frame(version, "change", data))
        return feeds.Read(kept, {FRAGMENT: kept.frame} if state is not None else {})

    def versions(self, keys: list[int]) -> dict[int, int]:
        return {key: mark(found) for key, found in selectors.pending_marks(keys).items()}

    def covers(self, state: ChallengesState, audience: Any) -> bool:
        return True

    def catch_up(self, state: ChallengesState, audience: Any, after: int | None) -> bytes | None:
        """The list, unless the page shows this one already."""
        return None if after == state.version else state.frame


SOURCE = ChallengesSource()


async def follow(player: Player, *, after: int | None) -> feeds.Subscriber:
    """A subscriber of ``player``'s own list (see ``realtime.feeds.follow``); it ends when
    the token ``player`` was reached with is revoked (a logout)."""
    return await feeds.follow(
        SOURCE,
        player.pk,
        audience_of=lambda state: FRAGMENT,
        token_id=player.api_token_id,
        after=after,
    )


def sse(subscriber: feeds.Subscriber) -> AsyncIterator[bytes]:
    """The live stream's bytes for ``subscriber``."""
    return feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)
