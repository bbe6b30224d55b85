"""``manage.py ratings_quality [--pool P]``: how well ratings predicted each game's winner."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from ratings import selectors
from ratings.pools import POOLS


class Command(BaseCommand):
    help = (
        "Replay the stored games oldest first and score, before each game is rated, the "
        "predicted winner: log-loss, Brier score and top-1 accuracy, against a uniform guess."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--pool", choices=POOLS, help="only this pool (default: every pool)")

    def handle(self, *args: Any, **options: Any) -> None:
        for pool in [options["pool"]] if options["pool"] else POOLS:
            q = selectors.quality(pool)
            self.stdout.write(f"{pool}: {q.games} games, {q.decided} with a single winner")
            if not q.decided:
                continue
            self.stdout.write(f"  {'':10} {'ratings':>9} {'uniform':>9}")
            for name, ours, uniform in (
                ("log-loss", q.log_loss, q.baseline_log_loss),
                ("brier", q.brier, q.baseline_brier),
                ("top-1", q.accuracy, q.baseline_accuracy),
            ):
                self.stdout.write(f"  {name:10} {ours:9.4f} {uniform:9.4f}")
