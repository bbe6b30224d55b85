"""Reads of accounts: the caller as ``/me`` shows it, their tokens, a player by name."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import QuerySet

from accounts.models import ApiToken, Player
from core.errors import NotFound


def me(player: Player, *, token: ApiToken) -> dict[str, Any]:
    """``GET /me``: the caller, with the scopes of the token they called with.

    The owner's name and the bots' in one plain query (the caller's row came with its
    token): the ORM's two (``player.owner``, ``player.bots``) cost more CPU than the rest of
    the request's work in the view.
    """
    owner, bots = None, []
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, username FROM {Player._meta.db_table}"
            " WHERE owner_id = %s OR id = %s ORDER BY id",
            [player.pk, player.owner_id],
        )
        for player_id, username in cursor.fetchall():
            if player_id == player.owner_id:
                owner = username
            else:
                bots.append(username)
    return {
        "username": player.username,
        "is_bot": player.is_bot,
        "owner": owner,
        "email": player.email,
        "scopes": token.scopes,
        "bots": bots,
    }


def own_bot_names(player: Player) -> list[str]:
    """The usernames of the bot accounts ``player`` owns, by name."""
    return list(
        player.bots.filter(is_active=True).order_by("username").values_list("username", flat=True)
    )


def live_tokens(player: Player) -> QuerySet[ApiToken]:
    """The player's tokens that still work, oldest first."""
    return player.tokens.filter(revoked_at__isnull=True).order_by("id")


def active_player(username: str) -> Player:
    """The active account named ``username`` (404 if none)."""
    found = Player.objects.filter(username=username, is_active=True).first()
    if found is None:
        raise NotFound("not_found", f"No player '{username}'.")
    return found
