"""Bot turns as Celery tasks: ids in, the service does the work."""

from __future__ import annotations

import logging

from celery import shared_task

from bots import services

log = logging.getLogger(__name__)


@shared_task(name="bots.play_house_turn", ignore_result=True)
def play_house_turn(game_id: int, seat: int, version: int, bot: str) -> None:
    services.play_house_turn(game_id, seat=seat, version=version, bot=bot)


@shared_task(name="bots.push_turn_to_webhook", ignore_result=True)
def push_turn_to_webhook(game_id: int, seat: int, version: int, player_id: int) -> None:
    services.push_turn_to_webhook(game_id, seat=seat, version=version, player_id=player_id)


@shared_task(name="bots.resend_stalled_house_turns", ignore_result=True)
def resend_stalled_house_turns() -> None:
    """Beat's sweep for house-bot turns whose task was lost (bots.services)."""
    stalled = services.stalled_house_turns()
    for game_id, seat, version, bot in stalled:
        play_house_turn.delay(game_id, seat, version, bot)
    if stalled:
        log.warning("sent %d stalled house-bot turn(s) again", len(stalled))
