"""The club pages (docs/web.md "Clubs"): the list with the form that founds a club, a club's
page with joining, requests, invitations, roles and removals, its leagues' pages, and the
notification bell's answers to club invitations and requests, all through the services of
the clubs and leagues APIs. Plain Django clients where no browser is needed; Chromium for
the forms as a person uses them, with screenshots at both widths."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import Player
from accounts.services import create_bot_player, create_person
from clubs import services as clubs
from clubs.models import Club, ClubInvitation, JoinRequest, Membership
from leagues import services as leagues
from tests.browser import DESKTOP, PASSWORD, new_page, screenshots
from tests.conftest import LiveServer
from tournaments.models import Entrant, Tournament, TournamentTable
from tournaments.services import entries, running, setup, table_results


def person(username: str) -> Player:
    return create_person(username, password=PASSWORD)


def signed_in(who: Player) -> Client:
    client = Client(REMOTE_ADDR="198.51.100.48")
    client.force_login(who)
    return client


def members(slug: str) -> dict[str, str]:
    rows = Membership.objects.filter(club__slug=slug).select_related("player")
    return {m.player.username: m.role for m in rows}


def club_of(owner: Player, *others: Player, joining: str = "open") -> str:
    """A club of ``owner`` with ``others`` as members, taking members as ``joining`` says."""
    found = clubs.create_club(owner, name="The Crown", joining="open")
    for other in others:
        clubs.join(other, slug=found.slug)
    if joining != "open":
        clubs.update_club(owner, slug=found.slug, changes={"joining": joining})
    return found.slug


def text(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


# --- The list and founding a club -------------------------------------------------------------


@pytest.mark.django_db
def test_it_founds_a_club_from_the_form_and_says_what_is_wrong_next_to_the_field() -> None:
    ann = person("cann")
    page = signed_in(ann)

    founded = page.post(
        "/clubs",
        {"name": "The Crown", "slug": "", "description": "Tuesdays", "joining": "request"},
    )
    taken = page.post("/clubs", {"name": "Another", "slug": "the-crown", "joining": "open"})
    nameless = page.post("/clubs", {"name": "", "joining": "open"})

    assert founded.status_code == 302 and founded["Location"] == "/clubs/the-crown"
    club = Club.objects.get(slug="the-crown")
    assert (club.name, club.description, club.joining) == ("The Crown", "Tuesdays", "request")
    assert members("the-crown") == {"cann": "owner"}
    assert taken.status_code == 400
    assert re.search(r'data-error-for="slug">[^<]*taken', text(taken))
    assert nameless.status_code == 400 and 'data-error-for="name"' in text(nameless)
    assert Club.objects.count() == 1
    listed = text(Client().get("/clubs"))
    assert 'data-club="the-crown" href="/clubs/the-crown"' in listed
    assert "1 member" in listed and 'data-joining="request"' in listed


@pytest.mark.django_db
def test_it_offers_a_visitor_a_log_in_instead_of_the_form() -> None:
    shown = text(Client().get("/clubs"))
    refused = Client().post("/clubs", {"name": "Sneaky", "joining": "open"})

    assert 'href="/login?next=/clubs"' in shown and "club-new" not in shown
    assert refused.status_code == 302 and Club.objects.count() == 0


# --- Joining, leaving, requests and invitations -----------------------------------------------


@pytest.mark.django_db
def test_it_lets_a_person_join_an_open_club_and_leave_it_but_not_its_owner() -> None:
    ann, bob = person("cann"), person("cbob")
    slug = club_of(ann)
    bobs = signed_in(bob)

    before = text(bobs.get(f"/clubs/{slug}"))
    joined = bobs.post(f"/clubs/{slug}/join")
    as_member = text(bobs.get(f"/clubs/{slug}"))
    owners = text(signed_in(ann).get(f"/clubs/{slug}"))
    owner_left = signed_in(ann).post(f"/clubs/{slug}/leave", follow=True)
    left = bobs.post(f"/clubs/{slug}/leave")

    assert 'data-action="join"' in before and 'data-role=""' in before
    assert joined.status_code == 302 and joined["Location"] == f"/clubs/{slug}"
    assert 'data-role="member"' in as_member and 'data-action="leave"' in as_member
    assert 'data-action="join"' not in as_member and 'data-action="request"' not in as_member
    assert '<tr data-username="cbob" data-role="member"' in as_member
    assert 'data-role="owner"' in owners and 'data-action="leave"' not in owners
    assert "The owner cannot leave" in text(owner_left)
    assert left.status_code == 302
    assert members(slug) == {"cann": "owner"}


@pytest.mark.django_db
def test_it_lets_a_person_ask_to_join_and_an_admin_approve_or_decline_on_the_club_page() -> None:
    ann, bob, cat = person("cann"), person("cbob"), person("ccat")
    slug = club_of(ann, joining="request")

    asked = signed_in(bob).post(f"/clubs/{slug}/join")
    signed_in(cat).post(f"/clubs/{slug}/join")
    pending = text(signed_in(bob).get(f"/clubs/{slug}"))
    admins = text(signed_in(ann).get(f"/clubs/{slug}"))
    signed_in(ann).post(f"/clubs/{slug}/requests/cbob/approve")
    signed_in(ann).post(f"/clubs/{slug}/requests/ccat/decline")

    assert asked.status_code == 302
    assert 'data-testid="request-pending"' in pending and 'data-action="request"' not in pending
    assert 'data-request="cbob"' in admins and 'data-request="ccat"' in admins
    assert members(slug) == {"cann": "owner", "cbob": "member"}
    assert JoinRequest.objects.get(player=cat).status == "declined"
    assert "data-request=" not in text(signed_in(ann).get(f"/clubs/{slug}"))


@pytest.mark.django_db
def test_it_lets_an_admin_invite_and_the_invited_answer_from_the_bell_or_the_club_page() -> None:
    ann, bob, cat = person("cann"), person("cbob"), person("ccat")
    slug = club_of(ann, joining="invite")
    anns, bobs = signed_in(ann), signed_in(bob)

    closed = text(bobs.get(f"/clubs/{slug}"))
    anns.post(f"/clubs/{slug}/invitations", {"username": "cbob"})
    anns.post(f"/clubs/{slug}/invitations", {"username": "ccat"})
    bell = text(bobs.get("/rules"))
    accepted = bobs.post(f"/clubs/{slug}/join", {"next": "/rules"})
    cats_page = text(signed_in(cat).get(f"/clubs/{slug}"))
    signed_in(cat).post(f"/clubs/{slug}/invitations/decline")

    assert "by invitation" in closed and 'data-action="join"' not in closed
    assert f'<a href="/clubs/{slug}">The Crown</a>' in bell
    assert f'action="/clubs/{slug}/join"' in bell and 'name="next" value="/rules"' in bell
    assert f'action="/clubs/{slug}/invitations/decline"' in bell
    assert accepted["Location"] == "/rules"
    assert 'data-action="join"' in cats_page and 'data-action="decline-invitation"' in cats_page
    assert members(slug) == {"cann": "owner", "cbob": "member"}
    assert ClubInvitation.objects.get(player=cat).status == "declined"
    assert 'data-kind="club_invitation"' not in text(signed_in(cat).get("/rules"))


@pytest.mark.django_db
def test_it_lets_a_bots_owner_answer_the_bots_invitations_from_the_bell() -> None:
    ann, dan = person("cann"), person("cdan")
    first, _ = create_bot_player(dan, username="cdanbot")
    second, _ = create_bot_player(dan, username="cdanbot2")
    slug = club_of(ann, joining="invite")
    clubs.invite(ann, slug=slug, username="cdanbot")
    clubs.invite(ann, slug=slug, username="cdanbot2")
    dans = signed_in(dan)

    bell = text(dans.get("/rules"))
    dans.post(f"/clubs/{slug}/join", {"player": "cdanbot", "next": "/rules"})
    dans.post(f"/clubs/{slug}/invitations/decline", {"player": "cdanbot2", "next": "/rules"})

    assert 'name="player" value="cdanbot"' in bell and 'name="player" value="cdanbot2"' in bell
    assert members(slug) == {"cann": "owner", "cdanbot": "member"}
    assert ClubInvitation.objects.get(player=second).status == "declined"
    assert first.is_bot and 'data-kind="club_invitation"' not in text(dans.get("/rules"))


@pytest.mark.django_db
def test_it_lets_an_admin_answer_a_request_from_the_bell() -> None:
    ann, bob, cat = person("cann"), person("cbob"), person("ccat")
    slug = club_of(ann, joining="request")
    clubs.join(bob, slug=slug)
    clubs.join(cat, slug=slug)
    anns = signed_in(ann)

    bell = text(anns.get("/lobby"))
    approved = anns.post(f"/clubs/{slug}/requests/cbob/approve", {"next": "/lobby"})
    anns.post(f"/clubs/{slug}/requests/ccat/decline", {"next": "/lobby"})

    assert bell.count('data-kind="club_request"') == 2
    assert f'action="/clubs/{slug}/requests/cbob/approve"' in bell
    assert f'action="/clubs/{slug}/requests/ccat/decline"' in bell
    assert f'<a href="/clubs/{slug}#requests">The Crown</a>' in bell
    assert approved["Location"] == "/lobby"
    assert members(slug) == {"cann": "owner", "cbob": "member"}
    assert 'data-kind="club_request"' not in text(anns.get("/lobby"))


# --- Roles, removals and what a non-admin may not do ------------------------------------------


@pytest.mark.django_db
def test_it_lets_the_owner_change_roles_and_an_admin_remove_members() -> None:
    ann, bob, cat, dee = person("cann"), person("cbob"), person("ccat"), person("cdee")
    slug = club_of(ann, bob, cat, dee)
    anns, bobs = signed_in(ann), signed_in(bob)

    owners = text(anns.get(f"/clubs/{slug}"))
    anns.post(f"/clubs/{slug}/members/cbob/role", {"role": "admin"})
    admins = text(bobs.get(f"/clubs/{slug}"))
    bobs.post(f"/clubs/{slug}/members/ccat/remove")
    refused = bobs.post(f"/clubs/{slug}/members/cdee/role", {"role": "admin"}, follow=True)

    assert 'name="role"' in owners and 'data-action="set-role"' in owners
    assert 'data-role="admin"' in admins and 'data-action="remove"' in admins
    assert 'data-action="set-role"' not in admins  # roles are the owner's
    assert "Only the club&#x27;s owner may change roles." in text(refused)
    assert members(slug) == {"cann": "owner", "cbob": "admin", "cdee": "member"}


@pytest.mark.django_db
def test_it_changes_nothing_when_a_member_sends_an_admins_form_and_says_why() -> None:
    ann, bob, cat = person("cann"), person("cbob"), person("ccat")
    slug = club_of(ann, bob, cat, joining="request")
    clubs.join(person("cdee"), slug=slug)
    bobs = signed_in(bob)

    page = text(bobs.get(f"/clubs/{slug}"))
    sent = [
        bobs.post(f"/clubs/{slug}/members/ccat/remove", follow=True),
        bobs.post(f"/clubs/{slug}/requests/cdee/approve", follow=True),
        bobs.post(f"/clubs/{slug}/invitations", {"username": "cann"}, follow=True),
        bobs.post(
            f"/clubs/{slug}/settings",
            {"name": "Bob's", "description": "", "joining": "open"},
            follow=True,
        ),
        bobs.post(f"/clubs/{slug}/leagues", {"name": "Mine", "scoring": "sum"}, follow=True),
    ]

    assert "club-invite" not in page and "data-request=" not in page
    assert "league-new" not in page and 'data-action="remove"' not in page
    for response in sent:
        assert response.status_code == 200
        assert f"Only an admin of &#x27;{slug}&#x27; may do this." in text(response)
    assert members(slug) == {"cann": "owner", "cbob": "member", "ccat": "member"}
    club = Club.objects.get(slug=slug)
    assert (club.name, club.joining) == ("The Crown", "request")
    assert not club.leagues.exists() and club.requests.get().status == "pending"


@pytest.mark.django_db
def test_it_lets_an_admin_change_the_clubs_settings() -> None:
    ann = person("cann")
    slug = club_of(ann)

    signed_in(ann).post(
        f"/clubs/{slug}/settings",
        {"name": "The Rose", "description": "Thursdays now", "joining": "invite"},
    )

    club = Club.objects.get(slug=slug)
    assert (club.name, club.description, club.joining) == ("The Rose", "Thursdays now", "invite")


@pytest.mark.django_db
def test_it_refuses_a_form_sent_without_its_csrf_token() -> None:
    ann, bob = person("cann"), person("cbob")
    slug = club_of(ann)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(bob)

    joined = strict.post(f"/clubs/{slug}/join")
    founded = strict.post("/clubs", {"name": "Forged", "joining": "open"})

    assert joined.status_code == founded.status_code == 403
    assert members(slug) == {"cann": "owner"} and Club.objects.count() == 1


# --- Leagues ----------------------------------------------------------------------------------


def night(organiser: Player, slug: str, name: str, finishing: list[Player]) -> int:
    """A club night at a real table, played: ``finishing`` in the order they finished."""
    values = {
        "name": name,
        "rules": "classic",
        "format": "swiss",
        "rounds": 1,
        "hands_per_game": 1,
        "venue": "in_person",
        "club": slug,
    }
    tournament = setup.create_tournament(organiser, values=values)
    for player in finishing:
        entries.register(player, tournament_id=tournament.pk)
    running.start(organiser, tournament_id=tournament.pk)
    (table,) = TournamentTable.objects.filter(round__tournament=tournament)
    seated = [Entrant.objects.get(pk=e).player_id for e in table.entrant_ids()]
    score_of = dict(zip([p.pk for p in finishing], [3, -1, -2], strict=True))
    table_results.enter_result(
        organiser,
        tournament_id=tournament.pk,
        round_number=1,
        code=table.code,
        scores=[score_of[player_id] for player_id in seated],
    )
    running.advance(tournament_id=tournament.pk)
    return tournament.pk


def standings_rows(page: str) -> list[tuple[str, str, str]]:
    """(username, rank, nights) of each standings row, in the page's order."""
    return re.findall(
        r'<tr data-username="([^"]+)" data-points="[^"]+" data-rank="(\d+)" data-nights="(\d+)"',
        page,
    )


