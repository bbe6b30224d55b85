"""A game's live feed: its changes read once per web process, one frame per audience.

``GET /games/{id}/live`` (Server-Sent Events) and the long poll's waiting requests
(``/games/{id}/events?wait=``) are subscribers of the game's feed (``realtime.feeds``). A
change is read here once: the game's row and its new events, each event encoded once, and,
for the audiences that asked for one, the page's fragment rendered once per seat (and once
for every spectator). What a subscriber gets is decided by its audience, ``(seat, fragment)``:
its seat (None for a spectator) as ``selectors.viewer_seat`` gives it, and the same rule as
``selectors.visible_events`` for which events that seat may see.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from accounts.auth import invalid_token
from accounts.models import Player
from core import json_codec
from core.errors import NotFound
from games import selectors
from games.models import Game, GameEvent
from realtime.delivery import feeds, game_channel

#: The pages' fragments a subscriber may ask for: name → render(game, the seat's game view),
#: the HTML the page puts in place. Registered by the web app (config/wiring.py).
FRAGMENTS: dict[str, Callable[[Game, dict[str, Any]], str]] = {}

#: A subscriber's audience: (its seat or None, the fragment it wants or None).
Audience = tuple[int | None, str | None]


@dataclass(frozen=True)
class KeptEvent:
    seq: int
    public: bool
    seat_mask: int
    data: bytes  # its JSON, as /events gives it


@dataclass
class GameState:
    """What a feed keeps of a game: where it stands, every event so far (each encoded
    once), and the fragments of its current version."""

    game_id: int
    version: int
    status: str
    last_seq: int
    embargoed: bool
    seats: dict[int, int]  # player id -> seat
    events: list[KeptEvent]
    fragments: dict[Audience, bytes] = field(default_factory=dict)  # JSON strings
    _bodies: dict[tuple[int | None, int], bytes] = field(default_factory=dict, repr=False)
    _frames: dict[tuple[Audience, int], bytes] = field(default_factory=dict, repr=False)

    @property
    def ended(self) -> bool:
        return self.status == Game.Status.FINISHED

    @property
    def position(self) -> int:
        return self.last_seq

    def seat_of(self, player_id: int) -> int | None:
        return self.seats.get(player_id)

    def visible(self, seat: int | None, after: int) -> list[bytes]:
        """The events with ``seq > after`` that ``seat`` may see, as
        ``selectors.visible_events`` decides it: all of them after the end (unless
        embargoed), else the public ones and the seat's own."""
        everything = self.ended and not self.embargoed
        bit = 0 if seat is None else 1 << seat
        return [
            e.data
            for e in self.events
            if e.seq > after and (everything or e.public or e.seat_mask & bit)
        ]

    def _head(self, events: list[bytes]) -> bytes:
        return b'"events":[%s],"version":%d,"last_seq":%d,"status":%s' % (
            b",".join(events),
            self.version,
            self.last_seq,
            json_codec.dumps(self.status),
        )

    def frame(self, audience: Audience, after: int) -> bytes:
        """The live stream's message of what ``audience`` may see after ``after``, made
        once for everyone who needs the same (watchers joining with the same ``after``
        share their catch-up)."""
        found = self._frames.get((audience, after))
        if found is None:
            found = self._frames[(audience, after)] = self._frame(audience, after)
        return found

    def _frame(self, audience: Audience, after: int) -> bytes:
        seat, fragment = audience
        data = b"{" + self._head(self.visible(seat, after))
        html = self.fragments.get(audience) if fragment is not None else None
        if html is not None:
            data += b',"html":' + html
        return feeds.sse_frame(self.last_seq, "change", data + b"}")

    def events_body(self, seat: int | None, after: int) -> bytes:
        """The long poll's answer (as ``selectors.events_after``), made once per seat and
        ``after`` for everyone waiting with the same."""
        key = (seat, after)
        body = self._bodies.get(key)
        if body is None:
            events = self.visible(seat, after)[: selectors.EVENTS_PAGE]
            body = self._bodies[key] = b"{" + self._head(events) + b"}"
        return body


