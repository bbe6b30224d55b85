"""A tournament's live feed: its changes read once per web process, for every watcher.

``GET /tournaments/{id}/live`` (Server-Sent Events) subscribes to the tournament's feed
(``realtime.feeds``). A change (the tournament's ``version`` moved on: every service that
changes it, and a game of its rounds ending, moves it and wakes its channel) is read here
once: the tournament as anyone may see it, the message encoded once, and, for the pages
that asked for it, the page's live part rendered once for all of them. Nothing in a
message is a viewer's own: a tournament is public, and the page marks its viewer's rows
itself (an organiser's page, whose live part carries its controls, asks for its own).
A subscriber's audience is the fragment it wants, or None.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from accounts.models import Player
from core import json_codec
from core.errors import NotFound
from realtime.delivery import feeds, tournament_channel
from tournaments import selectors
from tournaments.models import Tournament

#: The pages' fragments a subscriber may ask for: name → render(the tournament's detail as
#: anyone sees it), the HTML the page puts in place. Registered by the web app
#: (config/wiring.py).
FRAGMENTS: dict[str, Callable[[dict[str, Any]], str]] = {}

#: A subscriber's audience: the fragment it wants, or None.
Audience = str | None


@dataclass
class TournamentState:
    """What a feed keeps of a tournament: its detail at ``version``, the message's fields
    (encoded once) and the fragments of that version."""

    tournament_id: int
    version: int
    status: str
    detail: dict[str, Any]
    fields: bytes  # the message's JSON fields but ``changes`` and ``html``, without braces
    fragments: dict[str, bytes] = field(default_factory=dict)  # JSON strings

    @property
    def ended(self) -> bool:
        return self.status == Tournament.Status.FINISHED

    @property
    def position(self) -> int:
        return self.version

    def frame(self, audience: Audience, changes: list[str]) -> bytes:
        """The live stream's message of this version for ``audience``, naming ``changes``."""
        data = b'{"changes":' + json_codec.dumps(changes) + b"," + self.fields
        if audience is not None:
            data += b',"html":' + self.fragments[audience]
        return feeds.sse_frame(self.version, "change", data + b"}")


def _state(tournament_id: int, detail: dict[str, Any]) -> TournamentState:
    return TournamentState(
        tournament_id=tournament_id,
        version=detail["version"],
        status=detail["status"],
        detail=detail,
        fields=json_codec.dumps(selectors.live_data(detail))[1:-1],
    )


class TournamentSource:
    """The tournaments' :class:`realtime.feeds.Source`."""

    kind = "tournament"

    def channel(self, key: int) -> str:
        return tournament_channel(key)

    def read(
        self, key: int, state: TournamentState | None, audiences: frozenset[feeds.Audience]
    ) -> feeds.Read[TournamentState]:
        if state is not None:
            # A wake-up may come for a change already read (or for none): one small query
            # before the whole tournament.
            version = selectors.versions([key]).get(key)
            if version is None:
                return feeds.Read(None)
            if version == state.version:
                self._render(state, audiences)
                return feeds.Read(state)
        detail = selectors.live_detail(key)
        if detail is None:
            return feeds.Read(None)
        kept = _state(key, detail)
        self._render(kept, audiences)
        if state is None:  # the first read: its subscribers start from what it found
            return feeds.Read(kept)
        changes = selectors.live_changes(state.detail, detail)
        return feeds.Read(kept, {a: kept.frame(a, changes) for a in audiences})  # type: ignore[arg-type]

    def _render(self, state: TournamentState, audiences: frozenset[Any]) -> None:
        for name in audiences:
            if name is not None and name not in state.fragments:
                render = FRAGMENTS.get(name)
                html = render(state.detail) if render is not None else ""
                state.fragments[name] = json_codec.dumps(html)

    def versions(self, keys: list[int]) -> dict[int, int]:
        return selectors.versions(keys)

    def covers(self, state: TournamentState, audience: Any) -> bool:
        return audience is None or audience in state.fragments

    def catch_up(self, state: TournamentState, audience: Any, after: int | None) -> bytes | None:
        """What stands now, unless the watcher has seen this version already."""
        if after is not None and after >= state.version:
            return None
        return state.frame(audience, [])


SOURCE = TournamentSource()


async def follow(
    tournament_id: int, viewer: Player | None, *, after: int | None, fragment: str | None
) -> feeds.Subscriber | None:
    """A subscriber of the tournament (see ``realtime.feeds.follow``), or None when it has
    finished and the caller has seen its last version (``after``)."""
    try:
        subscriber = await feeds.follow(
            SOURCE,
            tournament_id,
            audience_of=lambda state: fragment,
            token_id=viewer.api_token_id if viewer is not None else None,
            after=after,
        )
    except feeds.Gone:
        raise NotFound("not_found", "No such tournament.") from None
    state = subscriber.feed.state
    if state is not None and state.ended and after is not None and after >= state.version:
        subscriber.leave()
        return None
    return subscriber


def sse(subscriber: feeds.Subscriber) -> AsyncIterator[bytes]:
    """The live stream's bytes for ``subscriber``."""
    return feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)
