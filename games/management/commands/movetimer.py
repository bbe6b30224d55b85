"""``python manage.py movetimer``: keep every game's move time (games/timekeeper.py).

A site runs exactly one (platform/Procfile's ``timer``). SIGTERM or SIGINT stops it after
its current look, so that what a timeout announces on commit (a house bot's next turn, a
stream's wake-up) is sent before it exits.
"""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand

from games.timekeeper import MoveTimer


class Command(BaseCommand):
    help = "Play for the seats that let their move time run out, in every game."

    def handle(self, *args: Any, **options: Any) -> None:
        timer = MoveTimer()

        def stop(signum: int, frame: Any) -> None:
            timer.stop.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.stdout.write("move timer: keeping every game's move time", ending="\n")
        self.stdout.flush()
        timer.run()
        self.stdout.write("move timer: stopped")
