"""Reads of bot accounts: an owner's bots and how each is reached."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from accounts.selectors import own_bot_names
from bots.models import BotAccount


def own_bots(owner: Player) -> list[dict[str, Any]]:
    """``owner``'s active bot accounts by name: ``{username, mode, webhook_url}`` (``mode``
    None for a bot account made without a way to reach it)."""
    names = own_bot_names(owner)
    accounts = {
        account.player.username: account
        for account in BotAccount.objects.filter(player__username__in=names).select_related(
            "player"
        )
    }
    bots = []
    for name in names:
        account = accounts.get(name)
        bots.append(
            {
                "username": name,
                "mode": account.mode if account else None,
                "webhook_url": account.webhook_url if account else "",
            }
        )
    return bots