@pytest.mark.django_db
def test_it_makes_a_league_adds_its_nights_and_ranks_equal_points_together() -> None:
    ann, bob, cat = person("cann"), person("cbob"), person("ccat")
    slug = club_of(ann, bob, cat)
    first = night(ann, slug, "First night", [ann, bob, cat])
    second = night(ann, slug, "Second night", [bob, ann, cat])
    later = setup.create_tournament(
        ann, values={"name": "Later", "rules": "classic", "format": "swiss", "club": slug}
    ).pk
    anns = signed_in(ann)

    created = anns.post(f"/clubs/{slug}/leagues", {"name": "Winter", "scoring": "sum"})
    path = created["Location"]
    league_id = int(path.rsplit("/", 1)[1])
    empty = text(anns.get(path))
    for tournament in (first, second):
        anns.post(f"{path}/nights", {"tournament": str(tournament)})
    twice = anns.post(f"{path}/nights", {"tournament": str(first)}, follow=True)
    shown = text(Client().get(path))
    club_page = text(Client().get(f"/clubs/{slug}"))

    assert re.fullmatch(rf"/clubs/{slug}/leagues/\d+", path)
    assert 'data-testid="league-add-night"' in empty
    assert [int(i) for i in re.findall(r'<option value="(\d+)"', empty)] == [later, second, first]
    assert "already a night" in text(twice)
    assert standings_rows(shown) == [("cann", "1", "2"), ("cbob", "1", "2"), ("ccat", "3", "2")]
    assert re.findall(r'<li data-tournament-id="(\d+)"', shown) == [str(first), str(second)]
    assert "league-add-night" not in shown  # a visitor
    assert f'data-league-id="{league_id}"' in club_page
    assert f'data-tournament-id="{first}"' in club_page
    assert Tournament.objects.get(pk=first).status == "finished"


