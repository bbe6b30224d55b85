"""A whole club night at real tables, played through the pages in a real browser (issue #48).

An admin founds a club at /clubs; members join it (one asks and is approved on the club
page, one is invited and accepts from the bell, the rest join once the admin opens the
club); the admin organises an in-person swiss of nine members for three rounds, prints the
seating sheet and puts the screen up for the room. Each round, at every table, a seated
player enters the scores on a phone and another confirms them (in round 1 one table is
disputed and the admin settles it); the screen, never reloaded, follows every table and
round. At the end the standings and the in-person ratings are checked against the entered
scores, and a league of this night and a second one ranks the players by their sums.

The pages are found by the hooks the clubs, print and room pages agreed on (data-*
attributes and form field names), never by their wording or layout (docs/clubs.md,
docs/tournaments.md "In-person nights"). Chromium drives the suite's live server with its
real worker, which scores the rounds and seats the next.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ratings import services as rating_services
from ratings import skill
from tests.api_client import Client
from tests.browser import ARTEFACTS, PASSWORD, new_page, screenshots, sign_up
from tests.conftest import LiveServer
from tests.support import wait_until
from tournaments.standings import points_for_ranks

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ADMIN = "ann"
#: The nine members who play; the admin organises the night without playing.
PLAYERS = ["bea", "cal", "dot", "eli", "fay", "gus", "hal", "ivy", "jon"]
ASKS = "bea"  # asks to join, and the admin approves on the club page
INVITED = "cal"  # invited by the admin, accepts from the bell
SLUG = "the-crown"
ROUNDS = 3
POINTS_BY_RANK = [3, 1, 0]
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1920, "height": 1080}
A4 = {"width": 794, "height": 1123}  # 210 x 297 mm at 96 px an inch
WAIT = 30_000  # ms: a page following a change made elsewhere (the worker seats the rounds)
#: One-hand games' scores (each sums to zero; a seat moves at most 13 up and 8 down), ties
#: included: the tables of the night take them in turn.
SCORES = [
    [4, -1, -3],
    [-2, 5, -3],
    [0, 3, -3],
    [6, -4, -2],
    [1, 1, -2],
    [-5, 2, 3],
    [3, -4, 1],
    [-3, -3, 6],
    [2, 6, -8],
]
#: What the admin's table entries may make of a table of the second night: every order of
#: these, which give the points 3/1/0, 2/2/0 and 3/0.5/0.5.
SHAPES = [[4, -1, -3], [1, 1, -2], [2, -1, -1]]


# People -----------------------------------------------------------------------------------


@dataclass
class Person:
    name: str
    context: BrowserContext
    page: Page


@pytest.fixture
def site(api_server: LiveServer, celery_worker: Any) -> str:
    return str(api_server.url)


@pytest.fixture
def people(browser: Browser, site: str) -> Iterator[dict[str, Person]]:
    """The admin (a desktop browser) and the nine players (phones), each signed up."""
    made: dict[str, Person] = {}
    try:
        for name in [ADMIN, *PLAYERS]:
            viewport = {"width": 1280, "height": 900} if name == ADMIN else PHONE
            context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
            context.set_default_timeout(20_000)
            made[name] = Person(name, context, new_page(context))
            sign_up(made[name].page, site, name)
        yield made
    finally:
        for person in made.values():
            person.context.close()


def api_token(site: str, name: str) -> Client:
    """An API client for someone who signed up on the pages (the API's log-in)."""
    client = Client(site)
    body = client.ok("POST", "/accounts/token", json={"username": name, "password": PASSWORD})
    client.token, client.username = body["token"], name
    return client


def wait_for(locator: Locator, name: str, value: str, timeout: float = WAIT) -> None:
    expect(locator).to_have_attribute(name, value, timeout=timeout)


def shot(page: Page, name: str) -> None:
    """One screenshot at the page's own size (a phone's, a projector's, an A4 sheet's)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)


def usernames(rows: Locator) -> list[str]:
    return [str(name) for name in rows.evaluate_all("rs => rs.map(r => r.dataset.username)")]


def shows_in_order(page: Page, rows: str, order: list[str]) -> None:
    """Wait until the page's ``rows`` are ``order``'s usernames, in that order."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            """([rows, order]) => [...document.querySelectorAll(rows)]
                .map((r) => r.dataset.username).join() === order.join()""",
            arg=[rows, order],
            timeout=WAIT,
        )
    assert usernames(page.locator(rows)) == order


# 1. The club -------------------------------------------------------------------------------


def club(page: Page) -> Locator:
    return page.locator("main[data-club]")


def member_rows(page: Page) -> Locator:
    return page.locator("table[data-testid=club-members] tr[data-username]")


def found_the_club(admin: Page, site: str) -> None:
    admin.goto(f"{site}/clubs")
    form = admin.locator("form[data-testid=club-new]")
    form.locator("[name=name]").fill("The Crown")
    form.locator("[name=slug]").fill(SLUG)
    form.locator("[name=description]").fill("Thursday nights at real tables")
    form.locator("select[name=joining]").select_option("request")
    form.locator("[data-action=create-club]").click()
    admin.wait_for_url(f"{site}/clubs/{SLUG}")
    wait_for(club(admin), "data-club", SLUG)
    wait_for(club(admin), "data-role", "owner")
    admin.goto(f"{site}/clubs")
    link = admin.locator(f'a[data-club="{SLUG}"]')
    assert urljoin(admin.url, str(link.get_attribute("href"))) == f"{site}/clubs/{SLUG}"
    screenshots(admin, "club-night-clubs")


def ask_and_be_approved(admin: Page, asker: Person, site: str) -> None:
    asker.page.goto(f"{site}/clubs/{SLUG}")
    wait_for(club(asker.page), "data-role", "")
    with asker.page.expect_navigation():  # each action is a form of its own, posted
        asker.page.locator("[data-action=request]").click()
    # The request waits on the admin: in the bell, and on the club page, where it is approved.
    admin.goto(f"{site}/clubs/{SLUG}")
    expect(admin.locator('[data-testid=notifications] li[data-kind="club_request"]')).to_have_count(
        1
    )
    request = admin.locator(f'[data-request="{asker.name}"]')
    screenshots(admin, "club-night-club-request")
    request.locator("[data-action=approve]").click()
    wait_for(
        admin.locator(f'table[data-testid=club-members] tr[data-username="{asker.name}"]'),
        "data-role",
        "member",
    )
    expect(admin.locator(f'[data-request="{asker.name}"]')).to_have_count(0)
    asker.page.goto(f"{site}/clubs/{SLUG}")
    wait_for(club(asker.page), "data-role", "member")


def invite_and_accept_from_the_bell(admin: Page, invited: Person, site: str) -> None:
    form = admin.locator("form[data-testid=club-invite]")
    form.locator("input[name=username]").fill(invited.name)
    with admin.expect_navigation():
        form.locator("[data-action=invite]").click()
    invited.page.goto(f"{site}/")
    bell = invited.page.locator("[data-testid=notifications]")
    bell.locator("summary").click()
    item = bell.locator('li[data-kind="club_invitation"]')
    item.locator("[data-action=accept]").click()
    expect(
        invited.page.locator('[data-testid=notifications] li[data-kind="club_invitation"]')
    ).to_have_count(0)
    invited.page.goto(f"{site}/clubs/{SLUG}")
    wait_for(club(invited.page), "data-role", "member")


def open_the_club(admin: Page, site: str, api: Client) -> None:
    """The admin's settings form, found by its fields: joining becomes open."""
    admin.goto(f"{site}/clubs/{SLUG}")
    settings = admin.locator("form:has(select[name=joining])")
    settings.locator("select[name=joining]").select_option("open")
    settings.locator("button[type=submit], button:not([type]), input[type=submit]").first.click()
    wait_until(lambda: api.ok("GET", f"/clubs/{SLUG}")["joining"] == "open", what="an open club")


def join(member: Person, site: str) -> None:
    member.page.goto(f"{site}/clubs/{SLUG}")
    member.page.locator("[data-action=join]").click()
    wait_for(club(member.page), "data-role", "member")


# 2. The night ------------------------------------------------------------------------------


def organise_the_night(admin: Page, site: str) -> int:
    admin.goto(f"{site}/tournaments/new")
    admin.fill("input[name=name]", "Thursday at the Crown")
    admin.select_option("select[name=format]", "swiss")
    admin.fill("input[name=rounds]", str(ROUNDS))
    admin.fill("input[name=hands_per_game]", "1")
    admin.select_option("select[name=venue]", "in_person")
    admin.select_option("select[name=club]", SLUG)
    screenshots(admin, "club-night-tournament-new")
    admin.click("[data-action=create-tournament]")
    admin.wait_for_url(re.compile(r"/tournaments/\d+$"))
    return int(admin.url.rsplit("/", 1)[1])


def enter(player: Person, site: str, tournament_id: int) -> None:
    player.page.goto(f"{site}/tournaments/{tournament_id}")
    player.page.click("[data-action=register]")
    player.page.wait_for_selector("[data-action=withdraw]")


def start(admin: Page, site: str, tournament_id: int) -> None:
    admin.goto(f"{site}/tournaments/{tournament_id}")
    admin.click("[data-action=start]")
    admin.wait_for_selector('[data-tournament-status="running"]')


def wait_for_round(api: Client, tournament_id: int, number: int) -> None:
    """Until the worker has seated round ``number`` (it scores a round once its last table's
    result stands)."""
    wait_until(
        lambda: api.ok("GET", f"/tournaments/{tournament_id}")["current_round"] == number,
        timeout=60,
        what=f"round {number} to be seated",
    )


def tables_of(api: Client, tournament_id: int, number: int) -> list[dict[str, Any]]:
    tables = api.ok("GET", f"/tournaments/{tournament_id}/rounds/{number}")["tables"]
    assert isinstance(tables, list)
    return tables


def seated(table: dict[str, Any]) -> list[str]:
    return [seat["username"] for seat in sorted(table["seats"], key=lambda s: s["seat"])]


# 3. The printed sheet ----------------------------------------------------------------------


def check_the_print(admin: Page, site: str, tournament_id: int, api: Client) -> None:
    base = f"{site}/tournaments/{tournament_id}"
    admin.goto(base)
    for action in ("print", "screen"):
        link = admin.locator(f"a[data-action={action}]")
        assert urljoin(admin.url, str(link.get_attribute("href"))) == f"{base}/{action}"
    admin.goto(f"{base}/print")
    sheet = admin.locator("main[data-testid=print]")
    wait_for(sheet, "data-round", "1")
    tables = tables_of(api, tournament_id, 1)
    sections = admin.locator("section[data-table-code]")
    assert sorted(sections.evaluate_all("s => s.map(e => e.dataset.tableCode)")) == sorted(
        t["code"] for t in tables
    )
    for table in tables:
        code = table["code"]
        section = admin.locator(f'section[data-table-code="{code}"]')
        for seat, name in enumerate(seated(table)):
            expect(section.locator(f'[data-seat="{seat}"]')).to_contain_text(name)
        qr = section.locator("svg[data-qr]")
        expect(qr).to_have_count(1)
        assert qr.get_attribute("data-qr") == f"{base}/tables/{code}"
        expect(admin.locator(f'[data-testid=score-sheet][data-table-code="{code}"]')).to_have_count(
            1
        )
    size = admin.viewport_size
    admin.emulate_media(media="print")
    admin.set_viewport_size(A4)  # type: ignore[arg-type]
    shot(admin, "club-night-print-a4")
    admin.emulate_media(media="screen")
    if size:
        admin.set_viewport_size(size)


# 4. and 5. The screen and the rounds -------------------------------------------------------


#: Every table state the screen shows, as it comes: the last table of a round is final only
#: for a moment, until the worker seats the next round (or ends the night).
#: With each new state shown, the screen's version is noted too (it changes with what it shows).
SCREEN_LOG = """() => {
  window.__seen = [];
  window.__versions = [];
  let shown = null;
  const note = () => {
    const main = document.querySelector("main[data-testid=screen]");
    const tables = [...document.querySelectorAll("main[data-testid=screen] [data-table-code]")];
    const states = tables.map((table) => `${table.dataset.tableCode}:${table.dataset.status}`);
    const now = [main.dataset.round, main.dataset.status, ...states].join();
    if (now === shown) return;
    shown = now;
    window.__versions.push(main.dataset.version);
    for (const state of states) if (!window.__seen.includes(state)) window.__seen.push(state);
  };
  note();
  new MutationObserver(note).observe(document, {subtree: true, childList: true, attributes: true});
}"""


def screen_table(screen: Page, code: str) -> Locator:
    return screen.locator(f'main[data-testid=screen] [data-table-code="{code}"]')


def screen_showed(screen: Page, code: str, status: str) -> None:
    """Wait until the screen has shown the table in ``status`` (now or a moment ago)."""
    with contextlib.suppress(PlaywrightTimeout):
        screen.wait_for_function(
            "state => window.__seen.includes(state)", arg=f"{code}:{status}", timeout=WAIT
        )
    seen = screen.evaluate("window.__seen")
    assert f"{code}:{status}" in seen, seen


def screen_moved_on(screen: Page, code: str, number: int) -> None:
    """Wait until the screen has shown the round's last table final, or gone on to the next
    round or the end: the worker seats the next round at once, and a screen that follows
    the live stream may go straight there."""
    with contextlib.suppress(PlaywrightTimeout):
        screen.wait_for_function(
            """([state, number]) => {
                const main = document.querySelector("main[data-testid=screen]");
                return window.__seen.includes(state) || Number(main.dataset.round) > number
                    || main.dataset.status === "finished";
            }""",
            arg=[f"{code}:final", number],
            timeout=WAIT,
        )
    main = screen.locator("main[data-testid=screen]")
    seen = screen.evaluate("window.__seen")
    moved_on = main.get_attribute("data-round") != str(number) or (
        main.get_attribute("data-status") == "finished"
    )
    assert f"{code}:final" in seen or moved_on, seen


def screen_shows_round(screen: Page, number: int, tables: list[dict[str, Any]]) -> None:
    main = screen.locator("main[data-testid=screen]")
    wait_for(main, "data-round", str(number))
    wait_for(main, "data-status", "running")
    shown = main.locator("[data-table-code]")
    expect(shown).to_have_count(len(tables))
    assert sorted(shown.evaluate_all("s => s.map(e => e.dataset.tableCode)")) == sorted(
        t["code"] for t in tables
    )
    for table in tables:
        wait_for(screen_table(screen, table["code"]), "data-status", "missing")


def table_page(person: Person, site: str, tournament_id: int, code: str) -> Locator:
    person.page.goto(f"{site}/tournaments/{tournament_id}/tables/{code}")
    return person.page.locator("main[data-testid=table-result]")


def enter_scores(page: Page, scores: list[int]) -> None:
    for seat, score in enumerate(scores):
        page.fill(f"input[name=score{seat}]", str(score))
    page.click("button[data-action=enter-result]")


def entered_scores_shown(page: Page) -> list[int]:
    text = page.locator("[data-testid=entered-scores]").inner_text()
    return [int(n) for n in re.findall(r"-?\d+", text.replace("\u2212", "-"))]


def contains_in_order(found: list[int], wanted: list[int]) -> bool:
    rest = iter(found)
    return all(any(n == w for n in rest) for w in wanted)


def play_a_table(
    people: dict[str, Person],
    screen: Page,
    site: str,
    tournament_id: int,
    number: int,
    table: dict[str, Any],
    scores: list[int],
    *,
    disputed: bool,
    closely: bool,
    last: bool,
) -> None:
    """A seated player enters the table's scores on a phone; another confirms them (or, when
    ``disputed``, enters something else, and the admin settles it on the same page). A table
    looked at ``closely`` is pictured in each state, and first gets scores that are refused."""
    code = table["code"]
    names = seated(table)
    first, second = people[names[0]], people[names[1]]
    main = table_page(first, site, tournament_id, code)
    wait_for(main, "data-status", "missing")
    wait_for(main, "data-code", code)
    wait_for(main, "data-round", str(number))
    for seat, name in enumerate(names):
        expect(first.page.locator(f'[data-seat="{seat}"]')).to_contain_text(name)
    if closely:
        # The bell's round item leads here; scores that do not sum to zero are refused.
        bell_link = first.page.locator('[data-testid=notifications] li[data-kind="round"] a')
        link = urljoin(first.page.url, str(bell_link.get_attribute("href")))
        assert link == f"{site}/tournaments/{tournament_id}/tables/{code}"
        shot(first.page, "club-night-table-missing-390")
        assert first.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        enter_scores(first.page, [scores[0] + 1, scores[1], scores[2]])
        expect(first.page.locator("[data-testid=form-error]")).to_be_visible()
        wait_for(main, "data-status", "missing")
        shot(first.page, "club-night-table-refused-390")
    enter_scores(first.page, scores)
    wait_for(main, "data-status", "pending")
    assert contains_in_order(entered_scores_shown(first.page), scores)
    expect(first.page.locator("button[data-action=confirm-result]")).to_have_count(0)  # own entry
    screen_showed(screen, code, "pending")
    if closely:
        shot(first.page, "club-night-table-pending-390")

    main = table_page(second, site, tournament_id, code)
    wait_for(main, "data-status", "pending")
    if disputed:
        enter_scores(second.page, [scores[1], scores[0], scores[2]])
        wait_for(main, "data-status", "disputed")
        expect(second.page.locator("button[data-action=confirm-result]")).to_have_count(0)
        screen_showed(screen, code, "disputed")
        shot(second.page, "club-night-table-disputed-390")
        admin = people[ADMIN]
        main = table_page(admin, site, tournament_id, code)
        wait_for(main, "data-status", "disputed")
        screenshots(admin.page, "club-night-table-disputed-admin")
        enter_scores(admin.page, scores)
        wait_for(main, "data-status", "final")
        assert contains_in_order(entered_scores_shown(admin.page), scores)
    else:
        second.page.click("button[data-action=confirm-result]")
        wait_for(main, "data-status", "final")
        assert contains_in_order(entered_scores_shown(second.page), scores)
        if closely:
            shot(second.page, "club-night-table-final-390")
    if last:
        screen_moved_on(screen, code, number)
    else:
        screen_showed(screen, code, "final")


# 6. Standings and ratings ------------------------------------------------------------------


@dataclass
class Game:
    """One table's entered result: its players in seat order and their scores."""

    names: list[str]
    scores: list[int]

    @property
    def ranks(self) -> list[int]:
        return [1 + sum(other > score for other in self.scores) for score in self.scores]

    @property
    def points(self) -> list[float]:
        return points_for_ranks(self.ranks, POINTS_BY_RANK)


def points_of(games: list[Game]) -> dict[str, float]:
    points: dict[str, float] = defaultdict(float)
    for game in games:
        for name, got in zip(game.names, game.points, strict=True):
            points[name] += got
    return dict(points)


def standings_keys(games: list[Game]) -> dict[str, tuple[float, int, float]]:
    """Each player's (points, stakes, opponents' points): the standings' first three
    criteria (docs/tournaments.md "Scoring and standings")."""
    points = points_of(games)
    stakes: dict[str, int] = defaultdict(int)
    opponents: dict[str, float] = defaultdict(float)
    for game in games:
        for name, score in zip(game.names, game.scores, strict=True):
            stakes[name] += score
            opponents[name] += sum(points[other] for other in game.names if other != name)
    return {name: (points[name], stakes[name], round(opponents[name], 6)) for name in points}


def expected_ratings(games: list[Game]) -> dict[str, skill.Skill]:
    """The in-person ratings the entered games give, rated one by one in the order they were
    played through the rating model's pure function (not the ratings app's stored rows)."""
    ids = {name: index for index, name in enumerate(PLAYERS)}
    states: dict[int, skill.PlayerState] = {}
    at = timezone.now()  # one evening: no inactivity between the games
    for game in games:
        seats = [
            skill.SeatOutcome(seat, ids[name], rank)
            for seat, (name, rank) in enumerate(zip(game.names, game.ranks, strict=True))
        ]
        for change in skill.rate_game(seats, states, at):
            states[change.player_id] = skill.next_state(states.get(change.player_id), change, at)
    return {name: states[ids[name]].skill for name in PLAYERS}


def check_the_standings(
    people: dict[str, Person], screen: Page, site: str, tournament_id: int, games: list[Game]
) -> list[dict[str, Any]]:
    api = Client(site)
    standings = api.ok("GET", f"/tournaments/{tournament_id}/standings")["results"]
    order = [row["username"] for row in standings]
    keys = standings_keys(games)
    assert {row["username"]: row["points"] for row in standings} == pytest.approx(
        {name: key[0] for name, key in keys.items()}, abs=1e-3
    )
    assert {row["username"]: row["stakes"] for row in standings} == {
        name: key[1] for name, key in keys.items()
    }
    assert all(row["games"] == ROUNDS for row in standings)
    shown_keys = [keys[name] for name in order]
    assert shown_keys == sorted(shown_keys, reverse=True)  # points, stakes, opponents' points
    assert keys[order[0]] == max(keys.values())
    # The screen follows by itself: its rows come with the end, in the API's order.
    shows_in_order(screen, "table[data-testid=screen-standings] tr[data-username]", order)
    admin = people[ADMIN].page
    admin.goto(f"{site}/tournaments/{tournament_id}")
    admin.wait_for_selector('[data-tournament-status="finished"]')
    shows_in_order(admin, "#standings tr[data-username]", order)
    screenshots(admin, "club-night-tournament-finished")
    return list(standings)


def check_the_ratings(site: str, games: list[Game]) -> None:
    # The suite's server leaves rating to the tests (config/settings/test.py): the sweep's
    # service rates what the night kept, as beat does every five minutes.
    rating_services.rate_missed_games()
    api = Client(site)
    expected = expected_ratings(games)
    board = {
        row["username"]: row
        for which in ("ranked", "provisional", "inactive")
        for row in api.ok("GET", f"/ratings?pool=in_person&list={which}")["results"]
    }
    assert set(board) == set(PLAYERS)
    for name in PLAYERS:
        history = api.ok("GET", f"/players/{name}/ratings?pool=in_person")["results"]
        assert len(history) == ROUNDS and all(point["game"] is None for point in history)
        assert board[name]["games"] == ROUNDS
        assert (history[-1]["mu"], history[-1]["sigma"]) == pytest.approx(
            tuple(expected[name]), abs=1e-6
        ), name
        assert (board[name]["mu"], board[name]["sigma"]) == pytest.approx(
            tuple(expected[name]), abs=1e-6
        ), name


# 7. The league -----------------------------------------------------------------------------


def second_night(
    site: str, players: list[str], night_points: dict[str, float]
) -> tuple[int, list[Game]]:
    """A second in-person night of the club, through the API: one round, the players enter
    themselves and the admin enters every table's result (an organiser's entry stands). The
    results are chosen so that two players end the season level."""
    admin = api_token(site, ADMIN)
    tournament_id = admin.ok(
        "POST",
        "/tournaments",
        201,
        json={
            "name": "Thursday at the Crown, the week after",
            "format": "swiss",
            "rounds": 1,
            "hands_per_game": 1,
            "venue": "in_person",
            "club": SLUG,
        },
    )["id"]
    for name in players:
        api_token(site, name).ok("POST", f"/tournaments/{tournament_id}/register", 201)
    admin.ok("POST", f"/tournaments/{tournament_id}/start")
    tables = tables_of(admin, tournament_id, 1)
    games = results_making_a_tie([seated(t) for t in tables], night_points)
    for table, game in zip(tables, games, strict=True):
        path = f"/tournaments/{tournament_id}/rounds/1/tables/{table['code']}/result"
        assert admin.ok("POST", path, json={"scores": game.scores})["status"] == "final"
    wait_until(
        lambda: admin.ok("GET", f"/tournaments/{tournament_id}")["status"] == "finished",
        timeout=60,
        what="the second night to end",
    )
    return tournament_id, games


def results_making_a_tie(tables: list[list[str]], before: dict[str, float]) -> list[Game]:
    orders = [
        list(order) for shape in SHAPES for order in sorted(set(itertools.permutations(shape)))
    ]
    for choice in itertools.product(orders, repeat=len(tables)):
        games = [Game(names, scores) for names, scores in zip(tables, choice, strict=True)]
        totals = sum_points(before, points_of(games))
        if len(set(totals.values())) < len(totals):
            return games
    raise AssertionError("no results of the second night make a tie")


def sum_points(*nights: dict[str, float]) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for night in nights:
        for name, points in night.items():
            totals[name] += points
    return dict(totals)


def league_ranks(totals: dict[str, float]) -> list[tuple[str, float, int]]:
    """(username, points, rank), best first; equal points share a rank (1, 2, 2, 4), and
    within a rank by username."""
    order = sorted(totals, key=lambda name: (-totals[name], name))
    return [
        (name, totals[name], 1 + sum(other > totals[name] for other in totals.values()))
        for name in order
    ]


def add_night(admin: Page, tournament_id: int) -> None:
    form = admin.locator("form[data-testid=league-add-night]")
    form.locator("select[name=tournament]").select_option(str(tournament_id))
    form.locator("[data-action=add-night]").click()
    expect(admin.locator(f'[data-tournament-id="{tournament_id}"]').first).to_be_attached()


def league_rows(admin: Page) -> list[tuple[str, float, int, int]]:
    rows = admin.locator("table[data-testid=league-standings] tr[data-username]")
    shown = rows.evaluate_all(
        "rs => rs.map(r => [r.dataset.username, r.dataset.points, r.dataset.rank,"
        " r.dataset.nights])"
    )
    return [(name, float(points), int(rank), int(nights)) for name, points, rank, nights in shown]


# The story ---------------------------------------------------------------------------------


def test_it_runs_a_club_night_at_real_tables_through_the_pages(
    site: str, browser: Browser, people: dict[str, Person]
) -> None:
    admin = people[ADMIN].page
    api = Client(site)

    # 1. The club, and its members joining each way.
    found_the_club(admin, site)
    ask_and_be_approved(admin, people[ASKS], site)
    invite_and_accept_from_the_bell(admin, people[INVITED], site)
    open_the_club(admin, site, api)
    for name in PLAYERS:
        if name not in (ASKS, INVITED):
            join(people[name], site)
    admin.goto(f"{site}/clubs/{SLUG}")
    expect(member_rows(admin)).to_have_count(1 + len(PLAYERS))
    assert set(usernames(member_rows(admin))) == {ADMIN, *PLAYERS}
    wait_for(
        admin.locator(f'table[data-testid=club-members] tr[data-username="{ADMIN}"]'),
        "data-role",
        "owner",
    )
    screenshots(admin, "club-night-club")

    # 2. The night: a swiss of the nine members, at real tables. Each enters from the
    # tournament's page.
    tournament_id = organise_the_night(admin, site)
    detail = api.ok("GET", f"/tournaments/{tournament_id}")
    assert (detail["venue"], detail["club"], detail["format"], detail["round_count"]) == (
        "in_person",
        SLUG,
        "swiss",
        ROUNDS,
    )
    for name in PLAYERS:
        enter(people[name], site, tournament_id)
    start(admin, site, tournament_id)

    # 3. The seating sheet to print.
    check_the_print(admin, site, tournament_id, api)

    # 4. The screen for the room, open before any result and never reloaded.
    projector = browser.new_context(viewport=PROJECTOR)  # type: ignore[arg-type]
    projector.set_default_timeout(20_000)
    try:
        screen = new_page(projector)
        screen.goto(f"{site}/tournaments/{tournament_id}/screen")
        screen.evaluate("window.__theNight = 'never reloaded'")
        screen.evaluate(SCREEN_LOG)

        # 5. Three rounds: every table entered on a phone and confirmed; one disputed.
        games: list[Game] = []
        for number in range(1, ROUNDS + 1):
            wait_for_round(api, tournament_id, number)
            tables = tables_of(api, tournament_id, number)
            assert len(tables) == 3
            screen_shows_round(screen, number, tables)
            if number == 1:
                screenshots(screen, "club-night-screen-round-1")
                shot(screen, "club-night-screen-round-1-1920")
            for index, table in enumerate(tables):
                # The round stays open until its last table's result stands.
                assert api.ok("GET", f"/tournaments/{tournament_id}")["current_round"] == number
                game = Game(seated(table), SCORES[len(games)])
                play_a_table(
                    people,
                    screen,
                    site,
                    tournament_id,
                    number,
                    table,
                    game.scores,
                    disputed=number == 1 and index == 0,
                    closely=number == 1 and index == 1,
                    last=index == len(tables) - 1,
                )
                games.append(game)
                if number == 1 and index == 0:
                    shot(screen, "club-night-screen-results-coming-1920")
            final = api.ok("GET", f"/tournaments/{tournament_id}/rounds/{number}")
            assert [t["result"]["scores"] for t in final["tables"]] == [
                g.scores for g in games[-len(tables) :]
            ]

        # 6. The final standings, on the screen and the tournament's page, and the ratings.
        main = screen.locator("main[data-testid=screen]")
        wait_for(main, "data-status", "finished", timeout=60_000)
        standings = check_the_standings(people, screen, site, tournament_id, games)
        screenshots(screen, "club-night-screen-finished")
        shot(screen, "club-night-screen-finished-1920")
        assert screen.evaluate("window.__theNight") == "never reloaded"
        versions = screen.evaluate("window.__versions")
        assert len(set(versions)) == len(versions), versions
        assert screen.errors == []  # type: ignore[attr-defined]
    finally:
        projector.close()
    check_the_ratings(site, games)

    # 7. A league of this night and the next: ranked by the sum of the nights' points.
    admin.goto(f"{site}/clubs/{SLUG}")
    form = admin.locator("form[data-testid=league-new]")
    form.locator("[name=name]").fill("Winter season")
    form.locator("select[name=scoring]").select_option("sum")
    form.locator("[data-action=create-league]").click()
    admin.wait_for_url(re.compile(rf"/clubs/{SLUG}/leagues/\d+$"))
    league_id = int(admin.url.rsplit("/", 1)[1])
    night_points = {row["username"]: float(row["points"]) for row in standings}
    second_id, second_games = second_night(site, PLAYERS, night_points)
    for night in (tournament_id, second_id):
        add_night(admin, night)
    admin.goto(f"{site}/clubs/{SLUG}/leagues/{league_id}")
    for night in (tournament_id, second_id):
        expect(admin.locator(f'[data-tournament-id="{night}"]').first).to_be_attached()
    totals = sum_points(points_of(games), points_of(second_games))
    wanted = league_ranks(totals)
    assert len({points for _, points, _ in wanted}) < len(wanted)  # a tie, sharing a rank
    # Every point is a multiple of 0.5 here (3/1/0, shared places): the sums are exact.
    assert league_rows(admin) == [(name, points, rank, 2) for name, points, rank in wanted]
    league = api.ok("GET", f"/clubs/{SLUG}/leagues/{league_id}")
    assert [(s["username"], s["rank"]) for s in league["standings"]] == [
        (name, rank) for name, _, rank in wanted
    ]
    screenshots(admin, "club-night-league")

    # The club page lists both nights and the league.
    admin.goto(f"{site}/clubs/{SLUG}")
    for night in (tournament_id, second_id):
        expect(admin.locator(f'[data-tournament-id="{night}"]').first).to_be_attached()
    expect(admin.locator(f'a[data-league-id="{league_id}"]')).to_have_count(1)
    screenshots(admin, "club-night-club-after")
    for person in people.values():
        assert person.page.errors == [], person.name  # type: ignore[attr-defined]
