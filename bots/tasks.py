"""Bot turns as Celery tasks: ids in, the service does the work."""

from __future__ import annotations

import logging

from celery import Task, shared_task

from bots import services

log = logging.getLogger(__name__)


@shared_task(name="bots.play_house_turn", ignore_result=True)
def play_house_turn(game_id: int, seat: int, version: int, bot: str) -> None:
    services.play_house_turn(game_id, seat=seat, version=version, bot=bot)


#: A push that failed on the way is sent again up to this many times, after 1, 2, 4 s
#: (``WEBHOOK_RETRY_BACKOFF`` doubled each time), and only while the turn is still the
#: bot's: the service checks the game's version and move deadline before each attempt.
WEBHOOK_RETRIES = 3
WEBHOOK_RETRY_BACKOFF = 1


@shared_task(
    bind=True,
    name="bots.push_turn_to_webhook",
    autoretry_for=(services.PushFailed,),
    retry_backoff=WEBHOOK_RETRY_BACKOFF,
    retry_jitter=False,
    max_retries=WEBHOOK_RETRIES,
    ignore_result=True,
)
def push_turn_to_webhook(self: Task, game_id: int, seat: int, version: int, player_id: int) -> None:
    # The last attempt's failure is only recorded: the move timer plays the turn.
    services.push_turn_to_webhook(
        game_id,
        seat=seat,
        version=version,
        player_id=player_id,
        may_retry=self.request.retries < WEBHOOK_RETRIES,
    )


@shared_task(name="bots.resend_stalled_house_turns", ignore_result=True)
def resend_stalled_house_turns() -> None:
    """Beat's sweep for house-bot turns whose task was lost (bots.services)."""
    stalled = services.stalled_house_turns()
    for game_id, seat, version, bot in stalled:
        play_house_turn.delay(game_id, seat, version, bot)
    if stalled:
        log.warning("sent %d stalled house-bot turn(s) again", len(stalled))
