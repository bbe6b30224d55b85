"""A pool of house bots of known strength order (random < heuristic < strong) ends up in
that order on the leaderboard, after games played by the platform's Celery workers and rated
by the ratings service in the order the games finished.

How the games are chosen, so that a suite-sized run decides (README, Ratings, "The bot
strength test"):

* ``all-sixteen`` with ``max_hands``: classic play, but no lucky 12-trick hand ends the game
  early, so each game sums many hands and the better player finishes above more often.
* Duplicate deal sets, played in rounds: each set is one deal seed played once per seating
  of the three bots (``Table.deal_seed``), so the luck of the cards cancels within a set,
  and rated as a block. The seeds are fresh every run (shown on failure), so the test
  measures the bots, not a chosen set of deals.
* ``house:strong`` searches a fixed number of deals per decision (``HOUSE_BOT_STRONG_DEALS``)
  instead of for a time, so its strength does not depend on how busy the machine is.

About 215 hands, most of the time strong's search: two workers take over a minute of both
cores, so it runs in CI only (``CI=true``), once, in service mode.
"""

from __future__ import annotations

import os
import secrets

import pytest
from django.conf import settings

from bots.match import arrangements
from games import tables
from games.models import Game
from ratings import selectors as ratings
from ratings import services as rating
from ratings.models import RatedGame
from tests.conftest import WorkerInfo
from tests.rating_helpers import new_players
from tests.support import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI only: a minute of both cores"),
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="once per CI run, in service mode (the rating maths is the same)",
    ),
]

BOTS = ("house:random", "house:heuristic", "house:strong")
DEAL_SETS = 3
RULES = {"preset": "all-sixteen", "max_hands": 12}
STRONG_DEALS = 16


def test_it_ranks_the_bots_by_strength(celery_worker: WorkerInfo) -> None:
    (host,) = new_players("strengthhost", 1)
    seeds = [secrets.token_hex(8) for _ in range(DEAL_SETS)]
    # The suite's worker thinks for a time; two workers searching a fixed number of deals
    # take its place (two, for the machine's two cores), and it comes back afterwards.
    celery_worker.kill()
    env = {**celery_worker.env, "HOUSE_BOT_STRONG_DEALS": str(STRONG_DEALS)}
    workers = [WorkerInfo(env, settings.DATA_DIR / "logs", f"strength-{n}") for n in (1, 2)]
    try:
        for worker in workers:
            worker.start()
        game_ids: list[int] = []
        for seed in seeds:  # one round per deal set, its six games at once
            for seats in arrangements(BOTS):
                table = tables.create_table(
                    host, rules=RULES, rated=True, move_seconds=600, seat=None, deal_seed=seed
                )
                for seat, bot in enumerate(seats):
                    tables.seat_bot(host, table_id=table.pk, bot=bot, seat=seat)
                game_ids.append(Game.objects.get(table=table).pk)
            finished = Game.objects.filter(pk__in=game_ids, status=Game.Status.FINISHED)
            wait_until(
                lambda finished=finished: finished.count() == len(game_ids),
                timeout=300,
                interval=0.5,
                what=f"the workers to play the games of deal seed {seed} (seeds {seeds})",
            )
    finally:
        for worker in workers:
            worker.stop()
        celery_worker.start()
    # In the order the games finished, as the live updates would have gone. (The catch-up
    # sweep, which beat sends the suite's worker every few minutes, may have rated some of
    # them already, in the same order.)
    rating.rate_missed_games()
    assert RatedGame.objects.filter(game_id__in=game_ids).count() == len(game_ids)

    board = ratings.leaderboard("classic", "ranked") + ratings.leaderboard("classic", "provisional")
    by_ordinal = [e["username"] for e in sorted(board, key=lambda e: -e["ordinal"])]
    assert by_ordinal == ["house:strong", "house:heuristic", "house:random"], (seeds, board)
    assert {e["games"] for e in board} == {len(game_ids)}
