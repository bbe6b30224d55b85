"""The one way in to realtime delivery for the other apps: stream messages and wake-ups.

* A change that writes stream lines for players makes them with :func:`message` (unsaved:
  the games app writes them in the same statement as the move) and announces them with
  :func:`announce_on_commit`; one that only sends lines calls :func:`send`.
* A waiting view registers on a channel with :func:`listening` before it looks, so that a
  change committed between its look and its wait still wakes it; with a :class:`TokenWatch`
  of its caller (its ``alarm`` channel given to :func:`listening`), it ends when the
  caller's token is revoked.
* The lines themselves are sent by the player's stream (``realtime.stream``).
* A topic that pages and spectators watch (a game, a tournament, the games in play, a
  person's challenges, what waits on a person) offers a ``feeds.Source`` (a list a person's
  pages show: a ``feeds.PersonalList``); its watchers follow it through :data:`feeds`
  (``realtime.feeds``: one read per change per process). A change of such a topic wakes
  its channel after commit (:func:`wake_on_commit`, or ``also`` of
  :func:`announce_on_commit`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from realtime import feeds, hub
from realtime.hub import (
    Waiter,
    game_channel,
    game_of_channel,
    hears_changes_elsewhere,
    lobby_channel,
    on_changes_elsewhere,
    person_channel,
    player_channel,
    tournament_channel,
)
from realtime.models import PlayerMessage
from realtime.revocation import TokenWatch
from realtime.stream import stream_line

__all__ = [
    "MESSAGE_TTL",
    "PlayerMessage",
    "TokenWatch",
    "Waiter",
    "announce_on_commit",
    "feeds",
    "game_channel",
    "game_of_channel",
    "hears_changes_elsewhere",
    "listening",
    "lobby_channel",
    "message",
    "on_changes_elsewhere",
    "person_channel",
    "player_channel",
    "purge_expired_messages",
    "send",
    "tournament_channel",
    "wake_on_commit",
]

#: Stream messages only serve streams that are connected now (a new stream starts from the
#: newest message and resends pending turns), so old ones can go.
MESSAGE_TTL = timedelta(hours=1)


def message(player_id: int, *, type: str, payload: dict[str, Any]) -> PlayerMessage:
    """A stream line for a player, unsaved: the caller writes it with the rest of its change
    and then announces it (:func:`announce_on_commit`)."""
    return PlayerMessage(player_id=player_id, type=type, payload=payload)


def send(player_ids: Iterable[int], *, type: str, payload: dict[str, Any]) -> None:
    """The same stream line for each of these players, written now and sent once the
    surrounding transaction commits."""
    messages = PlayerMessage.objects.bulk_create(
        message(player_id, type=type, payload=payload) for player_id in sorted(set(player_ids))
    )
    announce_on_commit(player_ids={m.player_id for m in messages}, messages=messages)


def announce_on_commit(
    *,
    player_ids: Iterable[int],
    game_id: int | None = None,
    messages: Sequence[PlayerMessage] = (),
    also: Iterable[str] = (),
) -> None:
    """Wake these players' streams (and the game's long polls) once the change commits.

    ``messages``, when given, must be every stream message the change wrote for those
    players, saved (so with ids): their lines ride with the wake-ups, and a stream sends
    them without a look at the database. A player who got none is told to look. ``also``:
    more channels the change touched (the lobby's, say), woken in the same message."""
    channels = [player_channel(p) for p in dict.fromkeys(player_ids)]
    if game_id is not None:
        channels.insert(0, game_channel(game_id))
    channels.extend(also)
    lines: dict[str, list[hub.Line]] = {}
    if any(m.pk is None for m in messages):  # a database that gives new rows no ids
        messages = ()
    for sent in messages:
        line = stream_line(sent.type, sent.payload)
        lines.setdefault(player_channel(sent.player_id), []).append((sent.pk, line))
    transaction.on_commit(lambda: hub.publish_soon(channels, lines))


def wake_on_commit(channels: Iterable[str]) -> None:
    """A plain wake-up of ``channels`` once the surrounding transaction commits (at once
    outside one): their watchers look again."""
    woken = list(dict.fromkeys(channels))
    transaction.on_commit(lambda: hub.publish_soon(woken))


def listening(
    channel: str, *, alarm: str | None = None
) -> contextlib.AbstractContextManager[Waiter]:
    """``with listening(channel) as waiter: ... await waiter.wait(seconds)``; a wake-up on
    ``alarm`` (a :class:`TokenWatch`'s) wakes the waiter too."""
    return hub.listening(channel, alarm=alarm)


def purge_expired_messages() -> int:
    """Drop the stream messages no stream can still send; returns how many."""
    deleted, _ = PlayerMessage.objects.filter(created_at__lt=timezone.now() - MESSAGE_TTL).delete()
    return deleted
