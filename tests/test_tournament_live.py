"""A tournament's live stream (``GET /api/v1/tournaments/{id}/live``, Server-Sent Events): a
message for each change its page shows (entrants, the start, a round started, a table's game
over, the standings, the end), each with the tournament's version as its id, resumed with
``Last-Event-ID``; the page's live part as anyone sees it with ``fragment=live``. Real
server, games played through the API; both modes.
"""

from __future__ import annotations

import random
import re
import threading
import time
from typing import Any

import httpx
import pytest

from tests.api_client import Client, error_of
from tests.conftest import LiveServer, serving_api
from tests.game_helpers import play_to_the_end, three_players
from tests.live_client import LiveReader, Message, tournament_reader
from tournaments import selectors
from tournaments.services import entries, running

pytestmark = pytest.mark.django_db(transaction=True)


def changes_of(messages: list[Message]) -> set[str]:
    return {kind for m in messages for kind in m.data["changes"]}


def advanced(tournament_id: int, round_number: int) -> None:
    """The round scored and the next one started (or the end): by the suite's worker when it
    runs, else here."""
    running.advance(tournament_id=tournament_id)
    found = selectors.tournament(tournament_id)
    assert found.current_round > round_number or found.status == "finished"


def test_it_pushes_each_change_of_a_tournament_with_its_version(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "tlive")
    organiser = players[0]
    tournament_id = organiser.ok(
        "POST",
        "/tournaments",
        201,
        json={"name": "Live cup", "format": "swiss", "rounds": 2, "hands_per_game": 1},
    )["id"]
    reader = tournament_reader(api_server.url, tournament_id)
    page = tournament_reader(api_server.url, tournament_id, query="?fragment=live")
    first = reader.wait_for(lambda found: len(found) >= 1)[0]
    assert first.event == "change" and first.id == first.data["version"]
    assert first.data["status"] == "registering" and first.data["changes"] == []

    for player in players:
        player.ok("POST", f"/tournaments/{tournament_id}/register", 201, json={})
    entered = reader.wait_for(lambda found: found[-1].data["entrant_count"] == 3)
    assert "entrants_changed" in changes_of(entered[1:])
    html = page.wait_for(lambda found: found[-1].data["entrant_count"] == 3)[-1].data["html"]
    assert '<div id="tournament-live"' in html and 'data-entrant="tlive2"' in html

    organiser.ok("POST", f"/tournaments/{tournament_id}/start")
    started = reader.wait_for(lambda found: found[-1].data["status"] == "running")[-1]
    assert {"started", "round_started"} <= set(started.data["changes"])
    assert started.data["round"] == 1 and started.data["round_count"] == 2
    (table,) = started.data["tables"]
    assert table["status"] == "playing"

    rng = random.Random(11)
    for round_number in (1, 2):
        game_id = reader.messages[-1].data["tables"][0]["game"]
        seen = len(reader.messages)
        play_to_the_end(players, game_id, rng)
        over = reader.wait_for(
            lambda found, n=seen: "table_finished" in changes_of(found[n:]), timeout=20
        )
        shown = next(m for m in over[seen:] if "table_finished" in m.data["changes"])
        # The worker may have seated the next round before the feed read the change: the
        # same message then shows that round's tables.
        if shown.data["round"] == round_number:
            assert shown.data["tables"][0]["status"] == "finished"
        else:
            assert "round_started" in shown.data["changes"]
        advanced(tournament_id, round_number)
        after = reader.wait_for(
            lambda found, n=seen: "standings_changed" in changes_of(found[n:]), timeout=20
        )
        assert {row["games"] for row in after[-1].data["standings"]} == {round_number}
        if round_number == 1:
            moved_on = reader.wait_for(lambda found: found[-1].data["round"] == 2)
            assert "round_started" in changes_of(moved_on[seen:])

    assert reader.wait_for_end(20) is not None, "the stream went on after the tournament ended"
    assert reader.status == 200
    last = reader.messages[-1]
    assert last.data["status"] == "finished" and "finished" in last.data["changes"]
    ids = [m.id for m in reader.messages]
    assert ids == sorted(set(ids)) and all(m.id == m.data["version"] for m in reader.messages)
    assert last.id == organiser.ok("GET", f"/tournaments/{tournament_id}")["version"]
    page.wait_for_end(20)
    assert page.messages[-1].id == last.id and "Final standings" in page.messages[-1].data["html"]

    # Resumed after an earlier message: what stands now, at once, then the end.
    resumed = tournament_reader(api_server.url, tournament_id, last_event_id=ids[2])
    assert resumed.wait_for_end(10) is not None and resumed.status == 200
    (caught_up,) = resumed.messages
    assert caught_up.id == last.id and caught_up.data["changes"] == []
    assert caught_up.data["standings"] == last.data["standings"]
    # Nothing new since the last one: told to stop (204).
    again = tournament_reader(api_server.url, tournament_id, last_event_id=last.id)
    assert again.wait_for_end(10) is not None and again.status == 204
    again = tournament_reader(api_server.url, tournament_id, query=f"?after={last.id}")
    assert again.wait_for_end(10) is not None and again.status == 204


