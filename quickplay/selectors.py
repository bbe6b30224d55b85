"""Reads of quick play: a caller's seeks, as the API shows them."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from accounts.models import Player
from core.errors import NotFound
from games.selectors import iso
from quickplay.models import Seek


def shown_status(seek: Seek) -> str:
    """Its status; an open seek past its ``expires_at`` is expired, even before the sweep
    (``services.expire_due_seeks``) has marked it so."""
    if seek.status == Seek.Status.OPEN and seek.expires_at <= timezone.now():
        return Seek.Status.EXPIRED
    return str(seek.status)


def open_seeks(player: Player) -> list[Seek]:
    """The player's open seeks (at most one; none past its time), oldest first."""
    return list(
        Seek.objects.filter(player=player, status=Seek.Status.OPEN, expires_at__gt=timezone.now())
        .select_related("game")
        .order_by("created_at", "pk")
    )


def own_seek(player: Player, seek_id: int) -> Seek:
    """One of the player's seeks; another's is 404, as if it did not exist."""
    seek = Seek.objects.select_related("game").filter(pk=seek_id, player=player).first()
    if seek is None:
        raise NotFound("not_found", "No such seek.")
    return seek


def seek_data(seek: Seek) -> dict[str, Any]:
    no_range = seek.rating_min is None and seek.rating_max is None
    return {
        "id": seek.pk,
        "status": shown_status(seek),
        "rules": seek.rules,
        "rated": seek.rated,
        "move_seconds": seek.move_seconds,
        "rating": seek.rating,
        "rating_range": None if no_range else [seek.rating_min, seek.rating_max],
        "house_bots_after": seek.house_bots_after,
        "created_at": iso(seek.created_at),
        "expires_at": iso(seek.expires_at),
        "seated_at": iso(seek.seated_at),
        "game": seek.game_id,
        "table": None if seek.game is None else seek.game.table_id,
    }
