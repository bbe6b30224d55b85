"""The bots app listens for turns (``games.signals.turn_started``, sent on commit)."""

from __future__ import annotations

from typing import Any

from bots.models import BotAccount
from games.models import HOUSE_BOT_PREFIX


def enqueue_bot_turn(
    *, game_id: int, seat: int, player_id: int, username: str, is_bot: bool, version: int, **_: Any
) -> None:
    """A house bot's turn runs as a task; a webhook bot's turn is pushed by a task."""
    if not is_bot:
        return
    from bots import services, tasks

    if username.startswith(HOUSE_BOT_PREFIX):
        if not services.chaining():  # else the house bot task in this thread plays it next
            tasks.play_house_turn.delay(game_id, seat, version, username)
    elif BotAccount.objects.filter(player_id=player_id, mode=BotAccount.Mode.WEBHOOK).exists():
        tasks.push_turn_to_webhook.delay(game_id, seat, version, player_id)