def test_it_resumes_a_running_tournament_from_last_event_id(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "tliveres")
    organiser = players[0]
    tournament_id = organiser.ok(
        "POST", "/tournaments", 201, json={"name": "Resumed", "format": "swiss"}
    )["id"]
    reader = tournament_reader(api_server.url, tournament_id)
    version = reader.wait_for(lambda found: len(found) >= 1)[0].id
    assert version is not None
    reader.stop()

    # Resumed at the version it saw: nothing is sent until something changes.
    resumed = tournament_reader(api_server.url, tournament_id, last_event_id=version)
    time.sleep(1.0)
    assert resumed.messages == [] and resumed.status == 200
    organiser.ok(
        "POST", f"/tournaments/{tournament_id}/entrants", 201, json={"player": "house:random"}
    )
    (added,) = resumed.wait_for(lambda found: len(found) >= 1)
    assert added.id is not None and added.id > version
    assert added.data["changes"] == ["entrants_changed"] and added.data["entrant_count"] == 1
    resumed.stop()

    # Resumed from before that change: the message of what stands now comes first.
    behind = tournament_reader(api_server.url, tournament_id, last_event_id=version)
    caught_up = behind.wait_for(lambda found: len(found) >= 1)[0]
    assert caught_up.id == added.id and caught_up.data["changes"] == []
    behind.stop()


def test_it_shows_nobody_s_own_controls_in_the_shared_fragment(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "tlivefrag")
    organiser = players[0]
    tournament_id = organiser.ok(
        "POST", "/tournaments", 201, json={"name": "Shared", "format": "swiss"}
    )["id"]
    for player in players:
        player.ok("POST", f"/tournaments/{tournament_id}/register", 201, json={})
    # An organiser's token opens it: the part is still everyone's.
    page = tournament_reader(
        api_server.url, tournament_id, token=organiser.token, query="?fragment=live"
    )
    html = page.wait_for(lambda found: len(found) >= 1)[0].data["html"]
    page.stop()
    assert re.findall(r'<tr data-entrant="([^"]+)"', html) == [p.username for p in players]
    assert "csrfmiddlewaretoken" not in html and "data-action=" not in html
    assert "data-personal" not in html and ' class="me"' not in html
    anonymous = httpx.get(f"{api_server.url}/tournaments/{tournament_id}/live").text
    version = re.search(r'data-version="([^"]+)"', anonymous)
    assert version is not None and f'data-version="{version.group(1)}"' in html


def test_it_refuses_what_it_cannot_follow(api_server: LiveServer) -> None:
    client = Client(api_server.url)
    error_of(client.get("/tournaments/999999/live"), 404, "not_found")
    players = three_players(api_server.url, "tliveref")
    tournament_id = players[0].ok(
        "POST", "/tournaments", 201, json={"name": "Refusals", "format": "swiss"}
    )["id"]
    error_of(client.get(f"/tournaments/{tournament_id}/live?fragment=table"), 400, "invalid")
    error_of(client.get(f"/tournaments/{tournament_id}/live?after=x"), 400, "invalid")
    response = httpx.get(
        f"{api_server.url}/api/v1/tournaments/{tournament_id}/live",
        headers={"Last-Event-ID": "-1"},
    )
    error_of(response, 400, "invalid")
    error_of(client.post(f"/tournaments/{tournament_id}/live"), 405, "method_not_allowed")


