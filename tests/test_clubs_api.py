"""Clubs over HTTP against the live server: creating and changing a club, its three ways of
joining, requests and invitations, leaving, members and roles, and the club's leaderboard
(docs/clubs.md)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from ratings.models import Rating
from realtime.models import PlayerMessage
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

CLUB_FIELDS = {
    "slug",
    "name",
    "description",
    "joining",
    "member_count",
    "admins",
    "owner",
    "created_at",
}


def create(client: Client, name: str = "The Crown", **fields: Any) -> dict[str, Any]:
    body = {"name": name, "joining": "open", **fields}
    created = client.ok("POST", "/clubs", 201, json=body)
    assert isinstance(created, dict)
    return created


def with_scopes(client: Client, scopes: list[str]) -> Client:
    key = client.ok("POST", "/me/tokens", 201, json={"scopes": scopes})["token"]
    return Client(client.base_url, token=key, username=client.username)


def bot_of(owner: Client, username: str) -> Client:
    created = owner.ok("POST", "/bots", 201, json={"username": username, "mode": "poll"})
    return Client(owner.base_url, token=created["token"], username=username)


def members(client: Client, slug: str) -> dict[str, str]:
    return {m["username"]: m["role"] for m in client.ok("GET", f"/clubs/{slug}/members")["results"]}


def test_it_creates_a_club_owned_by_its_creator_with_a_slug_from_the_name(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")

    club = create(ann, "The Crown & Anchor", description="Thursdays")

    assert set(club) == CLUB_FIELDS
    assert club["slug"] == "the-crown-anchor"
    assert (club["owner"], club["admins"], club["member_count"]) == ("ann", [], 1)
    assert (club["joining"], club["description"]) == ("open", "Thursdays")
    assert ann.ok("GET", "/clubs/the-crown-anchor") == club
    assert [c["slug"] for c in ann.ok("GET", "/clubs")["results"]] == ["the-crown-anchor"]
    # The same name again: a slug of its own; a slug given that is taken: 409.
    assert create(ann, "The Crown & Anchor")["slug"] == "the-crown-anchor-2"
    assert create(ann, "Anything", slug="mess")["slug"] == "mess"
    taken = {"name": "Other", "slug": "mess", "joining": "open"}
    error_of(ann.post("/clubs", json=taken), 409, "slug_taken")
    assert create(ann, "!!!")["slug"] == "club"


def test_it_refuses_to_create_a_club_without_the_organise_scope(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    player_only = with_scopes(ann, ["play"])

    error_of(
        player_only.post("/clubs", json={"name": "X", "joining": "open"}), 403, "insufficient_scope"
    )
    error_of(Client(api_server.url).post("/clubs", json={"name": "X"}), 401, "not_authenticated")
    error_of(ann.post("/clubs", json={"name": "X", "joining": "sometimes"}), 400, "invalid")
    error_of(ann.get("/clubs/nowhere"), 404, "not_found")


def test_it_lets_the_owner_and_admins_change_a_club_and_nobody_else(
    api_server: LiveServer,
) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    slug = create(ann)["slug"]
    bob.ok("POST", f"/clubs/{slug}/join", 201, json={})
    cat.ok("POST", f"/clubs/{slug}/join", 201, json={})

    error_of(bob.request("PATCH", f"/clubs/{slug}", json={"name": "Bob's"}), 403, "not_club_admin")
    ann.ok("PATCH", f"/clubs/{slug}/members/bob", json={"role": "admin"})
    changed = bob.ok("PATCH", f"/clubs/{slug}", json={"name": "Bob's", "joining": "request"})

    assert (changed["slug"], changed["name"], changed["joining"]) == (slug, "Bob's", "request")
    assert changed["admins"] == ["bob"]
    error_of(
        cat.request("PATCH", f"/clubs/{slug}", json={"description": "x"}), 403, "not_club_admin"
    )
    error_of(ann.request("PATCH", "/clubs/nowhere", json={"name": "x"}), 404, "not_found")


def test_it_lets_anyone_join_an_open_club_once(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    slug = create(ann)["slug"]

    member = bob.ok("POST", f"/clubs/{slug}/join", 201, json={})

    assert (member["username"], member["role"], member["is_bot"]) == ("bob", "member", False)
    assert member["joined_at"]
    error_of(bob.post(f"/clubs/{slug}/join", json={}), 409, "already_member")
    error_of(ann.post(f"/clubs/{slug}/join", json={}), 409, "already_member")
    assert members(ann, slug) == {"ann": "owner", "bob": "member"}
    assert ann.ok("GET", f"/clubs/{slug}")["member_count"] == 2


def test_it_takes_requests_that_the_admins_hear_of_and_answer(api_server: LiveServer) -> None:
    ann, bob, cat, dan = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))
    slug = create(ann, joining="request")["slug"]
    dan.ok("POST", f"/clubs/{slug}/join", 202, json={})  # a request: not a member yet
    ann.ok("POST", f"/clubs/{slug}/invitations", 201, json={"username": "dan"})
    dan.ok("POST", f"/clubs/{slug}/join", 201, json={})  # the invitation lets him in
    ann.ok("PATCH", f"/clubs/{slug}/members/dan", json={"role": "admin"})

    pending = bob.ok("POST", f"/clubs/{slug}/join", 202, json={})
    cat.ok("POST", f"/clubs/{slug}/join", 202, json={})

    assert (pending["username"], pending["status"], pending["club"]) == ("bob", "pending", slug)
    error_of(bob.post(f"/clubs/{slug}/join", json={}), 409, "already_requested")
    notified = PlayerMessage.objects.filter(type="club_request", payload__username="bob")
    assert sorted(m.player.username for m in notified) == ["ann", "dan"]
    listed = ann.ok("GET", f"/clubs/{slug}/requests")["results"]
    assert [(r["username"], r["status"]) for r in listed] == [
        ("bob", "pending"),
        ("cat", "pending"),
    ]
    error_of(bob.get(f"/clubs/{slug}/requests"), 403, "not_club_admin")
    error_of(bob.post(f"/clubs/{slug}/requests/cat/approve"), 403, "not_club_admin")

    approved = dan.ok("POST", f"/clubs/{slug}/requests/bob/approve", 201)
    ann.ok("POST", f"/clubs/{slug}/requests/cat/decline", 204)

    assert (approved["username"], approved["role"]) == ("bob", "member")
    assert members(ann, slug) == {"ann": "owner", "dan": "admin", "bob": "member"}
    assert ann.ok("GET", f"/clubs/{slug}/requests")["results"] == []
    error_of(ann.post(f"/clubs/{slug}/requests/cat/approve"), 404, "not_found")
    answered = PlayerMessage.objects.filter(type="club_request_answered")
    assert sorted((m.player.username, m.payload["status"]) for m in answered) == [
        ("bob", "approved"),
        ("cat", "declined"),
    ]


def test_it_takes_only_the_invited_into_a_club_by_invitation(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    slug = create(ann, joining="invite")["slug"]

    error_of(bob.post(f"/clubs/{slug}/join", json={}), 403, "invitation_required")
    invitation = ann.ok("POST", f"/clubs/{slug}/invitations", 201, json={"username": "bob"})
    ann.ok("POST", f"/clubs/{slug}/invitations", 201, json={"username": "cat"})

    assert (invitation["username"], invitation["invited_by"]) == ("bob", "ann")
    assert invitation["status"] == "pending"
    sent = PlayerMessage.objects.filter(type="club_invite")
    assert sorted(m.player.username for m in sent) == ["bob", "cat"]
    error_of(
        ann.post(f"/clubs/{slug}/invitations", json={"username": "bob"}), 409, "already_invited"
    )
    error_of(ann.post(f"/clubs/{slug}/invitations", json={"username": "nobody"}), 404, "not_found")
    error_of(bob.post(f"/clubs/{slug}/invitations", json={"username": "x"}), 403, "not_club_admin")
    bob.ok("POST", f"/clubs/{slug}/join", 201, json={})
    cat.ok("POST", f"/clubs/{slug}/invitations/decline", 204, json={})
    error_of(cat.post(f"/clubs/{slug}/invitations/decline", json={}), 409, "not_invited")
    error_of(cat.post(f"/clubs/{slug}/join", json={}), 403, "invitation_required")
    error_of(
        ann.post(f"/clubs/{slug}/invitations", json={"username": "bob"}), 409, "already_member"
    )
    assert members(ann, slug) == {"ann": "owner", "bob": "member"}


def test_it_lets_an_owner_enter_a_bot_of_theirs_and_no_one_elses(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    bot_of(bob, "bobbot")
    slug = create(ann, joining="invite")["slug"]
    open_slug = create(ann, "Open house")["slug"]

    error_of(ann.post(f"/clubs/{open_slug}/join", json={"player": "bobbot"}), 403, "not_bot_owner")
    bob.ok("POST", f"/clubs/{open_slug}/join", 201, json={"player": "bobbot"})
    ann.ok("POST", f"/clubs/{slug}/invitations", 201, json={"username": "bobbot"})
    # The invitation of a bot goes to its owner, who answers for it.
    (sent,) = PlayerMessage.objects.filter(type="club_invite")
    assert (sent.player.username, sent.payload["username"]) == ("bob", "bobbot")
    joined = bob.ok("POST", f"/clubs/{slug}/join", 201, json={"player": "bobbot"})

    assert (joined["username"], joined["is_bot"]) == ("bobbot", True)
    assert members(ann, slug) == {"ann": "owner", "bobbot": "member"}
    error_of(
        ann.request("PATCH", f"/clubs/{slug}/members/bobbot", json={"role": "admin"}),
        400,
        "bots_cannot_administer",
    )
    bob.ok("POST", f"/clubs/{slug}/leave", 204, json={"player": "bobbot"})
    assert members(ann, slug) == {"ann": "owner"}


def test_it_keeps_the_owner_until_ownership_passes(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    slug = create(ann)["slug"]
    bob.ok("POST", f"/clubs/{slug}/join", 201, json={})
    cat.ok("POST", f"/clubs/{slug}/join", 201, json={})

    error_of(ann.post(f"/clubs/{slug}/leave", json={}), 409, "owner_cannot_leave")
    error_of(
        ann.request("PATCH", f"/clubs/{slug}/members/ann", json={"role": "admin"}),
        409,
        "owner_cannot_step_down",
    )
    ann.ok("PATCH", f"/clubs/{slug}/members/bob", json={"role": "admin"})
    error_of(
        bob.request("PATCH", f"/clubs/{slug}/members/cat", json={"role": "admin"}),
        403,
        "not_club_owner",
    )
    error_of(
        cat.request("PATCH", f"/clubs/{slug}/members/cat", json={"role": "admin"}),
        403,
        "not_club_admin",
    )
    passed = ann.ok("PATCH", f"/clubs/{slug}/members/cat", json={"role": "owner"})

    assert passed["role"] == "owner"
    assert members(ann, slug) == {"cat": "owner", "ann": "admin", "bob": "admin"}
    club = ann.ok("GET", f"/clubs/{slug}")
    assert (club["owner"], club["admins"]) == ("cat", ["ann", "bob"])
    ann.ok("POST", f"/clubs/{slug}/leave", 204, json={})
    error_of(ann.post(f"/clubs/{slug}/leave", json={}), 403, "not_a_member")
    assert members(cat, slug) == {"cat": "owner", "bob": "admin"}
    error_of(
        cat.request("PATCH", f"/clubs/{slug}/members/ann", json={"role": "admin"}), 404, "not_found"
    )


def test_it_lets_admins_remove_members_and_only_the_owner_admins(api_server: LiveServer) -> None:
    ann, bob, cat, dan = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))
    slug = create(ann)["slug"]
    for person in (bob, cat, dan):
        person.ok("POST", f"/clubs/{slug}/join", 201, json={})
    ann.ok("PATCH", f"/clubs/{slug}/members/bob", json={"role": "admin"})
    ann.ok("PATCH", f"/clubs/{slug}/members/cat", json={"role": "admin"})

    error_of(dan.request("DELETE", f"/clubs/{slug}/members/bob"), 403, "not_club_admin")
    bob.ok("DELETE", f"/clubs/{slug}/members/dan", 204)
    error_of(bob.request("DELETE", f"/clubs/{slug}/members/cat"), 403, "not_club_owner")
    error_of(bob.request("DELETE", f"/clubs/{slug}/members/ann"), 409, "owner_cannot_leave")
    ann.ok("DELETE", f"/clubs/{slug}/members/cat", 204)
    error_of(ann.request("DELETE", f"/clubs/{slug}/members/cat"), 404, "not_found")

    assert members(ann, slug) == {"ann": "owner", "bob": "admin"}


def rate(username: str, pool: str, mu: float, sigma: float, games: int) -> None:
    player = Player.objects.get(username=username)
    Rating.objects.create(
        player=player, pool=pool, mu=mu, sigma=sigma, games=games, last_played_at=timezone.now()
    )


def test_it_shows_members_ratings_and_ranks_them_as_the_site_does(api_server: LiveServer) -> None:
    ann, bob, cat, _ = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))
    slug = create(ann)["slug"]
    for person in (bob, cat):
        person.ok("POST", f"/clubs/{slug}/join", 201, json={})
    # dan is rated best of all but is no member; cat is rated in two pools.
    rate("dan", "classic", 40.0, 2.0, 30)
    rate("bob", "classic", 30.0, 2.0, 30)
    rate("cat", "classic", 33.0, 2.0, 30)
    rate("cat", "race", 20.0, 5.0, 2)

    shown = {
        m["username"]: m["ratings"] for m in ann.ok("GET", f"/clubs/{slug}/members")["results"]
    }
    board = ann.ok("GET", f"/clubs/{slug}/leaderboard?pool=classic")["results"]
    site = ann.ok("GET", "/ratings?pool=classic")["results"]

    assert shown == {"ann": {}, "bob": {"classic": 2100}, "cat": {"classic": 2175, "race": 1625}}
    assert [(e["rank"], e["username"]) for e in board] == [(1, "cat"), (2, "bob")]
    # The same entries as the site's leaderboard (its rank aside).
    by_name = {e["username"]: e for e in site}
    for entry in board:
        assert {k: v for k, v in entry.items() if k != "rank"} == {
            k: v for k, v in by_name[entry["username"]].items() if k != "rank"
        }
    provisional = ann.ok("GET", f"/clubs/{slug}/leaderboard?pool=race&list=provisional")
    assert [e["username"] for e in provisional["results"]] == ["cat"]
    assert ann.ok("GET", f"/clubs/{slug}/leaderboard")["results"] == board
    # Every pool of the site's leaderboard, the in-person one too.
    rate("bob", "in_person", 27.0, 3.0, 12)
    in_person = ann.ok("GET", f"/clubs/{slug}/leaderboard?pool=in_person")["results"]
    assert [(e["rank"], e["username"], e["display_rating"]) for e in in_person] == [
        (1, "bob", 1950)
    ]
    error_of(ann.get(f"/clubs/{slug}/leaderboard?pool=nope"), 400, "unknown_pool")
    error_of(ann.get("/clubs/nowhere/leaderboard"), 404, "not_found")
