"""Whole tournaments run from the start to the final standings with no manual step: the
games are played out (fallback moves), the real Celery worker scores each round and seats
and starts the next."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from games.models import Game
from realtime.models import PlayerMessage
from tests.conftest import WorkerInfo
from tests.tournament_helpers import new_tournament, players, run_to_the_end
from tournaments import selectors
from tournaments.models import Entrant, Result, Round, Tournament
from tournaments.services import running

pytestmark = pytest.mark.django_db(transaction=True)


def seatings(tournament: Tournament) -> list[tuple[list[list[int | None]], list[int]]]:
    """Per round: the tables (entrant ids, None for a filler) and the byes."""
    return [
        ([t.entrant_ids() for t in r.tables.all()], list(r.byes))
        for r in Round.objects.filter(tournament=tournament).order_by("number")
    ]


def meetings(tournament: Tournament) -> Counter[tuple[int, int]]:
    met: Counter[tuple[int, int]] = Counter()
    for tables, _ in seatings(tournament):
        for table in tables:
            seated = sorted(e for e in table if e is not None)
            met.update(itertools.combinations(seated, 2))
    return met


def test_it_runs_a_nine_player_swiss_to_the_final_standings(celery_worker: WorkerInfo) -> None:
    club = players("nine", 9)
    tournament = new_tournament(club[0], club)

    running.start(club[0], tournament_id=tournament.pk)
    done = run_to_the_end(tournament.pk)

    entrants = set(Entrant.objects.filter(tournament=done).values_list("pk", flat=True))
    rounds = seatings(done)
    assert len(rounds) == 3
    for tables, byes in rounds:
        assert byes == []
        assert len(tables) == 3
        seated = [e for table in tables for e in table]
        assert sorted(seated) == sorted(entrants)  # everyone exactly once
    # 9 players, 3 rounds: each meets 6 of the other 8, so nobody needs to meet twice.
    assert max(meetings(done).values()) == 1
    # Every table hands out 3 + 1 + 0 points, shared or not.
    assert sum(Result.objects.filter(round__tournament=done).values_list("points", flat=True)) == (
        pytest.approx(3 * 3 * 4)
    )
    standings = selectors.standings_data(done)
    assert [row["rank"] for row in standings] == sorted(row["rank"] for row in standings)
    assert standings[0]["rank"] == 1
    assert {row["games"] for row in standings} == {3}
    points = [row["points"] for row in standings]
    assert points == sorted(points, reverse=True)
    assert all(
        g.status == Game.Status.FINISHED
        for g in Game.objects.filter(tournament_table__round__tournament=done)
    )
    # Each player heard of each round on the stream.
    for player in club:
        lines = PlayerMessage.objects.filter(player=player, type="tournament_round")
        assert sorted(m.payload["round"] for m in lines) == [1, 2, 3]
        assert all(m.payload["tournament"] == done.pk for m in lines)
    actions = list(done.audit.values_list("action", flat=True))
    assert actions[0] == "created" and "started" in actions and actions[-1] == "finished"


def test_it_runs_a_ten_player_swiss_with_filler_bots(celery_worker: WorkerInfo) -> None:
    club = players("ten", 10)
    tournament = new_tournament(club[0], club, odd_count="fillers")

    running.start(club[0], tournament_id=tournament.pk)
    done = run_to_the_end(tournament.pk)

    filler_tables: Counter[int] = Counter()
    for tables, byes in seatings(done):
        assert byes == []
        assert len(tables) == 4
        seated = [e for table in tables for e in table if e is not None]
        assert len(seated) == len(set(seated)) == 10
        assert sorted(table.count(None) for table in tables) == [0, 0, 1, 1]
        filler_tables.update(e for table in tables if None in table for e in table if e)
    # Six filler tables in three rounds seat twelve players: all ten once, two of them twice.
    assert sum(filler_tables.values()) == 12
    assert sorted(filler_tables.values()) == [1] * 8 + [2] * 2
    standings = selectors.standings_data(done)
    assert len(standings) == 10
    assert all(not row["username"].startswith("house:") for row in standings)
    assert {row["games"] for row in standings} == {3}


def test_it_runs_an_eleven_player_swiss_with_byes(celery_worker: WorkerInfo) -> None:
    club = players("eleven", 11)
    tournament = new_tournament(club[0], club, odd_count="byes")

    running.start(club[0], tournament_id=tournament.pk)
    done = run_to_the_end(tournament.pk)

    all_byes: list[int] = []
    for tables, byes in seatings(done):
        assert len(tables) == 3 and len(byes) == 2
        seated = [e for table in tables for e in table]
        assert None not in seated
        assert sorted(seated + byes) == sorted(done.entrants.values_list("pk", flat=True))
        all_byes.extend(byes)
    assert len(set(all_byes)) == 6  # at most one bye each
    for result in Result.objects.filter(round__tournament=done, bye=True):
        played = Result.objects.filter(round=result.round, bye=False)
        average = sum(r.points for r in played) / played.count()
        assert result.points == pytest.approx(average)  # 12 points over 9 players
        assert result.points == pytest.approx(4 / 3)
    byes_in_standings = {row["username"]: row["byes"] for row in selectors.standings_data(done)}
    assert sorted(byes_in_standings.values()) == [0] * 5 + [1] * 6


def test_it_runs_a_knockout_until_one_table_remains(celery_worker: WorkerInfo) -> None:
    club = players("ko", 9)
    tournament = new_tournament(club[0], club, format="knockout", rounds=None)

    running.start(club[0], tournament_id=tournament.pk)
    done = run_to_the_end(tournament.pk)

    first, final = Round.objects.filter(tournament=done).order_by("number")
    assert Round.objects.filter(tournament=done).count() == 2
    finalists = set()
    seeds = dict(done.entrants.values_list("pk", "seed"))
    for table in first.tables.select_related("game"):
        result = table.game.result
        seated = table.entrant_ids()
        best = min(
            range(3), key=lambda s: (result["ranks"][s], -result["scores"][s], seeds[seated[s]])
        )
        finalists.add(seated[best])
    (final_table,) = final.tables.select_related("game")
    assert set(final_table.entrant_ids()) == finalists
    standings = selectors.standings_data(done)
    winner_seat = min(
        range(3),
        key=lambda s: (
            final_table.game.result["ranks"][s],
            -final_table.game.result["scores"][s],
            seeds[final_table.entrant_ids()[s]],
        ),
    )
    names = dict(done.entrants.values_list("pk", "name"))
    assert standings[0]["username"] == names[final_table.entrant_ids()[winner_seat]]
    assert [row["eliminated_in_round"] for row in standings[1:3]] == [2, 2]
    assert {row["eliminated_in_round"] for row in standings[3:]} == {1}
    assert Entrant.objects.filter(tournament=done, status="active").count() == 1