def test_it_keeps_an_idle_stream_open_with_comments(django_db_blocker: Any) -> None:
    """The tournament's stream and the home page's list alike."""
    with serving_api(django_db_blocker, "tlive-idle.log", LIVE_KEEPALIVE_SECONDS="0.5") as server:
        organiser = three_players(server.url, "tliveidle")[0]
        tournament_id = organiser.ok(
            "POST", "/tournaments", 201, json={"name": "Quiet", "format": "swiss"}
        )["id"]
        readers = [
            tournament_reader(server.url, tournament_id),
            LiveReader(server.url, 0, path="/games/live"),
        ]
        deadline = time.monotonic() + 10
        while min(r.comments for r in readers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        for reader in readers:
            assert reader.comments >= 2 and reader.ended_at is None, reader.summary()
            assert len(reader.messages) == 1
            reader.stop()


def test_it_names_what_changed() -> None:
    def detail(**changed: Any) -> dict[str, Any]:
        base: dict[str, Any] = {
            "status": "running",
            "current_round": 1,
            "rounds": [{"tables": [{"status": "playing"}, {"status": "playing"}]}],
            "standings": [{"username": "ann", "points": 0}],
            "players": [{"username": "ann", "status": "active"}],
        }
        return {**base, **changed}

    done = [{"tables": [{"status": "finished"}, {"status": "playing"}]}]
    assert selectors.live_changes(detail(), detail(rounds=done)) == ["table_finished"]
    assert selectors.live_changes(detail(), detail()) == ["updated"]
    assert selectors.live_changes(
        detail(status="registering", current_round=0, rounds=[]), detail()
    ) == ["started", "round_started"]
    standings = [{"username": "ann", "points": 3}]
    assert selectors.live_changes(detail(), detail(standings=standings)) == ["standings_changed"]
    assert selectors.live_changes(detail(), detail(status="finished", standings=standings)) == [
        "standings_changed",
        "finished",
    ]
    gone = [{"username": "ann", "status": "withdrawn"}]
    registering = detail(status="registering", current_round=0, rounds=[])
    assert selectors.live_changes(
        registering, {**registering, "players": gone, "standings": []}
    ) == ["entrants_changed"]


@pytest.mark.django_db(transaction=True)
def test_it_reads_a_tournament_at_one_moment_while_players_enter() -> None:
    """The tournament's detail (what its live feed and its page send) is read in several
    queries; a player entering between two of them is in every part or in none (a standings
    line without its entrant failed the read)."""
    from django.db import connection, connections

    from tests.tournament_helpers import new_tournament, players
    from tournaments.models import Entrant

    if connection.vendor != "postgresql":
        pytest.skip("SQLite's transactions here lock out writers: its reads are not pinned")

    creator, *early = players("snap", 3)
    late = players("snaplate", 1)[0]
    tournament = new_tournament(creator, early)
    entered: list[bool] = []

    def enter_late() -> None:
        entries.register(late, tournament_id=tournament.pk)
        connections.close_all()

    def between_queries(execute: Any, sql: str, *args: Any) -> Any:
        result = execute(sql, *args)
        if not entered and "tournaments_entrant" in sql:
            entered.append(True)  # after the first read of the entrants, another writes
            writer = threading.Thread(target=enter_late)
            writer.start()
            writer.join()
        return result

    with connection.execute_wrapper(between_queries):
        detail = selectors.tournament_detail(tournament.pk)

    assert entered
    names = {p["username"] for p in detail["players"]}
    assert {line["username"] for line in detail["standings"]} == names
    assert late.username not in names
    assert Entrant.objects.filter(tournament=tournament).count() == 3
