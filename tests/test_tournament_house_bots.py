"""A swiss of house bots runs on the real Celery worker from start to final standings with
no manual step: the bots play their turns as tasks, the worker advances the rounds."""

from __future__ import annotations

import pytest

from games.models import Game, GameEvent
from tests.conftest import WorkerInfo
from tests.support import wait_until
from tests.tournament_helpers import new_tournament, players
from tournaments import selectors
from tournaments.models import Tournament
from tournaments.services import entries, running

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_runs_a_swiss_of_house_bots_by_itself(celery_worker: WorkerInfo) -> None:
    (organiser,) = players("botclub", 1)
    tournament = new_tournament(organiser, [], move_seconds=30)
    for bot in ["house:random", "house:heuristic", "house:strong"] * 3:
        entries.add_entrant(organiser, tournament_id=tournament.pk, username=bot)

    running.start(organiser, tournament_id=tournament.pk)
    done = wait_until(
        lambda: Tournament.objects.filter(
            pk=tournament.pk, status=Tournament.Status.FINISHED
        ).first(),
        timeout=240,
        interval=0.25,
        what="the house bots' tournament to finish",
    )

    games = Game.objects.filter(tournament_table__round__tournament=done)
    assert games.count() == 9
    assert all(g.status == Game.Status.FINISHED for g in games)
    # The bots played every move themselves: nothing was left to the move timer.
    assert not GameEvent.objects.filter(game__in=games, type="timeout").exists()
    standings = selectors.standings_data(done)
    assert len(standings) == 9
    assert {row["games"] for row in standings} == {3}
    assert standings[0]["rank"] == 1
