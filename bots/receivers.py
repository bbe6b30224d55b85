"""The bots app listens for turns (``games.signals.turn_started``, connected in
config/wiring.py and sent on commit)."""

from __future__ import annotations

from typing import Any

from accounts.models import HOUSE_BOT_PREFIX
from bots.models import BotAccount
from bots.tasks import play_house_turn, push_turn_to_webhook
from games.signals import TurnStarted


def enqueue_bot_turn(*, event: TurnStarted, **_: Any) -> None:
    """A house bot's turn runs as a task; a webhook bot's turn is pushed by a task."""
    if not event.is_bot:
        return
    if event.username.startswith(HOUSE_BOT_PREFIX):
        play_house_turn.delay(event.game_id, event.seat, event.version, event.username)
    elif BotAccount.objects.filter(
        player_id=event.player_id, mode=BotAccount.Mode.WEBHOOK
    ).exists():
        push_turn_to_webhook.delay(event.game_id, event.seat, event.version, event.player_id)
