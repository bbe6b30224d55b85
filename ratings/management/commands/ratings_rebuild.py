"""``manage.py ratings_rebuild [--pool P]``: recompute ratings from the stored games."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings import services
from ratings.pools import POOLS


class Command(BaseCommand):
    help = "Recompute every rating (of one pool, or all) from the stored games, oldest first."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", choices=POOLS, help="only this pool (default: every pool)")

    def handle(self, *args: Any, **options: Any) -> None:
        for pool in [options["pool"]] if options["pool"] else POOLS:
            report = services.rebuild(pool)
            self.stdout.write(
                f"{pool}: {report.games} games, {report.players} players rated "
                f"in {report.seconds:.1f} s"
            )
