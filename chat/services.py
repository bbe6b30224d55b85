"""Chat's changes: post a message, delete one (staff), mute and unmute an author.

Every change of a room moves its ``version`` under the room's row lock and wakes its live
channel once committed (chat.live reads it once per web process for all its watchers)."""

from __future__ import annotations

import math

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts import ratelimit
from accounts.models import Player
from chat.models import Message, Mute, Room
from chat.selectors import LINKS_AFTER, Access, game_access, tournament_access
from core.errors import Invalid, NotAllowed, NotFound, RateLimited, not_found
from realtime.delivery import chat_channel, wake_on_commit

#: The longest message, in characters.
MAX_LENGTH = 500


def _text(text: str) -> str:
    cleaned = text.strip()
    if not cleaned:
        message = "A message needs some text."
        raise Invalid("invalid", message, fields={"text": [message]})
    if len(cleaned) > MAX_LENGTH:
        message = f"A message is at most {MAX_LENGTH} characters."
        raise Invalid("invalid", message, fields={"text": [message]})
    return cleaned


def rate_key(player_id: int) -> str:
    """The rate limit's key of a person's messages (all their rooms together)."""
    return f"chat:{player_id}"


def _take_turn(author: Player) -> None:
    """Count one message against ``author``'s chat bucket."""
    wait = ratelimit.hit(rate_key(author.pk), settings.CHAT_BURST, settings.CHAT_WINDOW_SECONDS)
    if wait is not None:
        raise RateLimited(
            "chat_rate_limited",
            "You are sending messages too fast; wait a moment.",
            retry_after=math.ceil(wait),
        )


def _room(access: Access) -> Room:
    """The room's row, made on its first use (two first uses at once: one makes it)."""
    found = access.room()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Room.objects.create(
                kind=access.kind, game_id=access.game_id, tournament_id=access.tournament_id
            )
    except IntegrityError:
        found = access.room()
        assert found is not None
        return found


def room_of(access: Access) -> Room:
    """The room ``access`` names (made if it has no row yet): what a live stream follows."""
    return _room(access)


def post_message(
    author: Player,
    *,
    text: str,
    game_id: int | None = None,
    channel: str | None = None,
    tournament_id: int | None = None,
) -> Message:
    """Post ``text`` to a game's room ``channel`` or to a tournament's room. Refuses with
    NotAllowed (``chat_not_allowed``), Invalid (no text, or too long),
    RateLimited (``chat_rate_limited``), NotFound, or Conflict (``deals_embargoed``)."""
    if game_id is not None:
        assert channel is not None
        access = game_access(author, game_id, channel)
    else:
        assert tournament_id is not None
        access = tournament_access(author, tournament_id)
    if access.post_refusal is not None:
        raise access.post_refusal
    cleaned = _text(text)
    _take_turn(author)
    room = _room(access)
    now = timezone.now()
    with transaction.atomic():
        Room.objects.filter(pk=room.pk).update(version=F("version") + 1)
        version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
        message = Message.objects.create(
            room=room,
            author=author,
            text=cleaned,
            links=author.date_joined <= now - LINKS_AFTER,
            version=version,
        )
        wake_on_commit([chat_channel(room.pk)])
    return message


def delete_message(moderator: Player, *, message_id: int) -> None:
    """Take a message out of its room (staff only: NotAllowed ``not_moderator``); deleting
    it again changes nothing."""
    if not moderator.is_staff:
        raise NotAllowed("not_moderator", "Only moderators delete chat messages.")
    with transaction.atomic():
        message = Message.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise not_found("No such message.")
        if message.deleted_at is not None:
            return
        Room.objects.filter(pk=message.room_id).update(version=F("version") + 1)
        message.deleted_version = Room.objects.values_list("version", flat=True).get(
            pk=message.room_id
        )
        message.deleted_at = timezone.now()
        message.deleted_by = moderator
        message.save(update_fields=["deleted_at", "deleted_by", "deleted_version"])
        wake_on_commit([chat_channel(message.room_id)])


def _author(username: str) -> Player:
    found = Player.objects.filter(username=username).first()
    if found is None:
        raise NotFound("not_found", "No such player.")
    return found


def mute(muter: Player, *, username: str) -> None:
    """``muter`` no longer reads ``username``'s messages (muting twice changes nothing)."""
    muted = _author(username)
    if muted.pk == muter.pk:
        raise Invalid("cannot_mute_self", "You cannot mute yourself.")
    Mute.objects.get_or_create(muter=muter, muted=muted)


def unmute(muter: Player, *, username: str) -> None:
    """``muter`` reads ``username``'s messages again."""
    Mute.objects.filter(muter=muter, muted=_author(username)).delete()
