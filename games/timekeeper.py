"""The move timer of every game: one loop that plays for late seats at their deadlines.

It runs as a process of its own, ``python manage.py movetimer`` (platform/Procfile's
``timer``), of which a site runs exactly one, so no two loops race for the same games (were
there two, the row lock and ``skip_locked`` in :func:`games.play.expire_turns` would
still keep each timeout once).

A move only writes its deadline, which the game row holds anyway. The loop reads the nearest
deadline from the ``(status, deadline)`` index and sleeps until then, looking again at least
every ``MOVE_TIMER_LOOK_SECONDS`` for deadlines set meanwhile: a new deadline is at least a
second away (``move_seconds`` >= 1), so a look that takes well under that sees it in time.

Outages do not run the clocks. Each look first checks that the platform can take moves:
the database answers (a look that fails on it counts as down) and, in service mode, Redis
answers a PING. While either is down the timer charges no timeout. The first look that finds
both up again, before it charges anything, pushes every playing game's deadline later by the
outage's length, measured from the last look that found both up, and as long again (at most
``RECONNECT_GRACE_MAX_SECONDS`` more) for everyone to reconnect: one UPDATE,
:func:`games.play.extend_deadlines`. The grace is there because nothing comes back at
once: clients retry with growing waits, and each process's connection pool (psycopg's
doubles its wait between attempts) may reconnect well after the timer's own, seconds after
the database is back. So a seat has after the outage at least the move time it had left when
it began. The timer keeps the outage's start in memory only: one that it did not see begin
(it was started during it, or restarted) is not made good. docs/operations.md says why.

Before this design, a Celery task per move (with ``eta`` at its deadline) cost every move
web server CPU, and a beat-sent sweep task twice a second cost beat and the worker CPU on
an idle site. The loop costs two indexed queries a look.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

import redis
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

from core.heartbeats import store_move_timer_look
from core.redis_client import ThrottledLog, shared_redis
from games import play

logger = logging.getLogger(__name__)

#: After a failed look (database down): wait this long before the next.
RETRY_SECONDS = 1.0
#: Between two looks at least this long, so that a game still overdue after a look (its row
#: locked by a move being written) is not looked at in a busy loop.
MIN_WAIT_SECONDS = 0.02
#: After an outage, deadlines move on by its length and as long again, but at most this much
#: more (the waits of clients and pools that retry with growing waits are capped too).
RECONNECT_GRACE_MAX_SECONDS = 60.0
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
        self._report_failures = ThrottledLog("move timer: could not record its look")
        # Wall-clock time of the last look that found the database and Redis up, and, during
        # an outage, that time as the outage's start (None: no outage under way).
        self.last_up: float | None = None
        self.outage_since: float | None = None

    def play_overdue_turns(self) -> int:
        """Play for the late seats of every game past its deadline; returns how many changed."""
        now = time.monotonic()
        self.resting = {game: until for game, until in self.resting.items() if until > now}
        changed = 0
        for game_id in play.overdue_games(
            limit=settings.MOVE_TIMER_BATCH, excluding=set(self.resting)
        ):
            try:
                changed += play.expire_turns(game_id)
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
        seconds = play.seconds_to_next_deadline(excluding=set(self.resting))
        return look if seconds is None else min(look, max(MIN_WAIT_SECONDS, seconds))

    def redis_down(self) -> bool:
        """Whether Redis (service mode) fails to answer: clients then hear no wake-ups and
        bots get no turns, so the platform cannot be said to deliver turns."""
        if not settings.REDIS_URL:
            return False
        try:
            shared_redis().ping()
        except redis.RedisError:
            return True
        return False

    def outage(self, now: float, what: str) -> None:
        """Note that ``what`` is down at ``now``: no timeout is charged until it is back."""
        if self.outage_since is None:
            self.outage_since = self.last_up if self.last_up is not None else now
            logger.warning("move timer: %s unreachable; the move clocks stop till it is back", what)

    def end_outage(self) -> None:
        """Give every game in play the outage's length back, and the grace to reconnect
        (before anything is charged)."""
        if self.outage_since is None:
            return
        # Measured once a connection is had: getting one may wait for the database's return.
        connection.ensure_connection()
        length = max(0.0, time.time() - self.outage_since)
        given = length + min(length, RECONNECT_GRACE_MAX_SECONDS)
        games = play.extend_deadlines(by=timedelta(seconds=given))
        logger.warning(
            "move timer: back after %.1f s; the deadlines of %d game(s) pushed back %.1f s",
            length,
            games,
            given,
        )
        self.outage_since = None

    def look(self) -> float:
        """Charge what is overdue if the platform is up; returns the seconds until the next
        look."""
        now = time.time()
        if self.redis_down():
            self.outage(now, "Redis")
            return RETRY_SECONDS
        self.end_outage()  # a database still down raises here, before anything is charged
        self.last_up = now
        self.play_overdue_turns()
        wait = self.seconds_to_next_look()
        self._report_alive()
        return wait

    def run(self) -> None:
        """Keep the move time of every game until :attr:`stop` is set."""
        while not self.stop.is_set():
            try:
                wait = self.look()
            except (OperationalError, InterfaceError) as error:
                self.outage(time.time(), f"the database ({type(error).__name__})")
                connection.close()  # a new one for the next look (the old may be broken)
                wait = RETRY_SECONDS
            except Exception:
                logger.exception("move timer: look failed; trying again")
                connection.close()
                wait = RETRY_SECONDS
            self.stop.wait(wait)

    def _report_alive(self) -> None:
        # For GET /healthz; as often as the worker heartbeat, not at every look. The record
        # is in the cache (Redis in service mode): its loss must not stop the clocks.
        if time.monotonic() - self._last_reported >= settings.HEARTBEAT_INTERVAL:
            try:
                store_move_timer_look()
            except Exception as error:
                self._report_failures.failed(error)
                return
            self._last_reported = time.monotonic()
