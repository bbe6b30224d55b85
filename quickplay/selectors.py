"""Reads of quick play: a caller's seeks, as the API shows them."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from core.errors import NotFound
from quickplay.models import Seek


def open_seeks(player: Player) -> list[Seek]:
    """The player's open seeks (at most one), oldest first."""
    return list(
        Seek.objects.filter(player=player, status=Seek.Status.OPEN)
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
        "status": seek.status,
        "rules": seek.rules,
        "rated": seek.rated,
        "move_seconds": seek.move_seconds,
        "rating": seek.rating,
        "rating_range": None if no_range else [seek.rating_min, seek.rating_max],
        "house_bots_after": seek.house_bots_after,
        "created_at": seek.created_at,
        "seated_at": seek.seated_at,
        "game": seek.game_id,
        "table": None if seek.game is None else seek.game.table_id,
    }
