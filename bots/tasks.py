"""Bot turns as Celery tasks: ids in, the service does the work."""

from __future__ import annotations

from celery import shared_task

from bots import services


@shared_task(name="bots.play_house_turn", ignore_result=True)
def play_house_turn(game_id: int, seat: int, version: int, bot: str) -> None:
    services.play_house_turn(game_id, seat=seat, version=version, bot=bot)


@shared_task(name="bots.push_turn_to_webhook", ignore_result=True)
def push_turn_to_webhook(game_id: int, seat: int, version: int, player_id: int) -> None:
    services.push_turn_to_webhook(game_id, seat=seat, version=version, player_id=player_id)
