"""Creating bot accounts."""

from __future__ import annotations

import secrets

from django.db import transaction

from bots.models import BotAccount
from config.api_errors import ApiError
from games.models import Player
from games.services import create_bot_player


def create_bot_account(
    owner: Player, username: str, mode: str, webhook_url: str
) -> tuple[BotAccount, str]:
    """A bot account owned by ``owner``; returns it and its token key."""
    if mode == BotAccount.Mode.WEBHOOK and not webhook_url:
        raise ApiError(
            400,
            "invalid",
            "A webhook bot needs a webhook_url.",
            fields={"webhook_url": ["Required in webhook mode."]},
        )
    with transaction.atomic():
        player, key = create_bot_player(owner, username)
        account = BotAccount.objects.create(
            player=player,
            mode=mode,
            webhook_url=webhook_url if mode == BotAccount.Mode.WEBHOOK else "",
            webhook_secret=secrets.token_urlsafe(32) if mode == BotAccount.Mode.WEBHOOK else "",
        )
    return account, key
