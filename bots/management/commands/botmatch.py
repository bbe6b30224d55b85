"""``python manage.py botmatch A B C --games N --seed S``: a duplicate match of house bots."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bots.match import duplicate_match
from bots.strategies import DEFAULT_BUDGET_SECONDS
from games.engine.rules import PRESETS


class Command(BaseCommand):
    help = (
        "Duplicate match between house bots (e.g. house:strong house:heuristic house:random), "
        "played in-process on the engine: each deal set is one seeded game played once per "
        "seating arrangement of the bots. Prints each bot's mean (tricks - target) per hand "
        "with a 95% confidence interval over the deal sets."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("bots", nargs="+", help="house bot names, one per seat")
        parser.add_argument(
            "--games", type=int, default=10, help="deal sets (each played in every seating)"
        )
        parser.add_argument("--seed", default="0", help="match seed (the deal sets derive from it)")
        parser.add_argument("--preset", default="classic", choices=sorted(PRESETS))
        parser.add_argument(
            "--budget",
            type=float,
            default=DEFAULT_BUDGET_SECONDS,
            help="seconds per decision for searching bots",
        )
        parser.add_argument("--hands", type=int, default=4, help="max hands per game")
        parser.add_argument("--jobs", type=int, default=1, help="deal sets played in parallel")

    def handle(self, *args: Any, **options: Any) -> None:
        bots: list[str] = options["bots"]
        if options["games"] < 1 or options["hands"] < 1 or options["budget"] <= 0:
            raise CommandError("--games and --hands must be >= 1 and --budget > 0")
        start = time.perf_counter()
        try:
            result = duplicate_match(
                bots,
                options["games"],
                seed=options["seed"],
                preset=options["preset"],
                budget=options["budget"],
                max_hands=options["hands"],
                jobs=options["jobs"],
            )
        except (KeyError, ValueError) as error:
            raise CommandError(f"cannot play this match: {error}") from None
        elapsed = time.perf_counter() - start
        seatings = len(result.games[0])
        games = sum(len(s) for s in result.games)
        hands = sum(len(g.diffs) for s in result.games for g in s)
        out = self.stdout.write
        out(
            f"botmatch: preset {result.preset}, seed {options['seed']}, "
            f"{len(result.games)} deal sets x {seatings} seatings = {games} games, "
            f"{hands} hands (max {options['hands']} per game), budget {options['budget']} s, "
            f"{elapsed:.1f} s"
        )
        out("")
        out(f"{'bot':<18} {'mean (tricks - target) per hand':>32}   95% CI")
        for name, interval in result.intervals().items():
            out(f"{name:<18} {interval.mean:>+32.3f}   [{interval.low:+.3f}, {interval.high:+.3f}]")
        out("")
        out("pairwise (A - B)")
        for (a, b), interval in result.differences().items():
            out(f"{a} - {b}: {interval.mean:+.3f}   [{interval.low:+.3f}, {interval.high:+.3f}]")
        out("")
        out(
            "CI: the deal sets are the independent units; per set, each bot's mean diff per "
            "hand over all its seatings; mean of the per-set values +/- t(0.975, sets-1) * "
            "sd / sqrt(sets)."
        )
