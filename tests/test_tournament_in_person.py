"""In-person nights over HTTP against the live server and the real worker: tables with
codes and no online game, results entered by the table's players and confirmed, disputes
settled by an organiser, the refusals, adjudication, the round moving on, and the results
rated in the in-person pool only (docs/tournaments.md "In-person nights")."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Game
from ratings import services as rating_services
from ratings import skill
from ratings.models import Rating, RatingChange, RecordedGame
from ratings.replay import Replay, StoredGame
from tests import tournament_helpers as helpers
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.live_client import tournament_reader
from tests.support import wait_until
from tournaments.models import Entrant, Round, Tournament, TournamentTable
from tournaments.results import CODE_DIGITS, CODE_LETTERS
from tournaments.services import running, table_results
from tournaments.standings import points_for_ranks

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT = {
    "name": "Thursday at the Crown",
    "format": "swiss",
    "rounds": 2,
    "hands_per_game": 1,
    "venue": "in_person",
}
CODE = re.compile(f"^[{CODE_LETTERS}][{CODE_LETTERS}{CODE_DIGITS}]{{2,}}$")


def night(organiser: Client, players: list[Client], **fields: Any) -> tuple[int, str]:
    """An in-person night with ``players`` entered and started: its id and its path."""
    tid = organiser.ok("POST", "/tournaments", 201, json={**NIGHT, **fields})["id"]
    base = f"/tournaments/{tid}"
    for player in players:
        player.ok("POST", f"{base}/register", 201)
    organiser.ok("POST", f"{base}/start")
    return tid, base


def tables_of(client: Client, base: str, number: int) -> list[dict[str, Any]]:
    tables = client.ok("GET", f"{base}/rounds/{number}")["tables"]
    assert isinstance(tables, list)
    return tables


def seated(table: dict[str, Any]) -> list[str]:
    return [seat["username"] for seat in table["seats"]]


def result_path(base: str, number: int, table: dict[str, Any]) -> str:
    return f"{base}/rounds/{number}/tables/{table['code']}/result"


def people(server: LiveServer, prefix: str, count: int) -> dict[str, Client]:
    clients = [register(server.url, f"{prefix}{i}") for i in range(count)]
    return {c.username: c for c in clients}


def test_it_seats_an_in_person_night_with_table_codes_and_no_online_game(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "crown", 4)
    games_before = Game.objects.count()

    tid, base = night(ann, list(players.values()))

    detail = ann.ok("GET", base)
    assert detail["venue"] == "in_person"
    assert detail["odd_count"] == "byes"  # no house bot sits at a real table
    (table,) = tables_of(ann, base, 1)
    assert table["game"] is None and table["table"] is None
    assert CODE.match(table["code"]), table["code"]
    assert table["status"] == "playing"
    assert table["result"] == {
        "status": "missing",
        "scores": None,
        "entered_by": None,
        "confirmed_by": None,
    }
    assert len(detail["rounds"][0]["byes"]) == 1
    assert Game.objects.count() == games_before
    # The code names the table whichever way it is typed.
    lower = f"{base}/rounds/1/tables/{table['code'].lower()}/result"
    assert ann.ok("GET", lower)["status"] == "missing"
    online = ann.ok("POST", "/tournaments", 201, json={**NIGHT, "venue": "online"})
    assert online["venue"] == "online"
    # The tournament's page still shows the night (its in-person pages are others' work).
    assert ann.http.get(f"{api_server.url}/tournaments/{tid}").status_code == 200


def test_it_refuses_duplicate_play_and_house_bots_at_real_tables(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    refused = error_of(ann.post("/tournaments", json={**NIGHT, "duplicate": True}), 400, "invalid")
    tid = ann.ok("POST", "/tournaments", 201, json=NIGHT)["id"]
    entrants = f"/tournaments/{tid}/entrants"

    assert "duplicate" in refused["fields"]
    error_of(ann.post(entrants, json={"player": "house:random"}), 409, "in_person_night")
    assert ann.ok("POST", entrants, 201, json={"player": "ann"})["username"] == "ann"


def test_it_stands_a_players_entry_once_another_player_of_the_table_confirms(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "conf", 6)
    tid, base = night(ann, list(players.values()))
    table, other_table = tables_of(ann, base, 1)
    first, second, third = (players[name] for name in seated(table))
    path = result_path(base, 1, table)
    reader = tournament_reader(api_server.url, tid)

    pending = first.ok("POST", path, json={"scores": [3, -1, -2]})

    assert pending == {
        "status": "pending",
        "scores": [3, -1, -2],
        "entered_by": first.username,
        "confirmed_by": None,
    }
    # The night's live channel carries the entry (a projector page follows it).
    reader.wait_for(
        lambda found: found and found[-1].data["tables"][0]["result_status"] == "pending"
    )
    error_of(first.post(f"{path}/confirm"), 409, "own_entry")
    assert ann.ok("GET", base)["current_round"] == 1

    final = second.ok("POST", f"{path}/confirm")

    assert final["status"] == "final" and final["confirmed_by"] == second.username
    error_of(third.post(f"{path}/confirm"), 409, "result_final")
    error_of(third.post(path, json={"scores": [3, -1, -2]}), 409, "result_final")
    error_of(ann.post(path, json={"scores": [-1, 3, -2]}), 409, "result_final")
    assert ann.ok("GET", base)["current_round"] == 1  # a table of the round is missing
    ann.ok("POST", result_path(base, 1, other_table), json={"scores": [0, 0, 0]})
    # As online: the worker scores the round and seats the next.
    wait_until(lambda: ann.ok("GET", base)["current_round"] == 2, what="round 2 to be seated")
    scored = ann.ok("GET", f"{base}/rounds/1")
    assert scored["status"] == "finished"
    by_name = {s["username"]: s for s in scored["standings"]}
    assert by_name[first.username]["points"] == 3 and by_name[first.username]["stakes"] == 3
    assert by_name[third.username]["points"] == 0
    assert scored["tables"][0]["status"] == "finished"
    assert [s["score"] for s in scored["tables"][0]["seats"]] == [3, -1, -2]
    reader.wait_for(lambda found: found and found[-1].data["round"] == 2)
    reader.stop()
    # Round 1 is closed now, to players and organisers alike.
    error_of(first.post(path, json={"scores": [0, 0, 0]}), 409, "round_closed")
    error_of(ann.post(path, json={"scores": [0, 0, 0]}), 409, "round_closed")
    error_of(ann.post(f"{path}/confirm"), 409, "round_closed")
    codes = {t["code"] for t in tables_of(ann, base, 2)} | {table["code"], other_table["code"]}
    assert len(codes) == 4  # unique within the tournament
    actions = [e["action"] for e in ann.ok("GET", f"{base}/audit")["results"]]
    assert actions.count("result_entered") == 2 and actions.count("result_confirmed") == 1


def test_it_counts_the_same_scores_entered_by_another_player_as_a_confirmation(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "same", 3)
    _, base = night(ann, list(players.values()))
    (table,) = tables_of(ann, base, 1)
    first, second, _ = (players[name] for name in seated(table))
    path = result_path(base, 1, table)

    first.ok("POST", path, json={"scores": [-2, 4, -2]})
    again = first.ok("POST", path, json={"scores": [-2, 4, -2]})
    assert again["status"] == "pending"
    final = second.ok("POST", path, json={"scores": [-2, 4, -2]})

    assert final["status"] == "final"
    assert (final["entered_by"], final["confirmed_by"]) == (first.username, second.username)


def test_it_disputes_a_different_entry_until_an_organiser_enters_the_result(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "disp", 3)
    _, base = night(ann, list(players.values()))
    (table,) = tables_of(ann, base, 1)
    first, second, third = (players[name] for name in seated(table))
    path = result_path(base, 1, table)
    first.ok("POST", path, json={"scores": [5, -3, -2]})

    disputed = second.ok("POST", path, json={"scores": [-3, 5, -2]})

    assert disputed["status"] == "disputed"
    error_of(third.post(f"{path}/confirm"), 409, "result_disputed")
    error_of(ann.post(f"{path}/confirm"), 409, "result_disputed")
    assert third.ok("POST", path, json={"scores": [5, -3, -2]})["status"] == "disputed"
    settled = ann.ok("POST", path, json={"scores": [-3, 5, -2]})
    assert settled == {
        "status": "final",
        "scores": [-3, 5, -2],
        "entered_by": "ann",
        "confirmed_by": None,
    }


def test_it_lets_an_organiser_confirm_a_pending_entry(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "orgc", 3)
    _, base = night(ann, list(players.values()))
    (table,) = tables_of(ann, base, 1)
    path = result_path(base, 1, table)
    error_of(ann.post(f"{path}/confirm"), 409, "result_missing")
    players[seated(table)[2]].ok("POST", path, json={"scores": [1, 1, -2]})

    confirmed = ann.ok("POST", f"{path}/confirm")

    assert confirmed["status"] == "final" and confirmed["confirmed_by"] == "ann"


def test_it_refuses_scores_no_game_could_end_with(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "bad", 3)
    _, base = night(ann, list(players.values()))
    (table,) = tables_of(ann, base, 1)
    path = result_path(base, 1, table)
    player = players[seated(table)[0]]

    # Every hand's scores sum to zero, so a game's do.
    error_of(player.post(path, json={"scores": [3, -1, -1]}), 400, "invalid_scores")
    # One score per seat.
    error_of(player.post(path, json={"scores": [2, -2]}), 400, "invalid_scores")
    error_of(ann.post(path, json={"scores": [2, -1, -1, 0]}), 400, "invalid_scores")
    # One hand: at most 16 - 3 = 13 up, at most 8 down.
    error_of(player.post(path, json={"scores": [14, -7, -7]}), 400, "invalid_scores")
    error_of(ann.post(path, json={"scores": [9, 0, -9]}), 400, "invalid_scores")
    error_of(player.post(path, json={"scores": "3,-1,-2"}), 400, "invalid")
    error_of(player.post(path, json={"scores": [1.5, -1.5, 0]}), 400, "invalid")
    assert player.ok("GET", path)["status"] == "missing"
    # The extremes of one hand are possible.
    assert player.ok("POST", path, json={"scores": [13, -8, -5]})["status"] == "pending"


def test_it_refuses_entries_from_anyone_not_at_the_table(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "away", 6)
    stranger = register(api_server.url, "stranger")
    tid, base = night(ann, list(players.values()))
    first, other = tables_of(ann, base, 1)
    path = result_path(base, 1, first)
    elsewhere = players[seated(other)[0]]

    for intruder in (elsewhere, stranger):
        error_of(intruder.post(path, json={"scores": [1, 0, -1]}), 403, "not_at_this_table")
        error_of(intruder.post(f"{path}/confirm"), 403, "not_at_this_table")
    error_of(
        ann.post(f"{base}/rounds/1/tables/QQQ/result", json={"scores": [0, 0, 0]}), 404, "not_found"
    )
    error_of(ann.get(f"{base}/rounds/2/tables/{first['code']}/result"), 404, "not_found")
    anonymous = Client(api_server.url)
    error_of(anonymous.post(path, json={"scores": [1, 0, -1]}), 401, "not_authenticated")
    assert anonymous.ok("GET", path)["status"] == "missing"
    # An online tournament's tables take no entered result.
    online_id = ann.ok("POST", "/tournaments", 201, json={**NIGHT, "venue": "online"})["id"]
    for player in list(players.values())[:3]:
        player.ok("POST", f"/tournaments/{online_id}/register", 201)
    ann.ok("POST", f"/tournaments/{online_id}/start")
    (online,) = ann.ok("GET", f"/tournaments/{online_id}/rounds/1")["tables"]
    assert online["game"] is not None and online["result"] is None
    online_path = f"/tournaments/{online_id}/rounds/1/tables/{online['code']}/result"
    error_of(ann.post(online_path, json={"scores": [1, 0, -1]}), 404, "not_found")
    assert tid != online_id


def test_it_adjudicates_an_overdue_table_by_its_entry_or_as_a_draw(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "late", 6)
    tid, base = night(ann, list(players.values()), rounds=1)
    with_entry, without = tables_of(ann, base, 1)
    players[seated(with_entry)[1]].ok(
        "POST", result_path(base, 1, with_entry), json={"scores": [2, 2, -4]}
    )
    error_of(
        ann.post(f"{base}/rounds/1/tables/{with_entry['number']}/adjudicate"),
        409,
        "round_not_overdue",
    )
    Round.objects.filter(tournament_id=tid).update(deadline=timezone.now() - timedelta(minutes=1))

    kept = ann.ok("POST", f"{base}/rounds/1/tables/{with_entry['number']}/adjudicate")
    drawn = ann.ok("POST", f"{base}/rounds/1/tables/{without['number']}/adjudicate")

    assert kept["adjudicated"] is True and kept["result"]["scores"] == [2, 2, -4]
    assert drawn["adjudicated"] is True and drawn["result"]["status"] == "final"
    assert [s["rank"] for s in drawn["seats"]] == [1, 1, 1]
    assert [s["score"] for s in drawn["seats"]] == [0, 0, 0]
    error_of(ann.post(f"{base}/rounds/1/tables/1/adjudicate"), 409, "game_finished")
    wait_until(lambda: ann.ok("GET", base)["status"] == "finished", what="the night to end")
    standings = {s["username"]: s for s in ann.ok("GET", f"{base}/standings")["results"]}
    for name in seated(without):
        assert standings[name]["points"] == pytest.approx(4 / 3, abs=1e-3)  # three places shared
    # Adjudicated results are not rated.
    assert not RecordedGame.objects.exists()
    assert not Rating.objects.filter(pool="in_person").exists()


# Scores a table of one hand may end with, ties included.
SCORES = [[4, -1, -3], [-2, 5, -3], [0, 3, -3], [6, -4, -2], [1, 1, -2], [-5, 2, 3]]


def test_it_runs_a_whole_in_person_swiss_and_rates_it_in_its_own_pool(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "ann")
    players = people(api_server, "swiss", 9)
    _, base = night(ann, list(players.values()), rounds=3)
    points: dict[str, float] = defaultdict(float)
    stakes: dict[str, int] = defaultdict(int)
    entered = 0

    for number in (1, 2, 3):
        wait_until(
            lambda n=number: ann.ok("GET", base)["current_round"] == n,  # type: ignore[misc]
            timeout=60,
            what=f"round {number} to be seated",
        )
        tables = tables_of(ann, base, number)
        assert len(tables) == 3 and all(t["game"] is None for t in tables)
        for table in tables:
            names = seated(table)
            scores = SCORES[entered % len(SCORES)]
            entered += 1
            path = result_path(base, number, table)
            players[names[0]].ok("POST", path, json={"scores": scores})
            if number == 2 and table["number"] == 1:
                # A dispute: another player enters something else; the organiser settles it.
                other = [scores[1], scores[0], scores[2]]
                players[names[1]].ok("POST", path, json={"scores": other})
                assert ann.ok("GET", path)["status"] == "disputed"
                ann.ok("POST", path, json={"scores": scores})
            else:
                players[names[2]].ok("POST", f"{path}/confirm")
            assert ann.ok("GET", path)["status"] == "final"
            ranks = [1 + sum(o > s for o in scores) for s in scores]
            for name, score, got in zip(
                names, scores, points_for_ranks(ranks, [3, 1, 0]), strict=True
            ):
                points[name] += got
                stakes[name] += score

    wait_until(lambda: ann.ok("GET", base)["status"] == "finished", timeout=60, what="the end")
    standings = ann.ok("GET", f"{base}/standings")["results"]
    assert {s["username"]: s["points"] for s in standings} == pytest.approx(dict(points), abs=1e-3)
    assert {s["username"]: s["stakes"] for s in standings} == stakes
    assert [s["points"] for s in standings] == sorted(
        (s["points"] for s in standings), reverse=True
    )
    assert all(s["games"] == 3 for s in standings)

    # Rated in the in-person pool, every player three times; the online pools untouched.
    # (The suite's server queues no rating: the sweep's service rates what was kept, as
    # for online games; the worker's own path is the next test's.)
    assert RecordedGame.objects.filter(rated_at=None).count() == 9
    assert rating_services.rate_missed_games() == 9
    assert rating_services.rate_missed_games() == 0
    ratings = {r.player.username: r for r in Rating.objects.select_related("player")}
    assert set(ratings) == set(players)
    assert {r.pool for r in ratings.values()} == {"in_person"}
    assert all(r.games == 3 for r in ratings.values())
    assert not RatingChange.objects.filter(game__isnull=False).exists()
    # Exactly the online games' model: replaying the entered results gives the same ratings.
    replay = Replay()
    for recorded in RecordedGame.objects.order_by("finished_at", "pk"):
        replay.apply(
            StoredGame(
                0,
                recorded.finished_at,
                [skill.SeatOutcome(s["seat"], s["player_id"], s["rank"]) for s in recorded.seats],
            )
        )
    for rating in ratings.values():
        state = replay.states[rating.player_id]
        assert (rating.mu, rating.sigma) == pytest.approx(tuple(state.skill))
    board = ann.ok("GET", "/ratings?pool=in_person")["results"]
    assert {row["username"] for row in board} <= set(players)
    leader = standings[0]["username"]
    history = ann.ok("GET", f"/players/{leader}/ratings?pool=in_person")["results"]
    assert len(history) == 3 and all(point["game"] is None for point in history)
    assert ann.ok("GET", f"/players/{leader}/ratings?pool=classic")["results"] == []
    # The player's page shows the pool, its chart too.
    page = ann.http.get(f"{api_server.url}/players/{leader}?pool=in_person")
    assert page.status_code == 200 and "in_person" in page.text


def test_it_rates_an_entered_result_on_the_worker_once(
    celery_worker: WorkerInfo, settings: Any
) -> None:
    settings.RATINGS_RATE_FINISHED_GAMES = True  # off for the rest of the suite (test.py)
    organiser, *entrants = helpers.players("wrk", 4)
    tournament = helpers.new_tournament(organiser, entrants, venue="in_person", rounds=1)
    running.start(organiser, tournament_id=tournament.pk)
    table = TournamentTable.objects.get(round__tournament=tournament)
    seat_players = [Entrant.objects.get(pk=e).player for e in table.entrant_ids()]

    table_results.enter_result(
        seat_players[0],
        tournament_id=tournament.pk,
        round_number=1,
        code=table.code,
        scores=[-1, 4, -3],
    )
    table_results.confirm_result(
        seat_players[1], tournament_id=tournament.pk, round_number=1, code=table.code
    )

    wait_until(
        lambda: RecordedGame.objects.filter(rated_at__isnull=False).exists(),
        timeout=30,
        what="the worker to rate the result",
    )
    wait_until(
        lambda: Tournament.objects.get(pk=tournament.pk).status == "finished",
        what="the worker to end the night",
    )
    rows = {r.player_id: r for r in Rating.objects.filter(pool="in_person")}
    assert set(rows) == {p.pk for p in seat_players}
    best = rows[seat_players[1].pk]
    assert best.games == 1 and best.mu > skill.MU > rows[seat_players[2].pk].mu
    assert not Rating.objects.exclude(pool="in_person").exists()
    assert RatingChange.objects.filter(recorded__isnull=False).count() == 3
    # Announced again, it changes nothing.
    assert rating_services.rate_recorded_game(RecordedGame.objects.get().pk) is False
