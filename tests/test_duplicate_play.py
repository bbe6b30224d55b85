"""Duplicate play against the live server with a real worker (docs/api.md "Duplicate play"):
a table or a challenge replays a finished game's deals (``duplicate_of``); a duplicate
tournament deals every table of a round alike, ranks by the score against the same seat
at the other tables, and keeps a finished table's deals from the players still playing
them (the embargo)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from games.models import Game
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import wait_until
from tests.tournament_helpers import play_fallbacks
from tournaments.models import Round, TournamentTable
from tournaments.standings import duplicate_scores

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"preset": "classic", "max_hands": 2}
FAST_BOTS = ["house:random", "house:heuristic", "house:random"]


def finished_game(client: Client, game_id: int) -> dict[str, Any]:
    def over() -> dict[str, Any] | None:
        view: dict[str, Any] = client.ok("GET", f"/games/{game_id}")
        return view if view["status"] == "finished" else None

    return wait_until(over, timeout=60, interval=0.1, what=f"game {game_id} to end")


def bots_table(client: Client, **fields: Any) -> dict[str, Any]:
    """A table of fast house bots (the creator sits nowhere), its game started."""
    body = {"seat": None, "move_seconds": 600, **fields}
    table: dict[str, Any] = client.ok("POST", "/tables", 201, json=body)
    for bot in FAST_BOTS:
        table = client.ok("POST", f"/tables/{table['id']}/bots", json={"bot": bot})
    assert table["status"] == "playing"
    return table


def bots_game(client: Client) -> dict[str, Any]:
    """A finished game of house bots under ``SHORT`` rules: its view with its record."""
    table = bots_table(client, rules=SHORT)
    return finished_game(client, table["game"])


def deals(record: dict[str, Any]) -> list[Any]:
    return [(deal["hands"], deal["kitty"]) for deal in record["deals"]]


def same_deals(replay: dict[str, Any], original: dict[str, Any]) -> bool:
    """Whether ``replay`` was dealt ``original``'s hands, hand by hand, as far as both went
    (other play may end a game sooner or later: the preset's own end)."""
    common = min(len(replay["deals"]), len(original["deals"]))
    return common > 0 and deals(replay)[:common] == deals(original)[:common]


def test_it_deals_a_duplicate_of_table_the_hands_of_its_original(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "dupann")
    original = bots_game(ann)
    assert original["duplicate_of"] is None
    assert original["record"]["deals"]

    # The rules are left out: the original's are taken.
    table = bots_table(ann, duplicate_of=original["id"])
    assert table["duplicate_of"] == original["id"]
    assert table["rules"] == original["rules"]
    replay = finished_game(ann, table["game"])
    assert replay["duplicate_of"] == original["id"]
    assert replay["record"]["first_dealer"] == original["record"]["first_dealer"]
    assert same_deals(replay["record"], original["record"])
    record = ann.ok("GET", f"/games/{replay['id']}/record")
    assert record["duplicate_of"] == original["id"]
    assert deals(record) == deals(replay["record"])

    # A person sits at one too (its deals are public anyway: the original's record).
    seated = ann.ok(
        "POST", "/tables", 201, json={"duplicate_of": original["id"], "rules": SHORT, "seat": 0}
    )
    for bot in FAST_BOTS[:2]:
        seated = ann.ok("POST", f"/tables/{seated['id']}/bots", json={"bot": bot})
    ann.ok("POST", f"/games/{seated['game']}/resign")  # a house bot plays the seat out
    played = finished_game(ann, seated["game"])
    assert same_deals(played["record"], original["record"])


def test_it_starts_a_challenge_on_the_deals_of_a_finished_game(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    bea = register(api_server.url, "dupbea")
    original = bots_game(bea)
    body = {"to": ["house:random", "house:heuristic"], "duplicate_of": original["id"]}
    challenge = bea.ok("POST", "/challenges", 201, json=body)
    assert challenge["status"] == "accepted"
    assert challenge["duplicate_of"] == original["id"]
    assert challenge["rules"] == original["rules"]
    game = bea.ok("GET", f"/games/{challenge['game']}")
    assert game["duplicate_of"] == original["id"]
    bea.ok("POST", f"/games/{challenge['game']}/resign")
    played = finished_game(bea, challenge["game"])
    assert same_deals(played["record"], original["record"])


def test_it_refuses_a_duplicate_of_an_unknown_unfinished_or_other_rules_game(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    cal = register(api_server.url, "dupcal")
    dan = register(api_server.url, "dupdan")
    eve = register(api_server.url, "dupeve")
    running = cal.ok("POST", "/tables", 201, json={"rules": SHORT, "move_seconds": 600})
    dan.ok("POST", f"/tables/{running['id']}/join", json={})
    running = eve.ok("POST", f"/tables/{running['id']}/join", json={})
    finished = bots_game(cal)
    to = {"to": ["house:random", "house:random"]}

    for path, extra in (("/tables", {}), ("/challenges", to)):
        unknown = cal.post(path, json={"duplicate_of": 2**40, **extra})
        assert error_of(unknown, 404, "not_found")["fields"] == {"duplicate_of": ["no such game"]}
        error_of(
            cal.post(path, json={"duplicate_of": running["game"], **extra}),
            409,
            "game_in_progress",
        )
        mismatch = cal.post(
            path, json={"duplicate_of": finished["id"], "rules": "classic", **extra}
        )
        assert error_of(mismatch, 400, "duplicate_rules_mismatch")["rules"] == finished["rules"]
    # Refused: nothing was made.
    assert cal.ok("GET", "/challenges")["count"] == 0


def test_it_runs_a_duplicate_round_under_embargo_and_ranks_by_duplicate_score(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    people = [register(api_server.url, f"dupt{i}") for i in range(6)]
    organiser = people[0]
    body = {
        "name": "Duplicate night",
        "format": "swiss",
        "rounds": 1,
        "hands_per_game": 2,
        "move_seconds": 600,
        "duplicate": True,
    }
    created = organiser.ok("POST", "/tournaments", 201, json=body)
    assert created["duplicate"] is True
    base = f"/tournaments/{created['id']}"
    for person in people:
        person.ok("POST", f"{base}/register", 201)
    organiser.ok("POST", f"{base}/start")

    round_ = Round.objects.get(tournament_id=created["id"], number=1)
    tables = list(TournamentTable.objects.filter(round=round_).select_related("game"))
    assert len(tables) == 2
    assert {t.game.seed for t in tables} == {round_.deal_seed}
    assert len(round_.deal_seed) == 32
    first, second = (t.game_id for t in tables)
    client = {p.username: p for p in people}
    at_first = [client[s["username"]] for s in Game.objects.get(pk=first).public_seats()]
    at_second = [client[s["username"]] for s in Game.objects.get(pk=second).public_seats()]

    play_fallbacks(first)  # the first table ends; the second still plays the same deals
    anyone = Client(api_server.url)
    for outsider in (at_second[0], anyone):
        error_of(outsider.get(f"/games/{first}"), 409, "deals_embargoed")
        error_of(outsider.get(f"/games/{first}/events"), 409, "deals_embargoed")
        error_of(outsider.get(f"/games/{first}/record"), 409, "deals_embargoed")
    # Nor is the table still playing shown to anyone but its players.
    for outsider in (at_first[0], anyone):
        error_of(outsider.get(f"/games/{second}"), 409, "deals_embargoed")
        error_of(outsider.get(f"/games/{second}/events"), 409, "deals_embargoed")
    assert at_second[2].ok("GET", f"/games/{second}")["your_seat"] == 2
    own = at_first[1].ok("GET", f"/games/{first}")
    assert own["status"] == "finished" and "record" not in own and own["your_seat"] == 1
    events = at_first[1].ok("GET", f"/games/{first}/events")["events"]
    dealt = [e for e in events if e["type"] == "deal"]
    assert dealt and all(e.get("seat") in (None, 1) for e in dealt), dealt
    # The seed (revealed with a game's record at its end) stays hidden with the deals.
    assert round_.deal_seed not in json.dumps([own, events])
    # Nor is it on the web: the game's page and its replay wait for the round.
    web = httpx.Client(base_url=api_server.url, timeout=30)
    page = web.get(f"/games/{first}")
    assert page.status_code == 409 and "other tables are still playing" in page.text
    assert web.get(f"/games/{first}/replay").status_code == 409
    # Nor may its deals be replayed while they are played.
    refused = at_first[1].post("/tables", json={"duplicate_of": first, "seat": None})
    error_of(refused, 409, "deals_embargoed")

    play_fallbacks(second)  # the round is over: the records are public
    records = [Client(api_server.url).ok("GET", f"/games/{g}/record") for g in (first, second)]
    assert same_deals(records[0], records[1])
    assert records[0]["first_dealer"] == records[1]["first_dealer"]

    def standings() -> list[dict[str, Any]] | None:
        data = organiser.ok("GET", base)
        return data["standings"] if data["status"] == "finished" else None

    rows = wait_until(standings, timeout=30, interval=0.1, what="the tournament to finish")
    scores = [records[0]["scores"], records[1]["scores"]]
    expected: dict[str, float] = {}
    for record, table_scores, other in zip(records, scores, reversed(scores), strict=True):
        for seat, entry in enumerate(record_seats(record)):
            expected[entry] = table_scores[seat] - other[seat]  # one other table: its score
    assert {r["username"]: r["duplicate_score"] for r in rows} == pytest.approx(expected)
    ordered = [r["duplicate_score"] for r in rows]
    assert ordered == sorted(ordered, reverse=True)
    assert rows[0]["rank"] == 1 and "points" in rows[0]
    # The tournament page shows the duplicate score, and says what it is.
    page = web.get(f"/tournaments/{created['id']}")
    assert page.status_code == 200
    assert "Duplicate play." in page.text and "duplicate-score" in page.text
    assert web.get(f"/games/{first}").status_code == 200


def record_seats(record: dict[str, Any]) -> list[str]:
    return [s["username"] for s in sorted(record["seats"], key=lambda s: s["seat"])]


def test_it_computes_duplicate_scores_against_the_same_seat_elsewhere() -> None:
    assert duplicate_scores([[10, 2, -4], [4, 8, -4]]) == [[6, -6, 0], [-6, 6, 0]]
    # Three tables: each seat against the mean of the two others.
    assert duplicate_scores([[3, 0, 0], [0, 0, 0], [6, 0, 0]])[0] == [0.0, 0.0, 0.0]
    assert duplicate_scores([[3, 0, 0], [0, 0, 0], [6, 0, 0]])[1][0] == -4.5
    # One table: nobody held the same cards elsewhere.
    assert duplicate_scores([[5, -1, 2]]) == [[0.0, 0.0, 0.0]]


def test_it_refuses_a_duplicate_knockout(api_server: LiveServer) -> None:
    fay = register(api_server.url, "dupfay")
    body = {"name": "KO", "format": "knockout", "duplicate": True}
    refused = fay.post("/tournaments", json=body)
    assert error_of(refused, 400, "invalid")["fields"]["duplicate"]
