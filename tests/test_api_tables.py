"""Tables over HTTP against the live server: creating, the lobby, seats, bots, starting
(docs/api.md)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from games import tables
from games.engine import Game as Engine
from games.models import Game
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

EMPTY_SEAT = {"username": None, "is_bot": False}


def usernames(table: dict[str, Any]) -> list[str | None]:
    return [seat["username"] for seat in table["seats"]]


def new_table(client: Client, **fields: Any) -> dict[str, Any]:
    body = {"rules": "classic", "move_seconds": 600, **fields}
    table = client.ok("POST", "/tables", 201, json=body)
    assert isinstance(table, dict)
    return table


def bot_of(owner: Client, username: str) -> Client:
    created = owner.ok("POST", "/bots", 201, json={"username": username, "mode": "poll"})
    return Client(owner.base_url, token=created["token"], username=username)


# --- Creating tables ------------------------------------------------------------------------


def test_it_creates_a_table_from_a_preset_name(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post("/tables", json={"rules": "classic", "rated": True, "move_seconds": 30})

    assert response.status_code == 201, response.text
    table = response.json()
    assert isinstance(table["id"], int)
    assert table["status"] == "open"
    assert table["rules"] == {"preset": "classic"}
    assert table["rated"] is True
    assert table["move_seconds"] == 30
    assert table["game"] is None
    assert table["seats"] == [
        {"seat": 0, "username": "ann", "is_bot": False},
        {"seat": 1, **EMPTY_SEAT},
        {"seat": 2, **EMPTY_SEAT},
    ]


def test_it_creates_a_table_from_a_preset_with_options(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    table = ann.ok(
        "POST",
        "/tables",
        201,
        json={
            "rules": {"preset": "kitty-first", "max_hands": 3, "two_up_order": "most_up_first"},
            "rated": False,
            "move_seconds": 120,
        },
    )

    assert table["rules"] == {
        "preset": "kitty-first",
        "max_hands": 3,
        "two_up_order": "most_up_first",
    }
    assert table["rated"] is False
    assert table["move_seconds"] == 120


def test_it_gives_a_table_sixty_move_seconds_and_seat_zero_by_default(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")

    table = ann.ok("POST", "/tables", 201, json={"rules": "classic", "rated": False})

    assert table["move_seconds"] == 60
    assert usernames(table) == ["ann", None, None]


@pytest.mark.parametrize(
    "rules",
    [
        "no-such-preset",
        {"preset": "no-such-preset"},
        {"preset": "classic", "colour": "red"},
        {"preset": "classic", "max_hands": "three"},
        {"preset": "classic", "max_hands": 0},
        {"preset": "classic", "kitty_order": "sideways"},
        {"max_hands": 3},
    ],
    ids=[
        "unknown-preset-name",
        "unknown-preset",
        "unknown-option",
        "option-of-wrong-type",
        "option-out-of-range",
        "option-not-a-choice",
        "no-preset",
    ],
)
def test_it_refuses_bad_rules(api_server: LiveServer, rules: Any) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post("/tables", json={"rules": rules, "move_seconds": 60})

    error_of(response, 400, "invalid_rules")
    assert Client(api_server.url).ok("GET", "/tables")["count"] == 0


@pytest.mark.parametrize("move_seconds", [0, 86401, -5, "soon", 1.5])
def test_it_refuses_move_seconds_outside_one_to_86400(
    api_server: LiveServer, move_seconds: Any
) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post("/tables", json={"rules": "classic", "move_seconds": move_seconds})

    error = error_of(response, 400, "invalid")
    assert "move_seconds" in error["fields"], error


@pytest.mark.parametrize("move_seconds", [1, 86400])
def test_it_accepts_move_seconds_at_the_limits(api_server: LiveServer, move_seconds: int) -> None:
    ann = register(api_server.url, "ann")

    table = new_table(ann, move_seconds=move_seconds)

    assert table["move_seconds"] == move_seconds


def test_it_seats_the_creator_nowhere_with_seat_null(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    table = new_table(ann, seat=None)

    assert usernames(table) == [None, None, None]
    assert table["status"] == "open"
    joined = ann.ok("POST", f"/tables/{table['id']}/join", json={"seat": 1})
    assert usernames(joined) == [None, "ann", None]


def test_it_seats_the_creator_at_the_chosen_seat(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    table = new_table(ann, seat=2)

    assert usernames(table) == [None, None, "ann"]


@pytest.mark.parametrize("seat", [3, -1, "first"])
def test_it_refuses_a_creator_seat_that_does_not_exist(api_server: LiveServer, seat: Any) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post("/tables", json={"rules": "classic", "seat": seat})

    error = error_of(response, 400, "invalid")
    assert "seat" in error.get("fields", {}), error


def test_it_needs_a_token_to_create_a_table(api_server: LiveServer) -> None:
    response = Client(api_server.url).post("/tables", json={"rules": "classic"})

    error_of(response, 401, "not_authenticated")


def test_it_gives_the_four_handed_preset_four_seats(api_server: LiveServer) -> None:
    ann, bob, cat, dan = (register(api_server.url, n) for n in ("ann", "bob", "cat", "dan"))

    table = new_table(ann, rules="four-handed")

    assert [seat["seat"] for seat in table["seats"]] == [0, 1, 2, 3]
    for client in (bob, cat):
        table = client.ok("POST", f"/tables/{table['id']}/join", json={})
        assert table["status"] == "open"
    table = dan.ok("POST", f"/tables/{table['id']}/join", json={})
    assert table["status"] == "playing"
    view = dan.ok("GET", f"/games/{table['game']}")
    assert view["your_seat"] == 3
    assert len(view["seats"]) == 4
    assert len(view["your_hand"]) == 13


# --- Reading tables -------------------------------------------------------------------------


def test_it_lists_open_tables_in_the_lobby_newest_first(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    first = new_table(ann)
    second = new_table(bob)
    started = new_table(cat)
    for client in (ann, bob):
        client.ok("POST", f"/tables/{started['id']}/join", json={})
    anonymous = Client(api_server.url)

    lobby = anonymous.ok("GET", "/tables?status=open")

    assert set(lobby) == {"count", "next", "previous", "results"}
    assert lobby["count"] == 2
    assert lobby["next"] is None and lobby["previous"] is None
    assert [t["id"] for t in lobby["results"]] == [second["id"], first["id"]]
    assert all(t["status"] == "open" for t in lobby["results"])
    playing = anonymous.ok("GET", "/tables?status=playing")
    assert [t["id"] for t in playing["results"]] == [started["id"]]
    assert anonymous.ok("GET", "/tables")["count"] == 3


def test_it_pages_the_lobby(api_server: LiveServer) -> None:
    register(api_server.url, "ann")
    ann = Player.objects.get(username="ann")
    for _ in range(51):
        tables.create_table(ann, rules="classic", rated=False, move_seconds=60, seat=0)
    anonymous = Client(api_server.url)

    page_one = anonymous.ok("GET", "/tables?status=open")
    page_two = anonymous.ok("GET", "/tables?status=open&page=2")

    assert page_one["count"] == page_two["count"] == 51
    assert len(page_one["results"]) == 50
    assert page_one["previous"] is None
    assert "page=2" in page_one["next"]
    assert len(page_two["results"]) == 1
    assert page_two["next"] is None
    assert page_two["previous"] is not None
    ids = [t["id"] for t in page_one["results"] + page_two["results"]]
    assert len(set(ids)) == 51
    error_of(anonymous.get("/tables?status=open&page=3"), 404, "not_found")


def test_it_refuses_an_unknown_lobby_status(api_server: LiveServer) -> None:
    error_of(Client(api_server.url).get("/tables?status=sleeping"), 400, "invalid")


def test_it_shows_one_table_to_anyone(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    created = new_table(ann, rated=False)

    table = Client(api_server.url).ok("GET", f"/tables/{created['id']}")

    assert table == created


def test_it_answers_404_for_an_unknown_table(api_server: LiveServer) -> None:
    error_of(Client(api_server.url).get("/tables/999999"), 404, "not_found")


# --- Joining and leaving --------------------------------------------------------------------


def test_it_seats_a_joining_player_at_the_chosen_or_first_free_seat(
    api_server: LiveServer,
) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    dan = register(api_server.url, "dan")
    table = new_table(ann, rules="four-handed")

    after_bob = bob.ok("POST", f"/tables/{table['id']}/join", json={"seat": 3})
    after_cat = cat.ok("POST", f"/tables/{table['id']}/join")

    assert usernames(after_bob) == ["ann", None, None, "bob"]
    assert usernames(after_cat) == ["ann", "cat", None, "bob"]
    assert after_cat["status"] == "open"
    after_dan = dan.ok("POST", f"/tables/{table['id']}/join", json={"seat": None})
    assert usernames(after_dan) == ["ann", "cat", "dan", "bob"]


def test_it_refuses_a_taken_seat(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    table = new_table(ann)

    error_of(bob.post(f"/tables/{table['id']}/join", json={"seat": 0}), 409, "seat_taken")

    assert usernames(bob.ok("GET", f"/tables/{table['id']}")) == ["ann", None, None]


def test_it_refuses_a_second_seat_for_the_same_player(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    table = new_table(ann)

    response = ann.post(f"/tables/{table['id']}/join", json={"seat": 1})

    assert response.status_code == 409, response.text
    assert response.json()["error"]["code"] == "already_seated"
    assert usernames(ann.ok("GET", f"/tables/{table['id']}")) == ["ann", None, None]


@pytest.mark.parametrize("seat", [3, -1, "one"])
def test_it_refuses_to_join_at_a_seat_that_does_not_exist(
    api_server: LiveServer, seat: Any
) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    table = new_table(ann)

    response = bob.post(f"/tables/{table['id']}/join", json={"seat": seat})

    error_of(response, 400, "invalid")


def test_it_refuses_to_join_an_unknown_table(api_server: LiveServer) -> None:
    bob = register(api_server.url, "bob")

    error_of(bob.post("/tables/999999/join", json={}), 404, "not_found")


def test_it_needs_a_token_to_join(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    table = new_table(ann)

    error_of(
        Client(api_server.url).post(f"/tables/{table['id']}/join", json={}),
        401,
        "not_authenticated",
    )


def test_it_lets_a_player_leave_before_the_start(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    table = new_table(ann)
    bob.ok("POST", f"/tables/{table['id']}/join", json={"seat": 1})

    left = bob.ok("POST", f"/tables/{table['id']}/leave")

    assert usernames(left) == ["ann", None, None]
    assert left["status"] == "open"
    response = bob.post(f"/tables/{table['id']}/leave")
    assert response.status_code == 409, response.text
    assert usernames(ann.ok("POST", f"/tables/{table['id']}/leave")) == [None, None, None]


def test_it_does_not_let_a_player_leave_once_the_game_started(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    table = new_table(ann)
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    cat.ok("POST", f"/tables/{table['id']}/join", json={})

    response = bob.post(f"/tables/{table['id']}/leave")

    assert response.status_code == 409, response.text
    assert usernames(bob.ok("GET", f"/tables/{table['id']}")) == ["ann", "bob", "cat"]


# --- Starting the game ----------------------------------------------------------------------


def test_it_starts_the_game_when_the_last_seat_is_filled(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    dan = register(api_server.url, "dan")
    table = new_table(ann, rules={"preset": "classic", "max_hands": 2})
    assert bob.ok("POST", f"/tables/{table['id']}/join", json={})["game"] is None

    started = cat.ok("POST", f"/tables/{table['id']}/join", json={})

    assert started["status"] == "playing"
    assert isinstance(started["game"], int)
    assert Client(api_server.url).ok("GET", f"/tables/{table['id']}") == started
    assert Client(api_server.url).ok("GET", "/tables?status=open")["count"] == 0
    game_id = started["game"]
    for seat, client in enumerate((ann, bob, cat)):
        view = client.ok("GET", f"/games/{game_id}")
        assert view["id"] == game_id
        assert view["status"] == "playing"
        assert view["rules"] == {"preset": "classic", "max_hands": 2}
        assert view["your_seat"] == seat
        assert len(view["your_hand"]) == 16
        assert [s["username"] for s in view["seats"]] == ["ann", "bob", "cat"]
        assert isinstance(view["version"], int)
        assert "legal_actions" in view
    for spectator in (dan, Client(api_server.url)):
        view = spectator.ok("GET", f"/games/{game_id}")
        assert view["id"] == game_id
        assert view["your_seat"] is None
        assert "your_hand" not in view
        assert not view.get("legal_actions")
        assert [s["username"] for s in view["seats"]] == ["ann", "bob", "cat"]


def test_it_deals_tables_given_the_same_deal_seed_alike_to_house_bots_only(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    host = Player.objects.get(username="ann")
    owned = ann.ok("POST", "/bots", 201, json={"username": "annbot", "mode": "poll"})
    seed, bots = "duplicate-set-7f3a", ("house:random", "house:heuristic", "house:strong")

    def seated(deal_seed: str) -> int:
        table = tables.create_table(
            host, rules="classic", rated=True, move_seconds=600, seat=None, deal_seed=deal_seed
        )
        for seat, bot in enumerate(bots):
            tables.seat_bot(host, table_id=table.pk, bot=bot, seat=seat)
        game_id = ann.ok("GET", f"/tables/{table.pk}")["game"]
        assert isinstance(game_id, int)
        return game_id

    def first_deal(game_id: int) -> Any:
        # From the game's deal log: the suite's worker may have the bots playing already.
        return Engine.from_json(Game.objects.get(pk=game_id).state).record()["deals"][0]

    first, second, fresh = seated(seed), seated(seed), seated("")
    assert first_deal(first) == first_deal(second)
    assert first_deal(fresh) != first_deal(first)
    for client in (ann, Client(api_server.url)):
        for path in (f"/games/{first}", f"/games/{first}/events", "/tables?status=playing"):
            assert seed not in client.get(path).text

    # Anyone else could read the shared deals off a sibling table: no seat for them.
    table = tables.create_table(
        host, rules="classic", rated=True, move_seconds=600, seat=None, deal_seed=seed
    )
    refused = ann.post(f"/tables/{table.pk}/join", json={})
    error_of(refused, 403, "house_bots_only")
    refused = ann.post(f"/tables/{table.pk}/bots", json={"bot": owned["username"]})
    error_of(refused, 403, "house_bots_only")
    assert ann.ok("POST", f"/tables/{table.pk}/bots", json={"bot": "house:random"})


def test_it_refuses_to_join_a_started_table(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, n) for n in ("ann", "bob", "cat"))
    dan = register(api_server.url, "dan")
    table = new_table(ann)
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    cat.ok("POST", f"/tables/{table['id']}/join", json={})

    response = dan.post(f"/tables/{table['id']}/join", json={})

    assert response.status_code == 409, response.text
    assert usernames(dan.ok("GET", f"/tables/{table['id']}")) == ["ann", "bob", "cat"]


# --- Bots at tables -------------------------------------------------------------------------


def test_it_lets_the_creator_seat_a_house_bot(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    table = new_table(ann)

    seated = ann.ok("POST", f"/tables/{table['id']}/bots", json={"bot": "house:random"})

    assert seated["seats"][1] == {"seat": 1, "username": "house:random", "is_bot": True}
    assert seated["status"] == "open"
    again = ann.ok(
        "POST", f"/tables/{table['id']}/bots", json={"bot": "house:heuristic", "seat": 2}
    )
    assert again["seats"][2] == {"seat": 2, "username": "house:heuristic", "is_bot": True}


def test_it_lets_only_the_creator_seat_bots(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    table = new_table(ann)
    bob.ok("POST", f"/tables/{table['id']}/join", json={})

    response = bob.post(f"/tables/{table['id']}/bots", json={"bot": "house:random"})

    error_of(response, 403, "not_table_creator")
    assert usernames(ann.ok("GET", f"/tables/{table['id']}")) == ["ann", "bob", None]


@pytest.mark.parametrize("bot", ["house:nobody", "house:", "house:RANDOM"])
def test_it_refuses_an_unknown_house_bot(api_server: LiveServer, bot: str) -> None:
    ann = register(api_server.url, "ann")
    table = new_table(ann)

    response = ann.post(f"/tables/{table['id']}/bots", json={"bot": bot})

    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in ("unknown_bot", "invalid")
    assert usernames(ann.ok("GET", f"/tables/{table['id']}")) == ["ann", None, None]


def test_it_seats_a_bot_account_owned_by_the_creator(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    bot_of(ann, "annbot")
    table = new_table(ann)

    seated = ann.ok("POST", f"/tables/{table['id']}/bots", json={"bot": "annbot", "seat": 2})

    assert seated["seats"][2] == {"seat": 2, "username": "annbot", "is_bot": True}


def test_it_refuses_to_seat_someone_elses_bot(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    bot_of(bob, "bobbot")
    table = new_table(ann)

    response = ann.post(f"/tables/{table['id']}/bots", json={"bot": "bobbot"})

    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "not_bot_owner"
    assert usernames(ann.ok("GET", f"/tables/{table['id']}")) == ["ann", None, None]


@pytest.mark.parametrize("bot", ["bob", "nobody"], ids=["a-human", "unknown"])
def test_it_refuses_to_seat_an_account_that_is_not_a_bot(api_server: LiveServer, bot: str) -> None:
    ann = register(api_server.url, "ann")
    register(api_server.url, "bob")
    table = new_table(ann)

    response = ann.post(f"/tables/{table['id']}/bots", json={"bot": bot})

    assert response.status_code in (400, 404), response.text
    assert usernames(ann.ok("GET", f"/tables/{table['id']}")) == ["ann", None, None]


def test_it_refuses_a_bot_at_a_taken_seat(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    table = new_table(ann)

    response = ann.post(f"/tables/{table['id']}/bots", json={"bot": "house:random", "seat": 0})

    error_of(response, 409, "seat_taken")