class GameSource:
    """The games' :class:`realtime.feeds.Source`."""

    kind = "game"

    def channel(self, key: int) -> str:
        return game_channel(key)

    def read(
        self, key: int, state: GameState | None, audiences: frozenset[feeds.Audience]
    ) -> feeds.Read[GameState]:
        game = Game.objects.filter(pk=key).first()
        if game is None:
            return feeds.Read(None)
        changed = state is None or game.version != state.version
        if not changed and all(self.covers(state, a) for a in audiences):  # type: ignore[arg-type]
            return feeds.Read(state)
        after = state.last_seq if state is not None and changed else 0
        events = list(state.events) if state is not None and changed else []
        if changed:
            rows = GameEvent.objects.filter(game_id=key, seq__gt=after, seq__lte=game.last_seq)
            events += [
                KeptEvent(e.seq, e.public, e.seat_mask, json_codec.dumps(selectors.event_data(e)))
                for e in rows.order_by("seq")
            ]
        elif state is not None:
            events = state.events
        embargoed = selectors.deals_embargoed(game)
        kept = GameState(
            game_id=key,
            version=game.version,
            status=game.status,
            last_seq=game.last_seq,
            embargoed=embargoed,
            seats={s["player_id"]: s["seat"] for s in game.seats if s.get("player_id")},
            events=events,
            fragments={} if changed or state is None else dict(state.fragments),
        )
        self._render(game, kept, audiences)
        if not changed:
            return feeds.Read(kept)
        frames = {
            audience: kept.frame(audience, after)  # type: ignore[arg-type]
            for audience in audiences
            if allowed(kept, audience[0])  # type: ignore[index]
        }
        return feeds.Read(kept, frames)

    def _render(self, game: Game, state: GameState, audiences: frozenset[Any]) -> None:
        wanted = [a for a in audiences if a[1] is not None and a not in state.fragments]
        if not wanted:
            return
        engine = game.engine()
        views: dict[int | None, dict[str, Any]] = {}
        for seat, name in wanted:
            if not allowed(state, seat) or name not in FRAGMENTS:
                continue
            if seat not in views:
                views[seat] = selectors.game_view(game, engine, seat, embargoed=state.embargoed)
            html = FRAGMENTS[name](game, views[seat])
            state.fragments[(seat, name)] = json_codec.dumps(html)

    def versions(self, keys: list[int]) -> dict[int, int]:
        return dict(Game.objects.filter(pk__in=keys).values_list("pk", "version"))

    def covers(self, state: GameState, audience: Any) -> bool:
        """Whether ``state`` holds what ``audience``'s frames carry: its fragment, unless it
        has none to get (none asked for, none registered, or the game not shown to it)."""
        seat, name = audience
        return (
            name is None
            or audience in state.fragments
            or name not in FRAGMENTS
            or not allowed(state, seat)
        )

    def catch_up(self, state: GameState, audience: Any, after: int | None) -> bytes:
        return state.frame(audience, after or 0)


SOURCE = GameSource()


def allowed(state: GameState, seat: int | None) -> bool:
    """Whether the game may be shown to ``seat`` (None: a spectator): not to spectators
    while other tables play its deals."""
    return seat is not None or not state.embargoed


def _audience(viewer: Player | None, fragment: str | None) -> Callable[[GameState], Audience]:
    def audience_of(state: GameState) -> Audience:
        seat = selectors.viewer_seat(state, viewer)
        if not allowed(state, seat):
            raise selectors.embargo_refusal()
        return seat, fragment

    return audience_of


def _token_of(viewer: Player | None) -> int | None:
    return viewer.api_token_id if viewer is not None else None


async def follow(
    game_id: int, viewer: Player | None, *, after: int | None, fragment: str | None
) -> feeds.Subscriber | None:
    """A subscriber of the game for ``viewer`` (see ``realtime.feeds.follow``), or None when
    the game has ended and the caller has seen all of it (``after`` at its last change)."""
    try:
        subscriber = await feeds.follow(
            SOURCE,
            game_id,
            audience_of=_audience(viewer, fragment),
            token_id=_token_of(viewer),
            after=after,
        )
    except feeds.Gone:
        raise NotFound("not_found", "No such game.") from None
    state = subscriber.feed.state
    if state is not None and state.ended and after is not None and after >= state.last_seq:
        subscriber.leave()
        return None
    return subscriber


def sse(subscriber: feeds.Subscriber) -> AsyncIterator[bytes]:
    """The live stream's bytes for ``subscriber``."""
    return feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)


async def events_when_any(
    game_id: int, viewer: Player | None, *, after: int, seconds: float
) -> bytes:
    """The long poll's answer: the events ``viewer`` may see after ``after`` as soon as
    there are any (or the game has ended), else what stands after ``seconds``; answered
    from the process's feed of the game."""
    followed = feeds.feed(SOURCE, game_id)
    audience_of = _audience(viewer, None)
    try:
        state = await followed.ensure()
        seat, _ = audience_of(state)
        subscriber = followed.join((seat, None), _token_of(viewer))
    except feeds.Gone:
        raise NotFound("not_found", "No such game.") from None
    try:
        subscriber.start(state, None)
        deadline = time.monotonic() + seconds
        while True:
            if subscriber.ended == "revoked":
                raise invalid_token()
            if subscriber.ended == "gone" or followed.gone:
                raise NotFound("not_found", "No such game.")
            now = followed.state
            assert now is not None
            audience_of(now)
            left = deadline - time.monotonic()
            if now.ended or now.visible(seat, after) or left <= 0:
                return now.events_body(seat, after)
            await subscriber.next(left)
    finally:
        subscriber.leave()
