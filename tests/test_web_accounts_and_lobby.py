"""The pages' accounts (sign up, log in, log out), the API reached with the session cookie,
the lobby's forms, the game page's views, and the error pages (server-rendered; no browser)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import ApiToken, Player
from accounts.services import create_bot_player, create_person
from games import tables
from games.models import Game, Table
from tests.service_games import play_until, seated_game

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"


def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def csrf_token(client: Client, path: str = "/login") -> str:
    client.get(path)
    return str(client.cookies["csrftoken"].value)


def logged_in(username: str = "ann") -> tuple[Client, Player]:
    person = create_person(username, password=PASSWORD)
    client = csrf_client()
    token = csrf_token(client)
    response = client.post(
        "/login", {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    return client, person


def test_it_signs_a_person_up_and_logs_them_in() -> None:
    client = csrf_client()
    token = csrf_token(client, "/signup")

    response = client.post(
        "/signup?next=/lobby",
        {"username": "ann", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )

    assert response.status_code == 302 and response["Location"] == "/lobby"
    assert "ann" in client.get("/").content.decode()
    assert Player.objects.get(username="ann").check_password(PASSWORD)
    # The browser session's API token, and no other token made for a page's sign-up.
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["web session"]


def welcome_on(page: str) -> str:
    (heading,) = re.findall(r"<h1 data-welcome=\"\w+\">([^<]*)</h1>", page)
    return heading


def test_it_welcomes_a_new_person_after_sign_up_and_welcomes_them_back_later() -> None:
    client = csrf_client()
    token = csrf_token(client, "/signup")
    client.post(
        "/signup", {"username": "newcomer", "password": PASSWORD, "csrfmiddlewaretoken": token}
    )

    first = client.get("/").content.decode()
    later = client.get("/").content.decode()

    assert welcome_on(first) == "Welcome, newcomer"
    assert "Welcome back" not in first
    assert welcome_on(later) == "Welcome back, newcomer"


def test_it_welcomes_a_new_person_on_the_start_page_after_a_sign_up_sent_elsewhere() -> None:
    client = csrf_client()
    token = csrf_token(client, "/signup")
    client.post(
        "/signup?next=/lobby",
        {"username": "wanderer", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )

    assert "Welcome back" not in client.get("/lobby").content.decode()
    assert welcome_on(client.get("/").content.decode()) == "Welcome, wanderer"


def test_it_welcomes_back_a_person_who_logs_in() -> None:
    client, _ = logged_in("returning")

    page = client.get("/").content.decode()

    assert welcome_on(page) == "Welcome back, returning"


def test_it_shows_sign_up_errors_next_to_their_fields() -> None:
    create_person("taken", password=PASSWORD)
    client = Client()

    bad = client.post("/signup", {"username": "x!", "password": "short"}).content.decode()
    taken = client.post("/signup", {"username": "Taken", "password": PASSWORD}).content.decode()

    assert 'data-error-for="username"' in bad and "3 to 30 characters" in bad
    assert 'data-error-for="password"' in bad
    assert re.search(r'data-error-for="username">[^<]*taken', taken)


def test_it_refuses_a_form_sent_without_its_csrf_token() -> None:
    client = csrf_client()

    response = client.post("/signup", {"username": "ann", "password": PASSWORD})

    assert response.status_code == 403
    assert "security token" in response.content.decode()
    assert not Player.objects.filter(username="ann").exists()


def test_it_logs_in_and_honours_next_but_not_to_another_site() -> None:
    create_person("ann", password=PASSWORD)
    client = Client()

    wrong = client.post("/login", {"username": "ann", "password": "nope nope nope"})
    inside = client.post("/login?next=/tournaments", {"username": "ann", "password": PASSWORD})
    outside = client.post(
        "/login?next=https://evil.example/", {"username": "ann", "password": PASSWORD}
    )

    assert wrong.status_code == 400 and 'data-error-for="password"' in wrong.content.decode()
    assert inside["Location"] == "/tournaments"
    assert outside["Location"] == "/"


def test_it_lets_the_page_use_the_api_with_the_session_cookie_and_its_csrf_token() -> None:
    client, _ = logged_in()
    token = str(client.cookies["csrftoken"].value)
    body = {"rules": "classic", "rated": False, "move_seconds": 60}

    me = client.get("/api/v1/me")
    without_csrf = client.post("/api/v1/tables", body, content_type="application/json")
    with_csrf = client.post(
        "/api/v1/tables", body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )

    assert me.status_code == 200 and me.json()["username"] == "ann"
    assert set(me.json()["scopes"]) == {"play", "organise"}
    assert without_csrf.status_code == 403
    assert without_csrf.json()["error"]["code"] == "csrf_failed"
    assert with_csrf.status_code == 201
    assert Table.objects.count() == 1


def test_it_ends_the_api_session_at_log_out() -> None:
    client, _ = logged_in()
    token = str(client.cookies["csrftoken"].value)

    client.post("/logout", {"csrfmiddlewaretoken": token})

    assert client.get("/api/v1/me").status_code == 401
    assert ApiToken.objects.get(name="web session").revoked_at is not None


def test_it_prefers_an_authorization_header_to_the_session() -> None:
    client, _ = logged_in()
    bob = create_person("bob", password=PASSWORD)
    _, key = services_token(bob)

    me = client.get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {key}")

    assert me.json()["username"] == "bob"


def services_token(player: Player) -> tuple[ApiToken, str]:
    from accounts.services import new_token

    return new_token(player, scopes=["play"], name="test")


def test_it_creates_a_table_with_house_bots_and_goes_to_its_game() -> None:
    client, _ = logged_in()
    token = str(client.cookies["csrftoken"].value)

    response = client.post(
        "/lobby",
        {
            "csrfmiddlewaretoken": token,
            "preset": "kitty-first",
            "move_seconds": "30",
            "my_seat": "1",
            "rated": "on",
            "seat_0": "house:heuristic",
            "seat_2": "house:random",
            "max_hands": "2",
        },
    )

    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}"
    assert game.rules == {"preset": "kitty-first", "max_hands": 2}
    assert game.move_seconds == 30 and game.rated
    assert [s["username"] for s in game.seats] == ["house:heuristic", "ann", "house:random"]
    page = client.get(f"/games/{game.pk}").content.decode()
    assert f'data-game-id="{game.pk}"' in page and 'data-your-seat="1"' in page


def test_it_refuses_a_bot_in_the_creators_own_seat_and_bad_options() -> None:
    client, _ = logged_in()

    response = client.post(
        "/lobby",
        {
            "csrfmiddlewaretoken": str(client.cookies["csrftoken"].value),
            "preset": "classic",
            "move_seconds": "0",
            "my_seat": "0",
            "seat_0": "house:random",
        },
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert 'data-error-for="seat_0"' in page and 'data-error-for="move_seconds"' in page
    assert not Table.objects.exists()


def test_it_seats_the_creators_own_bot_but_offers_no_one_elses() -> None:
    client, ann = logged_in()
    create_bot_player(ann, username="annbot")
    bob = create_person("bob", password=PASSWORD)
    create_bot_player(bob, username="bobbot")

    page = client.get("/lobby").content.decode()

    assert 'value="annbot"' in page and "bobbot" not in page


def test_it_joins_leaves_and_cancels_open_tables_from_the_lobby() -> None:
    client, ann = logged_in()
    bob = create_person("bob", password=PASSWORD)
    token = str(client.cookies["csrftoken"].value)
    bobs = tables.create_table(bob, rules="classic", rated=False, move_seconds=60, seat=0)
    mine = tables.create_table(ann, rules="classic", rated=False, move_seconds=60, seat=0)

    lobby = client.get("/lobby").content.decode()
    client.post(f"/tables/{bobs.pk}/join", {"seat": "2", "csrfmiddlewaretoken": token})
    after_join = [s.player_id for s in bobs.seats.order_by("seat")]
    client.post(f"/tables/{bobs.pk}/leave", {"csrfmiddlewaretoken": token})
    refused = client.post(f"/tables/{bobs.pk}/cancel", {"csrfmiddlewaretoken": token})
    client.post(f"/tables/{mine.pk}/cancel", {"csrfmiddlewaretoken": token})

    assert f'id="table-{bobs.pk}"' in lobby and 'data-action="join"' in lobby
    assert after_join == [bob.pk, None, ann.pk]
    assert not bobs.seats.filter(player=ann).exists()
    assert refused.status_code == 302 and Table.objects.filter(pk=bobs.pk).exists()
    assert not Table.objects.filter(pk=mine.pk).exists()


def test_it_sends_a_visitor_who_wants_to_join_to_log_in() -> None:
    bob = create_person("bob", password=PASSWORD)
    table = tables.create_table(bob, rules="classic", rated=False, move_seconds=60, seat=0)

    response = Client().post(f"/tables/{table.pk}/join", {"seat": "1"})

    assert response.status_code == 302
    assert response["Location"].startswith(f"/login?next=/tables/{table.pk}/join")


def test_it_shows_a_spectator_the_public_view_without_any_hand() -> None:
    ann, bob, cy = (create_person(n, password=PASSWORD) for n in ("ann", "bob", "cy"))
    table = tables.create_table(ann, rules="classic", rated=False, move_seconds=60, seat=0)
    tables.join_table(bob, table_id=table.pk, seat=None)
    tables.join_table(cy, table_id=table.pk, seat=None)
    game = Game.objects.get()
    hands = game.engine().view(0)["your_hand"], game.engine().view(1)["your_hand"]

    page = Client().get(f"/games/{game.pk}").content.decode()
    part = Client().get(f"/games/{game.pk}/table").content.decode()

    for shown in (page, part):
        assert f'data-game-id="{game.pk}"' in shown and "data-your-seat" not in shown
        assert 'data-status="playing"' in shown
        for card in {*hands[0], *hands[1]}:
            assert f'"{card}"' not in shown and f"'{card}'" not in shown
    assert part.lstrip().startswith("<main")


def test_it_answers_browsers_with_html_404s_and_the_api_with_json() -> None:
    client = Client()

    page = client.get("/no-such-page")
    game = client.get("/games/999999")
    api = client.get("/api/v1/no-such-thing")

    assert page.status_code == 404 and "text/html" in page["Content-Type"]
    assert "There is no page" in page.content.decode()
    assert game.status_code == 404 and "text/html" in game["Content-Type"]
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"


def test_it_shows_the_start_page_to_visitors_and_the_games_waiting_on_a_person() -> None:
    visitor = Client().get("/").content.decode()
    ann = create_person("ann", password=PASSWORD)
    client = Client()
    client.force_login(ann)
    tables.set_up_table(
        ann,
        rules="classic",
        rated=False,
        move_seconds=60,
        seat=0,
        bots={1: "house:random", 2: "house:random"},
    )
    game = Game.objects.get()

    home = client.get("/").content.decode()

    assert "/signup" in visitor and "/login" in visitor
    assert f'data-game-id="{game.pk}"' in home
    # The first dealer is drawn at random; the dealer acts first (trump).
    assert (f'data-waiting-game="{game.pk}"' in home) == (0 in game.to_act)


def page_of(person: Player, game: Game) -> str:
    client = Client()
    client.force_login(person)
    return str(client.get(f"/games/{game.pk}/table").content.decode())


def test_it_offers_the_woburn_bids_and_pass_to_the_bidder_only() -> None:
    game, people = seated_game("woburn")
    game = play_until(game, people, "bid")
    bidder = game.to_act[0]
    legal = {a["tricks"] for a in game.engine().view(bidder)["legal_actions"] if a["type"] == "bid"}

    mine = page_of(people[bidder], game)
    other = page_of(people[(bidder + 1) % 3], game)

    enabled = set(
        map(int, re.findall(r'data-bid="(\d+)" data-send="[^"]*" aria-label="[^"]*">', mine))
    )
    assert enabled == legal
    assert re.search(r'data-action="pass" data-send=\S+>', mine)
    assert "data-bid=" not in other and 'data-action="pass"' not in other


def test_it_offers_the_single_kitty_swap_of_any_card_or_none() -> None:
    game, people = seated_game("9-5-3-single-kitty")
    game = play_until(game, people, "swap")
    holder = game.to_act[0]
    hand = game.engine().view(holder)["your_hand"]

    page = page_of(people[holder], game)

    for card in hand:
        assert re.search(rf'data-card="{card}" data-send="[^"]*swap[^"]*"', page)
    assert 'data-action="no_swap"' in page
    face_up = game.engine().view(None)["face_up"]
    assert f'data-card="{face_up}"' in page


def test_it_lets_the_dealer_pick_a_discard_and_shows_the_kitty_to_the_dealer_only() -> None:
    game, people = seated_game("kitty-first")
    game = play_until(game, people, "discard")
    dealer = game.to_act[0]
    kitty = game.engine().view(dealer)["your_kitty"]

    page = page_of(people[dealer], game)
    other = page_of(people[(dealer + 1) % 3], game)

    assert 'data-choice="discard" data-count="4"' in page
    assert page.count('aria-pressed="false"') >= 20  # the 20 cards of hand and kitty
    assert 'data-action="confirm" disabled' in page
    for card in kitty:
        assert f'data-card="{card}"' in page and f'"{card}"' not in other


def test_it_revokes_the_tokens_of_browser_sessions_that_have_expired() -> None:
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from accounts.services import end_expired_browser_sessions

    client, _ = logged_in()
    logged_in("bob")
    old = ApiToken.objects.get(player__username="ann")
    ApiToken.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE + 60)
    )

    assert end_expired_browser_sessions() == 1

    assert client.get("/api/v1/me").status_code == 401
    assert ApiToken.objects.get(player__username="bob").revoked_at is None


def test_it_answers_a_server_error_with_an_html_page_or_the_apis_json() -> None:
    from django.test import RequestFactory

    from web.views.errors import server_error

    page = server_error(RequestFactory().get("/lobby"))
    api = server_error(RequestFactory().get("/api/v1/me"))

    assert page.status_code == 500 and b"Something went wrong" in page.content
    assert b"<html" in page.content
    assert api.status_code == 500 and b'"server_error"' in api.content


def test_it_names_the_seats_of_a_tournament_game_as_its_entrants_and_links_back() -> None:
    from tests.tournament_helpers import new_tournament
    from tournaments.services import entries, running

    ann = create_person("ann", password=PASSWORD)
    tournament = new_tournament(ann, [ann], rounds=1)
    entries.add_entrant(ann, tournament_id=tournament.pk, username="house:random")
    entries.add_entrant(ann, tournament_id=tournament.pk, username="house:random")
    running.start(ann, tournament_id=tournament.pk)
    game = Game.objects.get()

    page = Client().get(f"/games/{game.pk}").content.decode()

    assert f'href="/tournaments/{tournament.pk}" data-tournament="{tournament.pk}"' in page
    assert "house:random #1" in page and "house:random #2" in page


def test_it_refuses_a_fourth_seat_at_a_three_seat_table_and_takes_it_at_four() -> None:
    client, _ = logged_in()
    form = {
        "csrfmiddlewaretoken": str(client.cookies["csrftoken"].value),
        "move_seconds": "60",
        "my_seat": "0",
        "seat_1": "house:random",
        "seat_2": "house:random",
        "seat_3": "house:random",
    }

    refused = client.post("/lobby", {**form, "preset": "classic"})
    taken = client.post("/lobby", {**form, "preset": "four-handed"})

    assert refused.status_code == 400
    assert re.search(r'data-error-for="seat_3">[^<]*3 seats', refused.content.decode())
    assert taken.status_code == 302
    assert len(Game.objects.get().seats) == 4
