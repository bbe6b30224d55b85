"""The move timer of every game: one loop that plays for late seats at their deadlines.

It runs as a thread of the Celery beat process (config/celery_app.py), of which a site runs
exactly one, so no two loops race for the same games (were there two, the row lock and
``skip_locked`` in :func:`games.services.expire_turns` would still keep each timeout once).

A move only writes its deadline, which the game row holds anyway. The loop reads the nearest
deadline from the ``(status, deadline)`` index and sleeps until then, looking again at least
every ``MOVE_TIMER_LOOK_SECONDS`` for deadlines set meanwhile: a new deadline is at least a
second away (``move_seconds`` >= 1), so it is seen before it passes and met on time.

Measured before this design: a Celery task per move (with ``eta`` at its deadline) cost each
move about 1 ms of the web server's CPU; a beat-sent sweep task twice a second cost beat and
the worker about 18 ms of CPU a sweep on an idle site. The loop costs two indexed queries a
look.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection

from games import services

logger = logging.getLogger(__name__)

#: After a failed look (database down): wait this long before the next.
RETRY_SECONDS = 1.0


def play_overdue_turns() -> int:
    """Play for the late seats of every game past its deadline; returns how many changed."""
    changed = 0
    for game_id in services.overdue_games(limit=settings.MOVE_TIMER_BATCH):
        try:
            changed += services.expire_turns(game_id)
        except Exception:  # one broken game must not stop the timer for the others
            logger.exception("move timer: game %s could not be moved on", game_id)
    if changed:
        logger.info("move timer: moved %d overdue game(s) on", changed)
    return changed


def seconds_to_next_look() -> float:
    """Until the nearest deadline, at most ``MOVE_TIMER_LOOK_SECONDS``."""
    look = settings.MOVE_TIMER_LOOK_SECONDS
    seconds = services.seconds_to_next_deadline()
    return look if seconds is None else min(look, max(0.0, seconds))


def run(stop: threading.Event) -> None:
    """Keep the move time of every game until ``stop`` is set."""
    while not stop.is_set():
        try:
            play_overdue_turns()
            wait = seconds_to_next_look()
        except Exception:
            logger.exception("move timer: look failed; trying again")
            connection.close()
            wait = RETRY_SECONDS
        close_old_connections()
        stop.wait(wait)


def start() -> threading.Event:
    """Start the loop in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    threading.Thread(target=run, args=(stop,), name="move-timer", daemon=True).start()
    return stop
