"""A club's tournaments and leagues over HTTP against the live server: a tournament naming
its club (set by the club's admins, entered by its members only), the club's list of them,
and leagues whose standings are the sums of the nights' tournament points (docs/clubs.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.tournament_helpers import run_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT = {"format": "swiss", "rounds": 1, "hands_per_game": 1}


def club_of(owner: Client, *members: Client) -> str:
    slug = str(
        owner.ok("POST", "/clubs", 201, json={"name": "The Mess", "joining": "open"})["slug"]
    )
    for member in members:
        member.ok("POST", f"/clubs/{slug}/join", 201, json={})
    return slug


def night(organiser: Client, slug: str, name: str = "Night") -> dict[str, Any]:
    created = organiser.ok("POST", "/tournaments", 201, json={"name": name, "club": slug, **NIGHT})
    assert isinstance(created, dict)
    return created


def test_it_lets_a_clubs_admins_name_it_on_a_tournament(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    slug = club_of(ann, bob, cat)
    ann.ok("PATCH", f"/clubs/{slug}/members/bob", json={"role": "admin"})

    by_owner = night(ann, slug)
    by_admin = night(bob, slug)
    body = {"name": "Cat's", "club": slug, **NIGHT}

    assert (by_owner["club"], by_admin["club"]) == (slug, slug)
    error_of(cat.post("/tournaments", json=body), 403, "not_club_admin")
    error_of(ann.post("/tournaments", json={**body, "club": "nowhere"}), 400, "unknown_club")
    plain = cat.ok("POST", "/tournaments", 201, json={"name": "Cat's", **NIGHT})
    assert plain["club"] is None
    error_of(
        cat.request("PATCH", f"/tournaments/{plain['id']}", json={"club": slug}),
        403,
        "not_club_admin",
    )
    listed = ann.ok("GET", f"/clubs/{slug}/tournaments")["results"]
    assert [t["id"] for t in listed] == [by_admin["id"], by_owner["id"]]
    assert listed[0]["club"] == slug
    assert ann.ok("GET", f"/tournaments/{by_owner['id']}")["club"] == slug
    clubs_of = {t["id"]: t["club"] for t in ann.ok("GET", "/tournaments")["results"]}
    assert clubs_of == {by_owner["id"]: slug, by_admin["id"]: slug, plain["id"]: None}
    # An admin takes the tournament out of the club again; its organiser alone may not.
    cleared = bob.ok("PATCH", f"/tournaments/{by_admin['id']}", json={"club": None})
    assert cleared["club"] is None
    assert [t["id"] for t in ann.ok("GET", f"/clubs/{slug}/tournaments")["results"]] == [
        by_owner["id"]
    ]
    error_of(ann.get("/clubs/nowhere/tournaments"), 404, "not_found")


def test_it_lets_only_members_enter_a_clubs_tournament(api_server: LiveServer) -> None:
    ann, bob, olga = (register(api_server.url, n) for n in ("ann", "bob", "olga"))
    olgabot = olga.ok("POST", "/bots", 201, json={"username": "olgabot"})["username"]
    slug = club_of(ann, bob)
    tid = night(ann, slug)["id"]

    bob.ok("POST", f"/tournaments/{tid}/register", 201)
    error_of(olga.post(f"/tournaments/{tid}/register"), 403, "not_a_member")
    error_of(
        olga.post(f"/tournaments/{tid}/register", json={"player": olgabot}), 403, "not_a_member"
    )
    error_of(ann.post(f"/tournaments/{tid}/entrants", json={"player": "olga"}), 403, "not_a_member")
    ann.ok("POST", f"/tournaments/{tid}/entrants", 201, json={"player": "house:random"})
    ann.ok("POST", f"/tournaments/{tid}/entrants", 201, json={"player": "ann"})
    # A member once, a member's entry: Olga joins, then she and her bot may enter.
    olga.ok("POST", f"/clubs/{slug}/join", 201, json={})
    olga.ok("POST", f"/tournaments/{tid}/register", 201)
    error_of(
        olga.post(f"/tournaments/{tid}/register", json={"player": olgabot}), 403, "not_a_member"
    )
    olga.ok("POST", f"/clubs/{slug}/join", 201, json={"player": olgabot})
    olga.ok("POST", f"/tournaments/{tid}/register", 201, json={"player": olgabot})

    entrants = [e["username"] for e in ann.ok("GET", f"/tournaments/{tid}/entrants")["results"]]
    assert entrants == ["bob", "house:random #1", "ann", "olga", "olgabot"]


def test_it_lets_admins_make_leagues_of_the_clubs_tournaments(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    slug = club_of(ann, bob)
    base = f"/clubs/{slug}/leagues"

    league = ann.ok("POST", base, 201, json={"name": "Winter", "scoring": "best", "best": 2})

    assert {k: league[k] for k in ("club", "name", "scoring", "best", "nights", "standings")} == {
        "club": slug,
        "name": "Winter",
        "scoring": "best",
        "best": 2,
        "nights": [],
        "standings": [],
    }
    error_of(bob.post(base, json={"name": "X", "scoring": "sum"}), 403, "not_club_admin")
    error_of(ann.post(base, json={"name": "X", "scoring": "best"}), 400, "invalid")
    error_of(ann.post(base, json={"name": "X", "scoring": "sum", "best": 2}), 400, "invalid")
    error_of(
        ann.post("/clubs/nowhere/leagues", json={"name": "X", "scoring": "sum"}), 404, "not_found"
    )
    assert [x["id"] for x in ann.ok("GET", base)["results"]] == [league["id"]]
    nights = f"{base}/{league['id']}/tournaments"
    tid = night(ann, slug)["id"]
    added = ann.ok("POST", nights, 201, json={"tournament": tid})
    assert [(n["tournament"], n["status"]) for n in added["nights"]] == [(tid, "registering")]
    error_of(ann.post(nights, json={"tournament": tid}), 409, "already_a_night")
    other = cat.ok("POST", "/tournaments", 201, json={"name": "Elsewhere", **NIGHT})["id"]
    error_of(ann.post(nights, json={"tournament": other}), 409, "not_a_club_tournament")
    error_of(ann.post(nights, json={"tournament": 10**9}), 404, "not_found")
    error_of(bob.post(nights, json={"tournament": tid}), 403, "not_club_admin")
    error_of(ann.post(f"{base}/999999/tournaments", json={"tournament": tid}), 404, "not_found")
    error_of(ann.get(f"{base}/999999"), 404, "not_found")


def points_of(client: Client, tournament_id: int) -> dict[str, float]:
    rows = client.ok("GET", f"/tournaments/{tournament_id}/standings")["results"]
    return {r["username"]: r["points"] for r in rows if not r["username"].startswith("house:")}


def test_it_ranks_a_league_by_the_nights_tournament_points(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann, bob, cat, dan = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))
    slug = club_of(ann, bob, cat, dan)
    total = ann.ok("POST", f"/clubs/{slug}/leagues", 201, json={"name": "All", "scoring": "sum"})
    best = ann.ok(
        "POST", f"/clubs/{slug}/leagues", 201, json={"name": "Best", "scoring": "best", "best": 1}
    )
    # Two nights: cat misses the second, dan the first; a house bot fills no league row.
    firsts = night(ann, slug, "First")["id"]
    seconds = night(ann, slug, "Second")["id"]
    for tid, players in ((firsts, (ann, bob, cat)), (seconds, (ann, bob, dan))):
        for player in players:
            player.ok("POST", f"/tournaments/{tid}/register", 201)
        for league in (total, best):
            ann.ok(
                "POST",
                f"/clubs/{slug}/leagues/{league['id']}/tournaments",
                201,
                json={"tournament": tid},
            )
    ann.ok("POST", f"/tournaments/{seconds}/entrants", 201, json={"player": "house:random"})

    # A night not yet begun counts for nobody.
    assert ann.ok("GET", f"/clubs/{slug}/leagues/{total['id']}")["standings"] == []
    for tid in (firsts, seconds):
        ann.ok("POST", f"/tournaments/{tid}/start")
        run_to_the_end(tid)
    first, second = points_of(ann, firsts), points_of(ann, seconds)
    summed = {u: first.get(u, 0) + second.get(u, 0) for u in {*first, *second}}
    best_one = {u: max(p for p in (first.get(u), second.get(u)) if p is not None) for u in summed}
    played = {"ann": 2, "bob": 2, "cat": 1, "dan": 1}

    for league, expected in ((total, summed), (best, best_one)):
        shown = ann.ok("GET", f"/clubs/{slug}/leagues/{league['id']}")
        assert [n["tournament"] for n in shown["nights"]] == [firsts, seconds]
        assert {n["status"] for n in shown["nights"]} == {"finished"}
        rows = shown["standings"]
        assert {r["username"]: r["points"] for r in rows} == pytest.approx(expected)
        assert {r["username"]: r["nights_played"] for r in rows} == played
        # Best first; equal points share the rank of the first of them.
        assert [r["points"] for r in rows] == sorted((r["points"] for r in rows), reverse=True)
        for position, row in enumerate(rows):
            tied = [r for r in rows if r["points"] == row["points"]]
            assert row["rank"] == rows.index(tied[0]) + 1, (position, rows)
