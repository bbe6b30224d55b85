"""Two rating updates at once, in real transactions on separate connections (threads).

On PostgreSQL the test holds a lock on the shared player's rating row until both updates are
waiting for it, so they run truly side by side: an update that read the row without locking
it would overwrite the other's result. On SQLite every write transaction runs alone; the
same test then checks the updates still both land.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import pytest
from django.db import connection, transaction

from ratings import services
from ratings.models import RatedGame, Rating, RatingChange
from tests.rating_helpers import finished_game, new_players
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        # Inside a transaction PostgreSQL keeps showing its first snapshot of the statistics.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND position('ratings_' in query) > 0"
        )
        return int(cursor.fetchone()[0])


def run_side_by_side(jobs: list[Callable[[], bool]], held_row: Rating) -> list[bool]:
    """Run ``jobs`` in threads; on PostgreSQL hold ``held_row`` until all of them wait."""
    results: list[bool | BaseException] = [False] * len(jobs)

    def run(index: int) -> None:
        try:
            results[index] = jobs[index]()
        except BaseException as error:  # reported by the assertion below
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    postgres = connection.vendor == "postgresql"
    hold: AbstractContextManager[object] = transaction.atomic() if postgres else nullcontext()
    with hold:
        if postgres:
            Rating.objects.select_for_update().get(pk=held_row.pk)
        for thread in threads:
            thread.start()
        if postgres:
            wait_until(lambda: waiting_on_locks() >= len(jobs), timeout=30, what="both updates")
    for thread in threads:
        thread.join(timeout=60)
    assert all(isinstance(r, bool) for r in results), results
    return [bool(r) for r in results]


def test_it_loses_no_update_when_two_games_of_one_player_are_rated_at_once() -> None:
    ann, *others = new_players("both", 5)
    first = finished_game([ann, others[0], others[1]], 1)
    services.rate_game(first.pk)
    left = finished_game([ann, others[0], others[1]], 2)
    right = finished_game([others[2], ann, others[3]], 3)
    row = Rating.objects.get(player=ann, pool="classic")

    results = run_side_by_side(
        [lambda: services.rate_game(left.pk), lambda: services.rate_game(right.pk)], row
    )

    assert results == [True, True]
    rating = Rating.objects.get(player=ann, pool="classic")
    assert rating.games == 3
    one, other = sorted(
        RatingChange.objects.filter(player=ann, game__in=[left, right]), key=lambda c: c.id
    )
    # The second update started from the first one's result, and the stored rating is its end.
    assert (other.mu_before, other.sigma_before) == (one.mu_after, one.sigma_after)
    assert (rating.mu, rating.sigma) == (other.mu_after, other.sigma_after)


def test_it_rates_a_game_once_when_two_deliveries_race() -> None:
    players = new_players("race", 3)
    services.rate_game(finished_game(players, 4).pk)
    game = finished_game(players, 5)
    row = Rating.objects.get(player=players[0], pool="classic")

    results = run_side_by_side(
        [lambda: services.rate_game(game.pk), lambda: services.rate_game(game.pk)], row
    )

    assert sorted(results) == [False, True]
    assert RatedGame.objects.filter(game=game).count() == 1
    assert RatingChange.objects.filter(game=game).count() == 3
    assert set(Rating.objects.values_list("games", flat=True)) == {2}