@pytest.mark.django_db
def test_it_shows_the_club_leaderboard_of_the_pool_chosen() -> None:
    ann = person("cann")
    slug = club_of(ann)

    in_person = text(Client().get(f"/clubs/{slug}?pool=in_person"))
    unknown = text(Client().get(f"/clubs/{slug}?pool=nowhere"))

    assert '<option value="in_person" title=' in in_person
    assert re.search(r'<option value="in_person"[^>]*selected', in_person)
    assert "No member has a rated game in the in_person pool yet." in in_person
    assert 'class="error"' in unknown
    assert Client().get("/clubs/no-such-club").status_code == 404
    assert Client().get(f"/clubs/{slug}/leagues/999999").status_code == 404


# --- In the browser ---------------------------------------------------------------------------


def log_in(context: BrowserContext, base: str, who: str) -> Page:
    page = new_page(context)
    page.goto(f"{base}/login")
    page.fill("input[name=username]", who)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/")
    return page


@pytest.mark.django_db(transaction=True)
def test_it_runs_a_club_from_its_pages_in_a_browser(
    api_server: LiveServer, browser: Browser
) -> None:
    base = api_server.url
    for name in ("bann", "bbob", "bcat"):
        person(name)
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(3)]  # type: ignore[arg-type]
    try:
        ann, bob, cat = (
            log_in(c, base, n) for c, n in zip(contexts, ("bann", "bbob", "bcat"), strict=True)
        )
        # Ann founds a club that takes requests, through the form.
        ann.goto(f"{base}/clubs")
        form = ann.locator("form[data-testid=club-new]")
        form.locator("input[name=name]").fill("The Crown and Anchor")
        form.locator("textarea[name=description]").fill("Cards on Tuesdays, at the back.")
        form.locator("select[name=joining]").select_option("request")
        form.locator("[data-action=create-club]").click()
        ann.wait_for_url(f"{base}/clubs/the-crown-and-anchor")
        slug = "the-crown-and-anchor"
        assert ann.locator("main").get_attribute("data-role") == "owner"
        assert ann.locator("[data-action=leave]").count() == 0

        # Bob asks to join; Ann approves him from the club page.
        bob.goto(f"{base}/clubs/{slug}")
        screenshots(bob, "club-visitor")
        bob.click("[data-action=request]")
        bob.wait_for_selector("[data-testid=request-pending]")
        ann.goto(f"{base}/clubs/{slug}")
        ann.wait_for_selector("[data-request=bbob]")
        screenshots(ann, "club-admin-with-request")
        ann.click("[data-request=bbob] [data-action=approve]")
        ann.wait_for_selector("table[data-testid=club-members] tr[data-username=bbob]")

        # Ann invites Cat; Cat accepts from the bell on another page.
        ann.fill("form[data-testid=club-invite] input[name=username]", "bcat")
        ann.click("[data-action=invite]")
        ann.wait_for_selector(".message:has-text('bcat is invited.')")
        cat.goto(f"{base}/rules")
        cat.click("#notifications summary")
        cat.click("[data-kind=club_invitation] [data-action=accept]")
        cat.wait_for_url(f"{base}/rules")
        cat.goto(f"{base}/clubs/{slug}")
        assert cat.locator("main").get_attribute("data-role") == "member"

        # The owner makes Bob an admin; Bob removes Cat.
        row = ann.locator("tr[data-username=bbob]")
        ann.goto(f"{base}/clubs/{slug}")
        row.locator("select[name=role]").select_option("admin")
        row.locator("[data-action=set-role]").click()
        ann.wait_for_selector("tr[data-username=bbob][data-role=admin]")
        bob.goto(f"{base}/clubs/{slug}")
        bob.click("tr[data-username=bcat] [data-action=remove]")
        bob.wait_for_selector(".message:has-text('bcat is no longer a member.')")
        assert bob.locator("tr[data-username=bcat]").count() == 0

        # A league, through its form.
        league = ann.locator("form[data-testid=league-new]")
        ann.goto(f"{base}/clubs/{slug}")
        league.locator("input[name=name]").fill("Winter season")
        league.locator("select[name=scoring]").select_option("best")
        league.locator("input[name=best]").fill("3")
        league.locator("[data-action=create-league]").click()
        ann.wait_for_url(re.compile(rf"/clubs/{slug}/leagues/\d+$"))
        assert ann.locator("h1").inner_text() == "Winter season"
        screenshots(ann, "club-league-empty")
        ann.goto(f"{base}/clubs")
        screenshots(ann, "clubs-list")
        for page in (ann, bob, cat):
            assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        for context in contexts:
            context.close()
    assert members(slug) == {"bann": "owner", "bbob": "admin"}


