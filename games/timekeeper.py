"""The move timer of every game: one loop that plays for late seats at their deadlines.

It runs as a process of its own, ``python manage.py movetimer`` (platform/Procfile's
``timer``), of which a site runs exactly one, so no two loops race for the same games (were
there two, the row lock and ``skip_locked`` in :func:`games.services.expire_turns` would
still keep each timeout once).

A move only writes its deadline, which the game row holds anyway. The loop reads the nearest
deadline from the ``(status, deadline)`` index and sleeps until then, looking again at least
every ``MOVE_TIMER_LOOK_SECONDS`` for deadlines set meanwhile: a new deadline is at least a
second away (``move_seconds`` >= 1), so a look that takes well under that sees it in time.

Measured before this design: a Celery task per move (with ``eta`` at its deadline) cost each
move about 1 ms of the web server's CPU; a beat-sent sweep task twice a second cost beat and
the worker about 18 ms of CPU a sweep on an idle site. The loop costs two indexed queries a
look.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from core.heartbeats import store_move_timer_look
from games import services

logger = logging.getLogger(__name__)

#: After a failed look (database down): wait this long before the next.
RETRY_SECONDS = 1.0
#: Between two looks at least this long, so that a game still overdue after a look (its row
#: locked by a move being written) is not looked at in a busy loop.
MIN_WAIT_SECONDS = 0.02
#: A game whose timeout raised is left alone this long (and logged once a rest).
BROKEN_GAME_REST_SECONDS = 60.0


class MoveTimer:
    def __init__(self) -> None:
        self.stop = threading.Event()
        # Games whose timeout raised, with the monotonic time until which they are left
        # alone: they would otherwise be retried at every look, and 500 of them would fill
        # every look's batch.
        self.resting: dict[int, float] = {}
        self._last_reported = 0.0

    def play_overdue_turns(self) -> int:
        """Play for the late seats of every game past its deadline; returns how many changed."""
        now = time.monotonic()
        self.resting = {game: until for game, until in self.resting.items() if until > now}
        changed = 0
        for game_id in services.overdue_games(
            settings.MOVE_TIMER_BATCH, excluding=set(self.resting)
        ):
            try:
                changed += services.expire_turns(game_id)
            except (OperationalError, InterfaceError):
                raise  # the database, not the game: the look fails as a whole
            except Exception:
                logger.exception("move timer: game %s could not be moved on", game_id)
                self.resting[game_id] = now + BROKEN_GAME_REST_SECONDS
        if changed:
            logger.info("move timer: moved %d overdue game(s) on", changed)
        return changed

    def seconds_to_next_look(self) -> float:
        """Until the nearest deadline, at most ``MOVE_TIMER_LOOK_SECONDS`` and at least
        ``MIN_WAIT_SECONDS``."""
        look = settings.MOVE_TIMER_LOOK_SECONDS
        seconds = services.seconds_to_next_deadline(set(self.resting))
        return look if seconds is None else min(look, max(MIN_WAIT_SECONDS, seconds))

    def run(self) -> None:
        """Keep the move time of every game until :attr:`stop` is set."""
        while not self.stop.is_set():
            try:
                self.play_overdue_turns()
                wait = self.seconds_to_next_look()
                self._report_alive()
            except Exception:
                logger.exception("move timer: look failed; trying again")
                connection.close()  # a new one for the next look (the old may be broken)
                wait = RETRY_SECONDS
            self.stop.wait(wait)

    def _report_alive(self) -> None:
        # For GET /healthz; as often as the worker heartbeat, not at every look.
        if time.monotonic() - self._last_reported >= settings.HEARTBEAT_INTERVAL:
            store_move_timer_look()
            self._last_reported = time.monotonic()
