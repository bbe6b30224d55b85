"""Tournaments over HTTP against the live server: creating, entry, who may organise, the
audit log, rounds, tables, standings and adjudication (docs/api.md "Tournaments")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from accounts.services import HOUSE_BOTS
from games.models import Game
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import wait_until
from tournaments.models import ForbiddenPair, Round

pytestmark = pytest.mark.django_db(transaction=True)


SWISS = {"name": "Friday swiss", "format": "swiss", "rounds": 2, "hands_per_game": 1}


def create(client: Client, **fields: Any) -> dict[str, Any]:
    body = {**SWISS, **fields}
    created = client.ok("POST", "/tournaments", 201, json=body)
    assert isinstance(created, dict)
    return created


def with_scopes(client: Client, scopes: list[str]) -> Client:
    key = client.ok("POST", "/me/tokens", 201, json={"scopes": scopes})["token"]
    return Client(client.base_url, token=key, username=client.username)


def bot_of(owner: Client, username: str) -> Client:
    created = owner.ok("POST", "/bots", 201, json={"username": username, "mode": "poll"})
    return Client(owner.base_url, token=created["token"], username=username)


def test_it_creates_a_tournament_with_an_organise_token(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    created = create(ann, rules={"preset": "classic"}, odd_count="byes", round_minutes=30)

    assert created["status"] == "registering"
    assert created["format"] == "swiss"
    assert created["round_count"] == 2
    assert created["hands_per_game"] == 1
    assert created["odd_count"] == "byes"
    assert created["points_by_rank"] == [3, 1, 0]
    assert created["organisers"] == ["ann"]
    assert created["players"] == [] and created["rounds"] == [] and created["standings"] == []
    listed = ann.ok("GET", "/tournaments?status=registering")
    assert [t["id"] for t in listed["results"]] == [created["id"]]


def test_it_lists_the_house_bots_a_filler_may_be_in_the_schema(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    components = ann.ok("GET", "/schema/?format=json")["components"]["schemas"]

    for body in ("TournamentSettingsRequest", "PatchedTournamentSettingsRequest"):
        filler_bot = components[body]["properties"]["filler_bot"]
        (named,) = filler_bot["allOf"]  # an enum is a component of its own, as odd_count's
        enum = components[named["$ref"].removeprefix("#/components/schemas/")]
        assert enum == {"type": "string", "enum": list(HOUSE_BOTS)}, body
        assert filler_bot["default"] == "house:random", body
    # What the schema lists is what the server takes; another name is refused.
    for bot in HOUSE_BOTS:
        assert create(ann, filler_bot=bot)["filler_bot"] == bot
    refused = error_of(
        ann.post("/tournaments", json={**SWISS, "filler_bot": "house:nope"}), 400, "unknown_bot"
    )
    assert refused["known"] == list(HOUSE_BOTS)


def test_it_refuses_to_create_without_the_organise_scope(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    player_only = with_scopes(ann, ["play"])
    bot = bot_of(ann, "annbot")
    body = {"name": "x", "format": "swiss"}

    error = error_of(player_only.post("/tournaments", json=body), 403, "insufficient_scope")
    assert error["required_scope"] == "organise"
    error_of(bot.post("/tournaments", json=body), 403, "insufficient_scope")
    error_of(Client(api_server.url).post("/tournaments", json=body), 401, "not_authenticated")
    error_of(ann.post("/tournaments", json={**body, "rules": "nope"}), 400, "invalid_rules")
    error_of(ann.post("/tournaments", json={**body, "format": "ladder"}), 400, "invalid")


def test_it_refuses_organiser_actions_to_everyone_else(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    tid = create(ann)["id"]
    base = f"/tournaments/{tid}"
    attempts = [
        ("POST", f"{base}/start", None),
        ("PATCH", base, {"rounds": 5}),
        ("POST", f"{base}/entrants", {"player": "cat"}),
        ("DELETE", f"{base}/entrants/ann", None),
        ("POST", f"{base}/forbidden-pairs", {"players": ["ann", "cat"]}),
        ("POST", f"{base}/organisers", {"username": "bob"}),
        ("DELETE", f"{base}/organisers/ann", None),
        ("POST", f"{base}/rounds/1/tables/1/adjudicate", None),
    ]
    for method, path, body in attempts:
        response = bob.request(method, path, json=body)
        error_of(response, 403, "not_organiser")

    ann.ok("POST", f"{base}/organisers", 201, json={"username": "bob"})
    invited = bob.ok("POST", f"{base}/entrants", 202, json={"player": "cat"})
    added = cat.ok("POST", f"{base}/register", 201)

    assert (invited["player"], invited["invited_by"]) == ("cat", "bob")
    assert added["username"] == "cat"
    assert ann.ok("GET", f"{base}/organisers")["organisers"] == ["ann", "bob"]
    error_of(cat.post(f"{base}/start"), 403, "not_organiser")


def test_it_lets_players_and_bots_enter_within_the_limits(api_server: LiveServer) -> None:
    ann, bob, cat, dan = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))
    bot = bot_of(ann, "annbot")
    tid = create(ann, max_players=3, bots_allowed=False)["id"]
    base = f"/tournaments/{tid}"

    assert bob.ok("POST", f"{base}/register", 201)["username"] == "bob"
    error_of(bob.post(f"{base}/register"), 409, "already_registered")
    error_of(bot.post(f"{base}/register"), 409, "bots_not_allowed")
    cat.ok("POST", f"{base}/register", 201)
    ann.ok("POST", f"{base}/entrants", 201, json={"player": "house:random"})
    error_of(dan.post(f"{base}/register"), 409, "tournament_full")
    bob.ok("POST", f"{base}/withdraw", 204)
    error_of(bob.post(f"{base}/withdraw"), 409, "not_registered")
    dan.ok("POST", f"{base}/register", 201)

    entrants = ann.ok("GET", f"{base}/entrants")
    assert [e["username"] for e in entrants["results"]] == ["cat", "house:random #1", "dan"]
    ann.ok("POST", f"{base}/start")
    error_of(bob.post(f"{base}/register"), 409, "already_started")
    error_of(ann.post(f"{base}/entrants", json={"player": "bob"}), 409, "already_started")


def test_it_pages_the_entrants_as_every_list(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    base = f"/tournaments/{create(ann)['id']}"
    ann.ok("POST", f"{base}/register", 201)
    for _ in range(50):
        ann.ok("POST", f"{base}/entrants", 201, json={"player": "house:random"})
    anyone = Client(api_server.url)

    first = anyone.ok("GET", f"{base}/entrants")
    second = anyone.ok("GET", f"{base}/entrants?page=2")

    assert first["count"] == second["count"] == 51
    assert first["previous"] is None
    assert first["next"] == f"{api_server.url}/api/v1{base}/entrants?page=2"
    assert [e["username"] for e in first["results"]] == [
        "ann",
        *(f"house:random #{n}" for n in range(1, 50)),
    ]
    assert second["previous"] == f"{api_server.url}/api/v1{base}/entrants"
    assert second["next"] is None
    assert [e["username"] for e in second["results"]] == ["house:random #50"]
    assert second["results"][0] == {
        "username": "house:random #50",
        "account": "house:random",
        "is_bot": True,
        "status": "active",
        "rating": None,
        "display_rating": None,
        "seed": None,
    }
    error_of(anyone.get(f"{base}/entrants?page=3"), 404, "not_found")
    error_of(anyone.get("/tournaments/999999/entrants"), 404, "not_found")


def test_it_pages_the_standings_forbidden_pairs_and_audit_as_every_list(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    tid = create(ann)["id"]
    base = f"/tournaments/{tid}"
    ann.ok("POST", f"{base}/register", 201)
    for _ in range(50):
        ann.ok("POST", f"{base}/entrants", 201, json={"player": "house:random"})
    others = [Player.objects.create_user(f"hh{n}") for n in range(11)]
    ForbiddenPair.objects.bulk_create(
        ForbiddenPair(tournament_id=tid, first=a, second=b)
        for i, a in enumerate(others)
        for b in others[i + 1 :]
    )
    anyone = Client(api_server.url)

    for path, count in (("standings", 51), ("forbidden-pairs", 55), ("audit", 51)):
        first = anyone.ok("GET", f"{base}/{path}")
        second = anyone.ok("GET", f"{base}/{path}?page=2")
        assert first["count"] == second["count"] == count, path
        assert first["previous"] is None
        assert first["next"] == f"{api_server.url}/api/v1{base}/{path}?page=2"
        assert len(first["results"]) == 50 and len(second["results"]) == count - 50
        assert second["previous"] == f"{api_server.url}/api/v1{base}/{path}"
        assert second["next"] is None
        for page in ("3", "", "last", "0"):
            error_of(anyone.get(f"{base}/{path}?page={page}"), 404, "not_found")
        error_of(anyone.get(f"/tournaments/999999/{path}"), 404, "not_found")
    detail = ann.ok("GET", base)  # the organiser's: with the audit
    for path, key in (
        ("standings", "standings"),
        ("forbidden-pairs", "forbidden_pairs"),
        ("audit", "audit"),
    ):
        pages = [anyone.ok("GET", f"{base}/{path}?page={n}")["results"] for n in (1, 2)]
        assert pages[0] + pages[1] == detail[key], path
    pairs = anyone.ok("GET", f"{base}/forbidden-pairs?page=2")["results"]
    assert [p["players"] for p in pairs] == [
        ["hh7", "hh9"],
        ["hh7", "hh10"],
        ["hh8", "hh9"],
        ["hh8", "hh10"],
        ["hh9", "hh10"],
    ]


def test_it_keeps_every_organiser_action_in_the_audit_log(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    tid = create(ann)["id"]
    base = f"/tournaments/{tid}"
    ann.ok("POST", f"{base}/organisers", 201, json={"username": "bob"})
    ann.ok("POST", f"{base}/entrants", 202, json={"player": "cat"})
    cat.ok("POST", f"{base}/register", 201)  # accepting is not an organiser action
    for player in ("house:heuristic", "house:heuristic", "house:random"):
        ann.ok("POST", f"{base}/entrants", 201, json={"player": player})
    pair = bob.ok("POST", f"{base}/forbidden-pairs", 201, json={"players": ["cat", "ann"]})
    bob.ok("DELETE", f"{base}/forbidden-pairs/{pair['id']}", 204)
    bob.ok("DELETE", f"{base}/entrants/house:random %231", 204)
    ann.ok("PATCH", base, json={"rounds": 1, "name": "Renamed"})
    ann.ok("POST", f"{base}/start")

    log = ann.ok("GET", f"{base}/audit")["results"]

    assert [(e["actor"], e["action"]) for e in log] == [
        ("ann", "created"),
        ("ann", "co_organiser_added"),
        ("ann", "entrant_invited"),
        ("ann", "entrant_added"),
        ("ann", "entrant_added"),
        ("ann", "entrant_added"),
        ("bob", "forbidden_pair_added"),
        ("bob", "forbidden_pair_removed"),
        ("bob", "entrant_removed"),
        ("ann", "configured"),
        ("ann", "started"),
    ]
    assert log[1]["details"] == {"username": "bob"}
    assert log[8]["details"] == {"entrant": "house:random #1"}
    assert log[9]["details"] == {"changes": {"rounds": 1, "name": "Renamed"}}
    detail = ann.ok("GET", base)
    assert detail["audit"] == log
    assert detail["name"] == "Renamed"


def test_it_shows_rounds_tables_and_standings(api_server: LiveServer) -> None:
    club = [register(api_server.url, f"pla{i}") for i in range(5)]
    ann = club[0]
    tid = create(ann, odd_count="fillers")["id"]
    base = f"/tournaments/{tid}"
    for client in club:
        client.ok("POST", f"{base}/register", 201)
    ann.ok("POST", f"{base}/forbidden-pairs", 201, json={"players": ["pla1", "pla2"]})

    started = ann.ok("POST", f"{base}/start")

    assert started["status"] == "running" and started["current_round"] == 1
    (round_one,) = started["rounds"]
    assert [len(t["seats"]) for t in round_one["tables"]] == [3, 3]
    fillers = [s for t in round_one["tables"] for s in t["seats"] if s["filler"]]
    assert [s["username"] for s in fillers] == ["house:random"]
    for table in round_one["tables"]:
        names = {s["username"] for s in table["seats"]}
        assert not {"pla1", "pla2"} <= names
    shown = ann.ok("GET", f"{base}/rounds/1/tables/2")
    assert shown == {"round": 1, **round_one["tables"][1]}
    game = ann.ok("GET", f"/games/{shown['game']}")
    assert game["rules"] == {"preset": "classic", "max_hands": 1}
    assert ann.ok("GET", f"{base}/rounds/1")["standings"] is None
    standings = ann.ok("GET", f"{base}/standings")["results"]
    assert sorted(row["username"] for row in standings) == [f"pla{i}" for i in range(5)]
    assert {row["points"] for row in standings} == {0}
    error_of(ann.get(f"{base}/rounds/2"), 404, "not_found")
    error_of(ann.get(f"{base}/standings?round=3"), 400, "invalid")


def test_it_lets_an_organiser_adjudicate_an_overdue_table(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    club = [register(api_server.url, f"que{i}") for i in range(3)]
    ann = club[0]
    tid = create(ann, rounds=2)["id"]
    base = f"/tournaments/{tid}"
    for client in club:
        client.ok("POST", f"{base}/register", 201)
    ann.ok("POST", f"{base}/start")
    error_of(ann.post(f"{base}/rounds/1/tables/1/adjudicate"), 409, "round_not_overdue")
    Round.objects.filter(tournament_id=tid).update(deadline=timezone.now() - timedelta(minutes=1))

    table = ann.ok("POST", f"{base}/rounds/1/tables/1/adjudicate")

    assert table["adjudicated"] is True and table["status"] == "finished"
    game = Game.objects.get(pk=table["game"])
    assert game.rated is False and game.result["reason"] == "adjudicated"
    # The worker sees the round complete and starts the next one.
    wait_until(
        lambda: ann.ok("GET", base)["current_round"] == 2, timeout=30, what="round 2 to start"
    )
    error_of(ann.post(f"{base}/rounds/1/tables/1/adjudicate"), 409, "game_finished")
    log = ann.ok("GET", f"{base}/audit")["results"]
    assert log[-1]["action"] == "table_adjudicated"
    assert log[-1]["details"]["round"] == 1 and log[-1]["details"]["table"] == 1


def test_it_refuses_rating_limits_beyond_any_rating_and_stays_readable(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    created = create(ann)
    path = f"/tournaments/{created['id']}"

    huge = error_of(
        ann.request(
            "POST", "/tournaments", json={"name": "x", "format": "swiss", "min_rating": 1e30}
        ),
        400,
        "invalid",
    )
    huge_integer = error_of(ann.request("PATCH", path, json={"max_rating": 10**30}), 400, "invalid")

    assert "min_rating" in huge["fields"] and "max_rating" in huge_integer["fields"]
    assert ann.ok("PATCH", path, json={"max_rating": 40.5})["max_rating"] == 40.5
    assert ann.ok("GET", path)["max_rating"] == 40.5
    assert ann.ok("GET", f"{path}/audit")["results"]