@pytest.mark.django_db(transaction=True)
def test_it_shows_a_leagues_standings_in_a_browser(
    api_server: LiveServer, browser: Browser
) -> None:
    base = api_server.url
    ann, bob, cat = person("lann"), person("lbob"), person("lcat")
    slug = club_of(ann, bob, cat)
    winter = leagues.create_league(ann, slug=slug, name="Winter", scoring="sum")
    for name, finishing in (("First", [ann, bob, cat]), ("Second", [bob, ann, cat])):
        tournament = night(ann, slug, name, finishing)
        leagues.add_night(ann, slug=slug, league_id=winter.pk, tournament_id=tournament)
    setup.create_tournament(
        ann, values={"name": "Next Tuesday", "rules": "classic", "format": "swiss", "club": slug}
    )
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    try:
        page = log_in(context, base, "lann")
        page.goto(f"{base}/clubs/{slug}/leagues/{winter.pk}")
        rows = page.locator("table[data-testid=league-standings] tbody tr")
        shown = [
            (rows.nth(i).get_attribute("data-username"), rows.nth(i).get_attribute("data-rank"))
            for i in range(rows.count())
        ]
        assert shown == [("lann", "1"), ("lbob", "1"), ("lcat", "3")]
        assert page.locator("select[name=tournament] option").count() == 1
        screenshots(page, "club-league")
        page.goto(f"{base}/clubs/{slug}?pool=in_person")
        screenshots(page, "club-owner")
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        context.close()
