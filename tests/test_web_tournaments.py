"""The tournament pages (docs/web.md "Tournaments"): the list, the organiser's form, a
tournament's page with its standings, rounds and cross-tables, the entrants' and the
organisers' forms, and the live part the page's script fetches."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from accounts.services import create_person
from clubs.services import create_club, join
from games.models import Game
from ratings.models import Rating
from tests.conftest import WorkerInfo
from tests.support import wait_until
from tests.tournament_helpers import PASSWORD, new_tournament, play_fallbacks
from tournaments import selectors
from tournaments.models import AuditEntry, Entrant, ForbiddenPair, Round, Tournament
from tournaments.services import entries, running, setup, table_results


def person(username: str) -> Player:
    return create_person(username, password=PASSWORD)


def logged_in(player: Player) -> Client:
    client = Client()
    client.force_login(player)
    return client


def html(response: Any) -> str:
    return str(response.content.decode())


def standings_on_page(page: str) -> list[str]:
    section = page.split('id="standings"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr data-username="([^"]+)"', section)


def api_standings(tournament_id: int) -> list[dict[str, Any]]:
    response = Client().get(f"/api/v1/tournaments/{tournament_id}/standings")
    assert response.status_code == 200
    page = json.loads(response.content)
    assert page["next"] is None  # one page: every line
    rows = page["results"]
    assert isinstance(rows, list)
    return rows


def shown(points: float) -> str:
    """Points as the page shows them: at most two decimals."""
    return f"{points:.2f}".rstrip("0").rstrip(".")


def section(page: str, marker: str) -> str:
    """The part of the page from ``marker`` to the end of its <section>."""
    return page.split(marker, 1)[1].split("</section>", 1)[0]


def run_here(tournament_id: int) -> Tournament:
    """Play every game by the fallback moves and advance the rounds in this process (what
    the worker does), to the end."""
    for _ in range(50):
        tournament = Tournament.objects.get(pk=tournament_id)
        if tournament.status == Tournament.Status.FINISHED:
            return tournament
        playing = Game.objects.filter(
            tournament_table__round__tournament_id=tournament_id, status=Game.Status.PLAYING
        )
        for game_id in playing.values_list("pk", flat=True):
            play_fallbacks(game_id)
        running.advance(tournament_id=tournament_id)
    raise AssertionError("the tournament did not finish")


ORGANISER_HOOKS = (
    'data-action="start"',
    'data-action="add-entrant"',
    'data-action="add-house-bot"',
    'data-action="remove-entrant"',
    'data-action="add-pair"',
    'data-action="add-organiser"',
    'data-action="save-settings"',
    'data-action="adjudicate"',
)

FORM = {
    "name": "Spring series",
    "preset": "kitty-first",
    "hands_per_game": "2",
    "format": "round_robin",
    "rounds": "4",
    "move_seconds": "45",
    "round_minutes": "90",
    "starts_at": "2031-05-02T19:30",
    "max_players": "12",
    "min_rating": "",
    "max_rating": "",
    "humans_allowed": "on",
    "odd_count": "byes",
    "filler_bot": "house:heuristic",
    "points_by_rank": "4, 2, 0",
    "advance_per_table": "1",
}


# --- The list -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_lists_running_upcoming_and_finished_tournaments_apart() -> None:
    ann, bob, cat = person("ann"), person("bob"), person("cat")
    upcoming = new_tournament(ann, [bob], name="Open doors", starts_at=None)
    under_way = new_tournament(ann, [ann, bob, cat], name="Thursday swiss", rounds=3)
    running.start(ann, tournament_id=under_way.pk)
    finished = new_tournament(ann, [ann, bob, cat], name="Last year's final", rounds=1)
    running.start(ann, tournament_id=finished.pk)
    run_here(finished.pk)

    page = html(Client().get("/tournaments"))

    groups = {
        name: section(page, f'data-group="{name}"') for name in ("running", "upcoming", "finished")
    }
    assert f'href="/tournaments/{under_way.pk}">Thursday swiss</a>' in groups["running"]
    assert f'href="/tournaments/{upcoming.pk}">Open doors</a>' in groups["upcoming"]
    assert f'href="/tournaments/{finished.pk}">Last year' in groups["finished"]
    for name, group in groups.items():
        shown = re.findall(r'data-tournament-id="(\d+)"', group)
        assert len(shown) == 1, name
    running_row = groups["running"].split(f'data-tournament-id="{under_way.pk}"')[1]
    assert "Swiss" in running_row and "classic" in running_row
    assert re.search(r'<td class="num" data-label="Entrants">3</td>', running_row)
    assert re.search(r'<td class="num" data-label="Rounds">1 of 3</td>', running_row)
    assert "<time" in running_row  # the start time
    assert "when an organiser starts it" in groups["upcoming"]


@pytest.mark.django_db
def test_it_pages_the_finished_tournaments() -> None:
    ann = person("ann")
    made = [new_tournament(ann, [], name=f"Old {n:02d}") for n in range(22)]
    Tournament.objects.filter(pk__in=[t.pk for t in made]).update(status="finished")

    first = section(html(Client().get("/tournaments")), 'data-group="finished"')
    second = section(html(Client().get("/tournaments?page=2")), 'data-group="finished"')

    newest_first = [str(t.pk) for t in reversed(made)]
    assert re.findall(r'data-tournament-id="(\d+)"', first) == newest_first[:20]
    assert re.findall(r'data-tournament-id="(\d+)"', second) == newest_first[20:]
    assert 'href="?page=2#finished"' in first and 'href="?page=1#finished"' in second


# --- The organiser's form -------------------------------------------------------------------


@pytest.mark.django_db
def test_it_sends_visitors_to_log_in_before_organising() -> None:
    response = Client().get("/tournaments/new")

    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=/tournaments/new")


@pytest.mark.django_db
def test_it_creates_a_tournament_with_every_setting_of_the_form() -> None:
    ann = person("ann")
    client = logged_in(ann)
    form_page = html(client.get("/tournaments/new"))
    for name in FORM:
        assert f'name="{name}"' in form_page, name
    assert 'name="rated"' in form_page and 'name="bots_allowed"' in form_page

    response = client.post("/tournaments/new", FORM)  # rated and bots_allowed: unchecked

    created = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{created.pk}"
    assert created.created_by == ann
    assert created.name == "Spring series"
    assert created.rules == {"preset": "kitty-first"}
    assert (created.format, created.rounds, created.hands_per_game) == ("round_robin", 4, 2)
    assert (created.move_seconds, created.round_minutes) == (45, 90)
    assert created.starts_at == datetime(2031, 5, 2, 19, 30, tzinfo=UTC)
    assert (created.rated, created.humans_allowed, created.bots_allowed) == (False, True, False)
    assert (created.max_players, created.min_rating, created.max_rating) == (12, None, None)
    assert (created.odd_count, created.filler_bot) == ("byes", "house:heuristic")
    assert created.points_by_rank == [4, 2, 0]
    page = html(client.get(response["Location"]))
    assert "Spring series" in page and "Round robin" in page


@pytest.mark.django_db
def test_it_shows_every_error_next_to_its_field_at_once() -> None:
    client = logged_in(person("ann"))

    response = client.post(
        "/tournaments/new",
        {
            **FORM,
            "name": "",
            "rounds": "three",
            "move_seconds": "0",
            "points_by_rank": "3, 1",
            "max_players": "2",
        },
    )

    page = html(response)
    assert response.status_code == 400
    assert not Tournament.objects.exists()
    # Read by the form (name, rounds), checked by the API's serializer (the others).
    for field in ("name", "rounds", "move_seconds", "points_by_rank", "max_players"):
        assert f'data-error-for="{field}"' in page, field
    assert 'data-error-for="round_minutes"' not in page
    assert "Ensure this field has at least 3 elements." in page
    assert 'value="90"' in page  # what was typed stays


@pytest.mark.django_db
def test_it_shows_the_services_refusals_on_the_form() -> None:
    client = logged_in(person("ann"))

    knockout_rounds = client.post("/tournaments/new", {**FORM, "format": "knockout"})
    nobody = client.post(
        "/tournaments/new", {k: v for k, v in FORM.items() if k != "humans_allowed"}
    )

    assert knockout_rounds.status_code == nobody.status_code == 400
    assert 'data-error-for="__all__"' in html(knockout_rounds)
    assert "omit rounds" in html(knockout_rounds)
    assert "allow humans, bots or both" in html(nobody)
    assert not Tournament.objects.exists()


def error_shown_for(page: str, field: str) -> str:
    """The error the page shows next to ``field`` (empty if none)."""
    found = re.search(rf'data-error-for="{field}">(.*?)</p>', page, re.S)
    return found.group(1) if found else ""


@pytest.mark.django_db
def test_it_creates_an_in_person_night_of_a_club_the_organiser_runs() -> None:
    ann = person("ann")
    create_club(ann, name="The Crown", slug="crown", joining="open")
    create_club(person("bob"), name="Elsewhere", slug="elsewhere", joining="open")
    client = logged_in(ann)

    form_page = html(client.get("/tournaments/new?club=crown"))
    response = client.post("/tournaments/new", {**FORM, "venue": "in_person", "club": "crown"})

    assert '<select name="venue"' in form_page and 'value="in_person"' in form_page
    club_field = form_page.split('<select name="club"', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="([^"]*)"', club_field) == ["", "crown"]
    assert '<option value="crown" selected>The Crown</option>' in club_field
    created = Tournament.objects.get()
    assert response.status_code == 302
    api = json.loads(Client().get(f"/api/v1/tournaments/{created.pk}").content)
    assert (api["venue"], api["club"], api["odd_count"]) == ("in_person", "crown", "byes")
    page = html(client.get(response["Location"]))
    assert 'data-club="crown"' in page and "in person, at real tables" in page


@pytest.mark.django_db
def test_it_creates_an_online_tournament_of_no_club_by_default() -> None:
    ann = person("ann")
    create_club(ann, name="The Crown", slug="crown", joining="open")
    client = logged_in(ann)

    form_page = html(client.get("/tournaments/new"))
    client.post("/tournaments/new", {**FORM, "venue": "online", "club": ""})

    assert '<option value="" selected>no club</option>' in form_page
    assert '<option value="online" selected>' in form_page
    created = Tournament.objects.get()
    assert (created.venue, created.club) == ("online", None)


@pytest.mark.django_db
def test_it_shows_the_services_refusal_of_a_club_next_to_the_club_field() -> None:
    ann = person("ann")
    create_club(ann, name="The Crown", slug="crown", joining="open")
    bob = person("bob")
    join(bob, slug="crown")
    client = logged_in(bob)

    member = client.post("/tournaments/new", {**FORM, "venue": "in_person", "club": "crown"})
    unknown = client.post("/tournaments/new", {**FORM, "club": "nowhere"})

    assert member.status_code == unknown.status_code == 400
    assert "Only an admin of" in error_shown_for(html(member), "club")
    assert "No club" in error_shown_for(html(unknown), "club")
    assert '<option value="crown" selected>crown</option>' in html(member)  # as sent
    assert not Tournament.objects.exists()


@pytest.mark.django_db
def test_it_lets_the_organiser_change_the_venue_and_the_club_before_the_start() -> None:
    ann = person("ann")
    create_club(ann, name="The Crown", slug="crown", joining="open")
    tournament = new_tournament(ann, [], name="Draft")
    client = logged_in(ann)
    base = f"/tournaments/{tournament.pk}"
    page = html(client.get(base))
    assert '<select name="settings-venue"' in page and '<select name="settings-club"' in page
    fields = {
        "settings-name": "Draft",
        "settings-venue": "in_person",
        "settings-club": "crown",
        "settings-preset": "classic",
        "settings-hands_per_game": "1",
        "settings-format": "swiss",
        "settings-rounds": "3",
        "settings-move_seconds": "600",
        "settings-round_minutes": "60",
        "settings-rated": "on",
        "settings-humans_allowed": "on",
        "settings-bots_allowed": "on",
        "settings-odd_count": "fillers",
        "settings-filler_bot": "house:random",
        "settings-points_by_rank": "3, 1, 0",
        "settings-advance_per_table": "1",
    }

    setup.add_co_organiser(ann, tournament_id=tournament.pk, username=person("bob").username)
    # A co-organiser who runs no club may not name one.
    refused = logged_in(Player.objects.get(username="bob")).post(f"{base}/settings", fields)
    saved = client.post(f"{base}/settings", fields)

    tournament.refresh_from_db()
    assert saved.status_code == 302
    assert (tournament.venue, tournament.club.slug if tournament.club else None) == (
        "in_person",
        "crown",
    )
    configured = AuditEntry.objects.filter(tournament=tournament, action="configured").get()
    assert configured.details == {"changes": {"venue": "in_person", "club": "crown"}}
    assert refused.status_code == 400
    assert "Only an admin of" in error_shown_for(html(refused), "settings-club")


# --- The organiser's controls ---------------------------------------------------------------


@pytest.mark.django_db
def test_it_lets_the_organiser_add_house_bots_and_people_then_start() -> None:
    ann, bob = person("ann"), person("bob")
    tournament = new_tournament(ann, [], name="Bots and Bob", rounds=2)
    client = logged_in(ann)
    base = f"/tournaments/{tournament.pk}"
    page = html(client.get(base))
    for hook in ('data-action="start"', 'data-action="add-house-bot"', 'data-action="add-entrant"'):
        assert hook in page

    for player in ("house:random", "house:random", "house:strong"):
        response = client.post(f"{base}/entrants", {"player": player})
        assert response.status_code == 302
    # Bob is a person: he is invited, and entered once he accepts on the page.
    invited = html(client.post(f"{base}/entrants", {"player": "bob"}, follow=True))
    assert "Invited bob" in invited
    assert 'data-action="cancel-invitation"' in section(invited, 'id="organise"')
    bobs_page = html(logged_in(bob).get(base))
    assert "ann invited you to play." in bobs_page
    assert 'data-action="decline-invitation"' in bobs_page
    accepted = logged_in(bob).post(f"{base}/register", follow=True)
    assert "You are entered." in html(accepted)
    client.post(f"{base}/entrants", {"player": "house:heuristic"})
    client.post(f"{base}/entrants/remove", {"name": "house:heuristic #1"})
    missing = client.post(f"{base}/entrants", {"player": "nobody"}, follow=True)
    assert "No player" in html(missing)

    entrants = list(Entrant.objects.filter(tournament=tournament).values_list("name", flat=True))
    assert entrants == ["house:random #1", "house:random #2", "house:strong #1", "bob"]
    page = html(client.get(base))
    assert re.findall(r'<tr data-entrant="([^"]+)"', page) == entrants
    assert f'href="/players/{bob.username}">bob</a>' in page

    started = client.post(f"{base}/start", follow=True)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    page = html(started)
    assert "Started" in page
    games = Game.objects.filter(tournament_table__round__tournament=tournament)
    assert games.count() == 2  # four entrants: two tables, each with a filler
    round_one = section(page, 'id="round-1"')
    for game in games:
        assert f'data-game-id="{game.pk}"' in round_one
        assert f'href="/games/{game.pk}"' in round_one
    assert 'data-action="start"' not in page
    assert 'data-action="remove-entrant"' in page  # now: withdraw an entrant
    assert standings_on_page(page) == [row["username"] for row in api_standings(tournament.pk)]
    assert 'data-live-url="/tournaments/' in page and "tournament.js" in page


@pytest.mark.django_db
def test_it_lets_the_organiser_withdraw_an_entrant_once_it_runs() -> None:
    ann, bob, cat, dan = person("ann"), person("bob"), person("cat"), person("dan")
    tournament = new_tournament(ann, [bob, cat, dan], rounds=2)
    running.start(ann, tournament_id=tournament.pk)
    base = f"/tournaments/{tournament.pk}"

    page = html(logged_in(ann).post(f"{base}/entrants/remove", {"name": "dan"}, follow=True))

    assert Entrant.objects.get(tournament=tournament, name="dan").status == "withdrawn"
    row = section(page, 'id="standings"').split('data-username="dan"', 1)[1].split("</tr>")[0]
    assert '<span class="badge">withdrawn</span>' in row
    assert 'aria-label="Withdraw bob"' in page and 'aria-label="Withdraw dan"' not in page


@pytest.mark.django_db
def test_it_refuses_to_start_with_too_few_entrants() -> None:
    ann = person("ann")
    tournament = new_tournament(ann, [ann])

    page = html(logged_in(ann).post(f"/tournaments/{tournament.pk}/start", follow=True))

    assert "A tournament needs at least 3 entrants." in page
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.REGISTERING


@pytest.mark.django_db
def test_it_lets_the_organiser_keep_players_apart_and_share_the_organising() -> None:
    ann, bob, cat, dan = person("ann"), person("bob"), person("cat"), person("dan")
    tournament = new_tournament(ann, [bob, cat])
    client = logged_in(ann)
    base = f"/tournaments/{tournament.pk}"

    client.post(f"{base}/forbidden-pairs", {"first": "bob", "second": "cat"})
    client.post(f"{base}/organisers", {"username": "dan"})
    page = html(client.get(base))

    pair = ForbiddenPair.objects.get(tournament=tournament)
    assert f'data-pair="{pair.pk}"' in page
    assert "Organised by ann, dan" in page
    assert "Organised by ann, dan" in html(Client().get(base))
    # The co-organiser now sees the controls.
    assert 'data-action="start"' in html(logged_in(dan).get(base))

    client.post(f"{base}/forbidden-pairs/{pair.pk}/remove")
    client.post(f"{base}/organisers/remove", {"username": "dan"})
    again = html(
        client.post(f"{base}/forbidden-pairs", {"first": "bob", "second": ""}, follow=True)
    )

    assert not ForbiddenPair.objects.filter(tournament=tournament).exists()
    assert not tournament.co_organisers.exists()
    assert "players: item 2: This field may not be blank." in again
    actions = list(
        AuditEntry.objects.filter(tournament=tournament).values_list("action", flat=True)
    )
    assert actions[-4:] == [
        "forbidden_pair_added",
        "co_organiser_added",
        "forbidden_pair_removed",
        "co_organiser_removed",
    ]


@pytest.mark.django_db
def test_it_changes_only_the_settings_the_organiser_changed() -> None:
    ann = person("ann")
    tournament = new_tournament(ann, [], name="Draft", rounds=3)
    client = logged_in(ann)
    base = f"/tournaments/{tournament.pk}"
    page = html(client.get(base))
    assert 'name="settings-name" value="Draft"' in page
    fields = {
        "settings-name": "Final name",
        "settings-preset": "classic",
        "settings-hands_per_game": "1",
        "settings-format": "swiss",
        "settings-rounds": "5",
        "settings-move_seconds": "600",
        "settings-round_minutes": "60",
        "settings-starts_at": "",
        "settings-rated": "on",
        "settings-humans_allowed": "on",
        "settings-bots_allowed": "on",
        "settings-odd_count": "fillers",
        "settings-filler_bot": "house:random",
        "settings-points_by_rank": "3, 1, 0",
        "settings-advance_per_table": "1",
    }

    saved = client.post(f"{base}/settings", fields)
    bad = client.post(f"{base}/settings", {**fields, "settings-round_minutes": "0"})

    tournament.refresh_from_db()
    assert saved.status_code == 302
    assert (tournament.name, tournament.rounds, tournament.round_minutes) == ("Final name", 5, 60)
    configured = AuditEntry.objects.filter(tournament=tournament, action="configured").get()
    assert configured.details == {"changes": {"name": "Final name", "rounds": 5}}
    assert bad.status_code == 400
    assert 'data-error-for="settings-round_minutes"' in html(bad)


@pytest.mark.django_db
def test_it_lets_the_organiser_adjudicate_a_table_after_the_deadline() -> None:
    ann, bob, cat = person("ann"), person("bob"), person("cat")
    tournament = new_tournament(ann, [ann, bob, cat], rounds=1)
    running.start(ann, tournament_id=tournament.pk)
    client = logged_in(ann)
    base = f"/tournaments/{tournament.pk}"
    assert 'data-action="adjudicate"' not in html(client.get(base))

    Round.objects.filter(tournament=tournament).update(
        deadline=timezone.now() - timedelta(minutes=1)
    )
    page = html(client.get(base))
    assert 'data-action="adjudicate"' in page and "overdue" in page
    client.post(f"{base}/rounds/1/tables/1/adjudicate")

    game = Game.objects.get(tournament_table__round__tournament=tournament)
    assert game.status == Game.Status.FINISHED
    assert game.tournament_table.adjudicated


@pytest.mark.django_db
def test_it_shows_no_organiser_controls_to_others_and_refuses_their_forms() -> None:
    ann, bob = person("ann"), person("bob")
    person("cat")
    tournament = new_tournament(ann, [ann, bob], rounds=1)
    base = f"/tournaments/{tournament.pk}"
    bobs = logged_in(bob)
    for viewer in (bobs, Client()):
        page = html(viewer.get(base))
        for hook in ORGANISER_HOOKS:
            assert hook not in page, hook
    audit_before = AuditEntry.objects.filter(tournament=tournament).count()

    refused = [
        bobs.post(f"{base}/entrants", {"player": "house:random"}, follow=True),
        bobs.post(f"{base}/entrants/remove", {"name": "ann"}, follow=True),
        bobs.post(f"{base}/forbidden-pairs", {"first": "ann", "second": "cat"}, follow=True),
        bobs.post(f"{base}/organisers", {"username": "bob"}, follow=True),
        bobs.post(f"{base}/organisers/remove", {"username": "ann"}, follow=True),
        bobs.post(f"{base}/settings", {"settings-name": "Mine"}, follow=True),
        bobs.post(f"{base}/rounds/1/tables/1/adjudicate", follow=True),
        bobs.post(f"{base}/start", follow=True),
    ]

    for response in refused:
        assert "Only the tournament&#x27;s organisers may" in html(response)
    assert Client().post(f"{base}/start")["Location"].startswith("/login")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTERING
    assert tournament.name == "Club night"
    assert list(tournament.entrants.values_list("name", flat=True)) == ["ann", "bob"]
    assert not tournament.co_organisers.exists() and not tournament.forbidden_pairs.exists()
    assert AuditEntry.objects.filter(tournament=tournament).count() == audit_before


# --- Entering -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_lets_a_person_enter_and_withdraw() -> None:
    ann, bob = person("ann"), person("bob")
    tournament = new_tournament(ann, [])
    base = f"/tournaments/{tournament.pk}"
    bobs = logged_in(bob)
    assert 'href="/login?next=/tournaments/' in html(Client().get(base))
    assert 'data-action="register"' in html(bobs.get(base))

    entered = html(bobs.post(f"{base}/register", follow=True))

    assert Entrant.objects.filter(tournament=tournament, player=bob).exists()
    assert "You are entered" in entered and 'data-action="withdraw"' in entered
    assert 'data-action="register"' not in entered
    twice = html(bobs.post(f"{base}/register", follow=True))
    assert "already entered" in twice

    left = html(bobs.post(f"{base}/withdraw", follow=True))

    assert not Entrant.objects.filter(tournament=tournament, player=bob).exists()
    assert "You have withdrawn" in left and 'data-action="register"' in left


@pytest.mark.django_db
def test_it_tells_a_person_when_a_tournament_is_for_bots_only() -> None:
    ann, bob = person("ann"), person("bob")
    tournament = new_tournament(ann, [], humans_allowed=False)
    base = f"/tournaments/{tournament.pk}"

    assert 'data-action="register"' not in html(logged_in(bob).get(base))
    refused = html(logged_in(bob).post(f"{base}/register", follow=True))

    assert "for bots only" in refused
    assert not Entrant.objects.filter(tournament=tournament).exists()


# --- Standings, rounds and cross-tables -----------------------------------------------------


@pytest.mark.django_db
def test_it_shows_the_standings_of_the_api_with_every_tiebreak() -> None:
    ann = person("ann")
    entrants = [person(name) for name in ("bob", "cat", "dan", "eve", "fay")]
    tournament = new_tournament(ann, entrants, rounds=2, odd_count="byes")
    running.start(ann, tournament_id=tournament.pk)
    run_here(tournament.pk)

    page = html(Client().get(f"/tournaments/{tournament.pk}"))

    rows = api_standings(tournament.pk)
    assert standings_on_page(page) == [row["username"] for row in rows]
    table = section(page, 'id="standings"')
    for row in rows:
        line = table.split(f'data-username="{row["username"]}"', 1)[1].split("</tr>", 1)[0]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", line, re.S)
        numbers = [re.sub(r"<[^>]+>", "", c).strip() for c in cells]
        assert numbers[0] == str(row["rank"])
        assert numbers[2:] == [
            shown(row["points"]),
            str(row["stakes"]),
            shown(row["opponents_points"]),
            str(row["head_to_head"]),
            str(row["games"]),
            str(row["byes"]),
        ]
    assert "Final standings" in page
    assert "Winner" in page and "data-live-url" in page and "tournament.js" not in page
    grid = section(page, 'id="crosstable"')
    assert re.findall(r'data-crosstable-row="([^"]+)"', grid) == [r["username"] for r in rows]
    assert grid.count('class="chip bye"') == 4  # 5 players: one table and two byes a round
    for game_id in Game.objects.filter(tournament_table__round__tournament=tournament).values_list(
        "pk", flat=True
    ):
        assert f'href="/games/{game_id}"' in grid


@pytest.mark.django_db
def test_it_draws_a_round_robins_cross_table_of_everyone_against_everyone() -> None:
    ann = person("ann")
    players = [person(name) for name in ("bob", "cat", "dan", "eve", "fay", "gus")]
    tournament = new_tournament(ann, players, format="round_robin", rounds=2)
    running.start(ann, tournament_id=tournament.pk)
    run_here(tournament.pk)

    page = html(Client().get(f"/tournaments/{tournament.pk}"))

    matrix = section(page, 'id="meetings"')
    rows = matrix.split("<tbody>", 1)[1].split("<tr>")[1:]
    assert len(rows) == 6
    names = [row["username"] for row in api_standings(tournament.pk)]
    for name, row in zip(names, rows, strict=True):
        assert f"</span> {name}</th>" in row
        assert row.count('class="num cell self"') == 1
        # Two rounds at tables of three: two table-mates each round.
        assert len(re.findall(r'class="chip (ahead|behind|level)"', row)) == 4
    assert "Cross-table" in page


# --- Live -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_serves_the_live_part_and_says_when_it_has_not_changed() -> None:
    ann, bob, cat = person("ann"), person("bob"), person("cat")
    tournament = new_tournament(ann, [ann, bob])
    live = f"/tournaments/{tournament.pk}/live"
    viewer = Client()

    first = viewer.get(live)
    etag = first["ETag"]
    unchanged = viewer.get(live, headers={"If-None-Match": etag})
    entries.register(cat, tournament_id=tournament.pk)
    changed = viewer.get(live, headers={"If-None-Match": etag})

    assert first.status_code == 200
    part = html(first)
    assert '<div id="tournament-live"' in part and "<html" not in part
    assert re.findall(r'<tr data-entrant="([^"]+)"', part) == ["ann", "bob"]
    assert unchanged.status_code == 304
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert re.findall(r'<tr data-entrant="([^"]+)"', html(changed)) == ["ann", "bob", "cat"]
    page = html(viewer.get(f"/tournaments/{tournament.pk}"))
    assert f'data-version="{changed["ETag"].strip(chr(34))}"' in page
    assert 'data-poll-seconds="10"' in page and "web/tournament.js" in page

    running.start(ann, tournament_id=tournament.pk)
    started = html(viewer.get(live))
    assert 'data-status="running"' in started and 'data-poll-seconds="4"' in started
    assert standings_on_page(started) == [r["username"] for r in api_standings(tournament.pk)]


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_tournament() -> None:
    assert Client().get("/tournaments/999").status_code == 404
    assert Client().get("/tournaments/999/live").status_code == 404


# --- End to end, on the real worker ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_runs_a_swiss_of_house_bots_organised_from_the_pages(celery_worker: WorkerInfo) -> None:
    ann = person("ann")
    client = logged_in(ann)
    created = client.post(
        "/tournaments/new",
        {
            **FORM,
            "name": "Bots' night",
            "format": "swiss",
            "rounds": "2",
            "hands_per_game": "1",
            "move_seconds": "30",
            "starts_at": "",
            "bots_allowed": "on",
            "odd_count": "fillers",
            "points_by_rank": "3, 1, 0",
        },
    )
    base = created["Location"]
    tournament_id = int(base.rsplit("/", 1)[1])
    for bot in ["house:random", "house:heuristic", "house:strong"] * 2:
        client.post(f"{base}/entrants", {"player": bot})
    client.post(f"{base}/start")

    wait_until(
        lambda: Tournament.objects.filter(pk=tournament_id, status="finished").exists(),
        timeout=240,
        interval=0.25,
        what="the house bots' tournament to finish",
    )

    page = html(Client().get(base))
    rows = api_standings(tournament_id)
    assert len(rows) == 6 and {row["games"] for row in rows} == {2}
    assert standings_on_page(page) == [row["username"] for row in rows]
    assert standings_on_page(html(Client().get(f"{base}/live"))) == standings_on_page(page)
    for game in Game.objects.filter(tournament_table__round__tournament_id=tournament_id):
        assert f'href="/games/{game.pk}"' in page


@pytest.mark.django_db
def test_it_takes_and_shows_rating_limits_as_display_ratings() -> None:
    # The pages' rating limits are display ratings (docs/ratings.md); the API keeps ordinals.
    client = logged_in(person("ann"))

    response = client.post("/tournaments/new", FORM | {"min_rating": "1750", "max_rating": "2100"})

    created = Tournament.objects.get()
    assert response.status_code == 302
    assert (created.min_rating, created.max_rating) == (10.0, 24.0)
    page = html(client.get(response["Location"]))
    assert "1750 to 2100" in page
    settings_form = html(client.get(f"/tournaments/{created.pk}"))
    assert 'value="1750"' in settings_form and 'value="2100"' in settings_form


@pytest.mark.django_db
def test_it_shows_entrants_seeding_ratings_as_display_ratings() -> None:
    ann, bob, cat = person("ann"), person("bob"), person("cat")
    Rating.objects.create(
        player=bob, pool="classic", mu=30.0, sigma=2.0, games=40, last_played_at=timezone.now()
    )
    tournament = new_tournament(ann, [ann, bob, cat], name="Seeded", rounds=1)
    running.start(ann, tournament_id=tournament.pk)

    page = html(Client().get(f"/tournaments/{tournament.pk}"))

    rows = dict(re.findall(r'<tr data-entrant="([^"]+)">(.*?)</tr>', page, re.S))
    assert Entrant.objects.get(tournament=tournament, player=bob).rating == 24.0
    assert '<td class="num">2100</td>' in rows["bob"]  # 1500 + 25 * 24
    assert '<span class="muted">—</span>' in rows["ann"]  # unrated in the pool


@pytest.mark.django_db
def test_it_shows_an_in_person_nights_table_codes_and_results_without_game_links() -> None:
    ann = person("ann")
    players = [person(f"crown{i}") for i in range(6)]
    night = new_tournament(ann, players, rounds=2, venue="in_person")
    running.start(ann, tournament_id=night.pk)
    first, second = selectors.round_detail(night.pk, 1)["tables"]
    names = {p.username: p for p in players}
    a, b, _ = (names[s["username"]] for s in first["seats"])
    c, d, _ = (names[s["username"]] for s in second["seats"])
    base = f"/tournaments/{night.pk}"
    viewer = Client()

    def enter(player: Player, table: dict[str, Any], scores: list[int]) -> None:
        table_results.enter_result(
            player, tournament_id=night.pk, round_number=1, code=table["code"], scores=scores
        )

    # One player's entry: its status, not its scores (one player's word until confirmed).
    enter(a, first, [3, -1, -2])
    enter(c, second, [2, 0, -2])
    enter(d, second, [1, 1, -2])
    page = html(viewer.get(base))
    live = html(viewer.get(f"{base}/live"))

    for shown_part in (page, live):
        assert "/games/None" not in shown_part and 'data-game-id="None"' not in shown_part
        tables = section(shown_part, 'id="round-1"')
        for table in (first, second):
            assert f"<kbd>{table['code']}</kbd>" in tables
        assert f'data-code="{first["code"]}"' in tables
        assert 'data-result-status="pending"' in tables
        assert 'data-result-status="disputed"' in tables
        assert 'class="score"' not in tables  # no scores before a result is final
    assert "in person, at real tables" in page and "<dt>Venue</dt>" in page
    assert "s a move" not in page
    mine = html(logged_in(a).get(base))
    assert f'code <kbd class="table-code">{first["code"]}</kbd>' in mine
    assert 'data-action="my-game"' not in mine

    # Another player of the table confirms: the result is final, with its places and scores.
    table_results.confirm_result(b, tournament_id=night.pk, round_number=1, code=first["code"])
    page = html(viewer.get(base))
    live = html(viewer.get(f"{base}/live"))

    for shown_part in (page, live):
        assert "/games/" not in shown_part
        tables = section(shown_part, 'id="round-1"')
        assert 'data-result-status="final"' in tables
        row = tables.split(f'data-code="{first["code"]}"', 1)[1].split("</tr>", 1)[0]
        scores = re.findall(r'<span class="score">.*?</span>(-?\d+)</span>', row)
        assert scores == ["3", "-1", "-2"]
        grid = section(shown_part, 'id="crosstable"')
        assert "chip rank-1" in grid and "pending" not in grid and "disputed" in grid
