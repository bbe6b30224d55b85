"""The room pages of an in-person night (docs/web.md "The room pages"): a table's result page,
where the table's players enter and confirm the scores from their phones through the same
services as the API, and the screen, which follows the tournament's live stream with its
shared "screen" fragment and never reloads. Chromium drives the suite's live server, whose
worker scores the rounds and seats the next."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.api_client import Client, register
from tests.browser import ARTEFACTS, DESKTOP, PASSWORD, PHONE, new_page, screenshots
from tests.conftest import LiveServer
from tests.live_client import tournament_reader
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

NIGHT = {
    "name": "Thursday at the Crown",
    "format": "swiss",
    "rounds": 2,
    "hands_per_game": 1,
    "venue": "in_person",
}
PROJECTOR = {"width": 1920, "height": 1080}


@pytest.fixture
def site(api_server: LiveServer, celery_worker: Any) -> str:
    return str(api_server.url)


@pytest.fixture
def phones(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Browser contexts made by the test, closed after it."""
    made: list[BrowserContext] = []
    yield made
    for context in made:
        context.close()


def person(base: str, username: str) -> Client:
    return register(base, username, password=PASSWORD)


def night(organiser: Client, players: list[Client]) -> int:
    """An in-person night with ``players`` entered and started."""
    tid = int(organiser.ok("POST", "/tournaments", 201, json=NIGHT)["id"])
    for player in players:
        player.ok("POST", f"/tournaments/{tid}/register", 201)
    organiser.ok("POST", f"/tournaments/{tid}/start")
    return tid


def table_of(client: Client, tid: int, number: int) -> dict[str, Any]:
    """The round's first table (three entrants: its only one)."""
    table = client.ok("GET", f"/tournaments/{tid}/rounds/{number}")["tables"][0]
    assert isinstance(table, dict)
    return table


def result_of(client: Client, tid: int, number: int, code: str) -> dict[str, Any]:
    found = client.ok("GET", f"/tournaments/{tid}/rounds/{number}/tables/{code}/result")
    assert isinstance(found, dict)
    return found


def phone_of(
    browser: Browser,
    phones: list[BrowserContext],
    base: str,
    username: str,
    *,
    scripts: bool = True,
) -> Page:
    """A phone's page, logged in as ``username`` (nobody when empty), with or without
    JavaScript."""
    context = browser.new_context(viewport=PHONE, java_script_enabled=scripts)  # type: ignore[arg-type]
    context.set_default_timeout(20_000)
    phones.append(context)
    page = new_page(context)
    if username:
        page.goto(f"{base}/login")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        page.click("main form button[type=submit]")
        page.wait_for_url(f"{base}/")
    return page


def enter(page: Page, scores: list[int | str]) -> None:
    for seat, score in enumerate(scores):
        page.fill(f"input[name=score{seat}]", str(score))
    with page.expect_navigation():
        page.click("[data-action=enter-result]")


def status_of(page: Page) -> str | None:
    return page.locator("main[data-testid=table-result]").get_attribute("data-status")


def seats_shown(page: Page) -> list[str]:
    seats = page.locator("[data-seat]")
    return [str(seats.nth(i).get_attribute("data-username")) for i in range(seats.count())]


def projector(page: Page, name: str) -> None:
    """The screen as a projector shows it (1920 by 1080)."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size(PROJECTOR)  # type: ignore[arg-type]
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"))


def standings_shown(page: Page) -> list[str]:
    rows = page.locator("table[data-testid=screen-standings] tr[data-username]")
    return [str(rows.nth(i).get_attribute("data-username")) for i in range(rows.count())]


def test_it_enters_and_confirms_a_result_from_phones_while_the_screen_follows(
    site: str, browser: Browser, phones: list[BrowserContext]
) -> None:
    ann = person(site, "ann")
    players = {c.username: c for c in (person(site, n) for n in ("bob", "cat", "dee"))}
    tid = night(ann, list(players.values()))
    table = table_of(ann, tid, 1)
    code = table["code"]
    first, second, third = (s["username"] for s in table["seats"])
    screen = phone_of(browser, phones, site, "")
    screen.set_viewport_size(PROJECTOR)  # type: ignore[arg-type]
    screen.goto(f"{site}/tournaments/{tid}/screen")
    screen.evaluate("window.sameScreen = true")
    shown = screen.locator(f"[data-table-code='{code}']")
    assert shown.get_attribute("data-status") == "missing"
    assert screen.locator("main[data-testid=screen]").get_attribute("data-round") == "1"
    assert "0 of 1 result in" in screen.inner_text("main")
    projector(screen, "room-screen-waiting-projector")

    entering = phone_of(browser, phones, site, first)
    entering.goto(f"{site}/tournaments/{tid}/tables/{code}")
    main = entering.locator("main[data-testid=table-result]")
    assert status_of(entering) == "missing"
    assert main.get_attribute("data-code") == code and main.get_attribute("data-round") == "1"
    assert seats_shown(entering) == [first, second, third]
    assert entering.locator("[data-action=confirm-result]").count() == 0
    label = entering.locator("label[for=score0]").inner_text()
    assert first in label
    screenshots(entering, "room-table-missing")

    enter(entering, [3, -1, -2])

    assert status_of(entering) == "pending"
    entered = entering.locator("[data-testid=entered-scores]").inner_text()
    assert "3" in entered and first in entered
    # Whoever entered it does not confirm it.
    assert entering.locator("[data-action=confirm-result]").count() == 0
    screenshots(entering, "room-table-pending")
    # The screen shows the entry without reloading: its status only.
    wait_until(lambda: shown.get_attribute("data-status") == "pending", what="the screen")
    assert shown.locator(".screen-score").count() == 0
    projector(screen, "room-screen-entered-projector")
    # A page opened now without JavaScript, to enter again once the round is over.
    late = phone_of(browser, phones, site, third, scripts=False)
    late.goto(f"{site}/tournaments/{tid}/tables/{code}")

    confirming = phone_of(browser, phones, site, second)
    confirming.goto(f"{site}/tournaments/{tid}/tables/{code}")
    assert status_of(confirming) == "pending"
    with confirming.expect_navigation():
        confirming.click("[data-action=confirm-result]")

    result = result_of(ann, tid, 1, code)
    assert result == {
        "status": "final",
        "scores": [3, -1, -2],
        "entered_by": first,
        "confirmed_by": second,
    }
    assert status_of(confirming) == "final"
    # The page of the player who entered it follows: the confirmation arrives there too.
    wait_until(lambda: status_of(entering) == "final", what="the confirmation to arrive")
    assert confirming.locator("[data-action=enter-result]").count() == 0
    confirmed = confirming.locator("[data-testid=entered-scores]").inner_text()
    assert second in confirmed
    screenshots(confirming, "room-table-final")
    # The last table of round 1 stands: the worker seats round 2, and the screen shows it.
    main_of_screen = screen.locator("main[data-testid=screen]")
    wait_until(lambda: main_of_screen.get_attribute("data-round") == "2", what="round 2")
    next_code = table_of(ann, tid, 2)["code"]
    assert next_code != code
    assert screen.locator(f"[data-table-code='{next_code}']").get_attribute("data-status") == (
        "missing"
    )
    standings = ann.ok("GET", f"/tournaments/{tid}/standings")["results"]
    assert standings_shown(screen) == [s["username"] for s in standings]
    assert standings_shown(screen)[0] == first
    assert screen.evaluate("window.sameScreen") is True
    assert (
        int(str(main_of_screen.get_attribute("data-version")))
        == (ann.ok("GET", f"/tournaments/{tid}")["version"])
    )
    projector(screen, "room-screen-round-2-projector")
    screenshots(screen, "room-screen-round-2")

    # A page loaded while round 1 was played: its entry now is refused, and nothing changes.
    enter(late, [0, 0, 0])
    assert late.locator("[data-testid=form-error]").get_attribute("data-code") == "round_closed"
    assert result_of(ann, tid, 1, code) == result

    # Round 2 settled by the organiser from the table's page: the night ends on the screen.
    organiser = phone_of(browser, phones, site, "ann")
    organiser.goto(f"{site}/tournaments/{tid}/tables/{next_code}")
    enter(organiser, [-2, 1, 1])
    assert status_of(organiser) == "final"
    wait_until(lambda: main_of_screen.get_attribute("data-status") == "finished", what="the end")
    assert "Final standings" in screen.inner_text("main")
    standings = ann.ok("GET", f"/tournaments/{tid}/standings")["results"]
    assert standings_shown(screen) == [s["username"] for s in standings]
    assert screen.evaluate("window.sameScreen") is True
    projector(screen, "room-screen-finished-projector")
    screenshots(screen, "room-screen-finished")
    for page in (screen, entering, confirming, late, organiser):
        assert page.errors == []  # type: ignore[attr-defined]


def test_it_shows_refusals_on_the_page_and_changes_nothing(
    site: str, browser: Browser, phones: list[BrowserContext]
) -> None:
    ann = person(site, "ann")
    players = [person(site, n) for n in ("bob", "cat", "dee")]
    stranger = person(site, "eve")
    tid = night(ann, players)
    code = table_of(ann, tid, 1)["code"]
    first = table_of(ann, tid, 1)["seats"][0]["username"]
    path = f"{site}/tournaments/{tid}/tables/{code}"
    missing = {"status": "missing", "scores": None, "entered_by": None, "confirmed_by": None}

    seated = phone_of(browser, phones, site, first)
    seated.goto(path)
    enter(seated, [3, -1, -1])  # no game ends with scores that do not sum to zero

    error = seated.locator("[data-testid=form-error]")
    assert error.get_attribute("data-code") == "invalid_scores"
    assert status_of(seated) == "missing"
    assert seated.input_value("input[name=score2]") == "-1"  # kept to be corrected
    assert result_of(ann, tid, 1, code) == missing
    screenshots(seated, "room-table-invalid")

    other = phone_of(browser, phones, site, stranger.username)
    other.goto(path)
    assert other.locator("[data-action=confirm-result]").count() == 0
    enter(other, [3, -1, -2])

    assert other.locator("[data-testid=form-error]").get_attribute("data-code") == (
        "not_at_this_table"
    )
    assert result_of(ann, tid, 1, code) == missing

    visitor = phone_of(browser, phones, site, "")
    visitor.goto(path)
    assert status_of(visitor) == "missing"
    assert visitor.locator("[data-action=enter-result]").count() == 0
    visitor.click("[data-action=log-in]")
    visitor.fill("input[name=username]", first)
    visitor.fill("input[name=password]", PASSWORD)
    with visitor.expect_navigation():
        visitor.click("main form button[type=submit]")
    assert visitor.url == path
    assert visitor.locator("[data-action=enter-result]").count() == 1
    screenshots(visitor, "room-table-signed-in")


def test_it_lets_an_organiser_settle_a_disputed_result_from_the_same_page(
    site: str, browser: Browser, phones: list[BrowserContext]
) -> None:
    ann = person(site, "ann")
    players = {c.username: c for c in (person(site, n) for n in ("bob", "cat", "dee"))}
    tid = night(ann, list(players.values()))
    table = table_of(ann, tid, 1)
    code = table["code"]
    first, second, third = (s["username"] for s in table["seats"])
    path = f"{site}/tournaments/{tid}/tables/{code}"
    players[first].ok(
        "POST", f"/tournaments/{tid}/rounds/1/tables/{code}/result", json={"scores": [3, -1, -2]}
    )

    disagreeing = phone_of(browser, phones, site, second)
    disagreeing.goto(path)
    enter(disagreeing, [-1, 3, -2])

    assert status_of(disagreeing) == "disputed"
    assert "organiser" in disagreeing.locator("[data-testid=entered-scores]").inner_text()
    assert result_of(ann, tid, 1, code)["status"] == "disputed"
    screenshots(disagreeing, "room-table-disputed")
    # An entry that does not stand yet is for the table and the organisers to check.
    visitor = httpx.get(path).text
    assert 'data-status="disputed"' in visitor and 'class="data entered"' not in visitor
    watching = phone_of(browser, phones, site, third)
    watching.goto(path)
    assert watching.locator("[data-action=confirm-result]").count() == 0

    organiser = phone_of(browser, phones, site, "ann")
    organiser.goto(path)
    assert status_of(organiser) == "disputed"
    enter(organiser, [2, -1, -1])

    assert status_of(organiser) == "final"
    assert result_of(ann, tid, 1, code) == {
        "status": "final",
        "scores": [2, -1, -1],
        "entered_by": "ann",
        "confirmed_by": None,
    }
    # The bell of a seated player linked to this page while the round was played.
    assert organiser.errors == []  # type: ignore[attr-defined]


def test_it_links_the_bell_and_the_tournament_page_to_the_tables_page(
    site: str, browser: Browser, phones: list[BrowserContext]
) -> None:
    ann = person(site, "ann")
    players = [person(site, n) for n in ("bob", "cat", "dee")]
    tid = night(ann, players)
    code = table_of(ann, tid, 1)["code"]
    page = phone_of(browser, phones, site, "bob")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    page.goto(f"{site}/tournaments/{tid}")
    link = page.locator(
        f"#tournament-live td.table-code a[href='/tournaments/{tid}/tables/{code}']"
    )
    assert link.count() == 1
    assert page.locator("[data-action=my-table]").get_attribute("href") == (
        f"/tournaments/{tid}/tables/{code}"
    )
    items = players[0].ok("GET", "/notifications")["items"]
    assert [(i["kind"], i["code"]) for i in items] == [("round", code)]
    bell = page.locator(f".bell-panel a[href='/tournaments/{tid}/tables/{code}']")
    assert bell.count() == 1


def test_it_sends_every_screen_the_same_fragment_the_page_shows(api_server: LiveServer) -> None:
    ann = person(api_server.url, "ann")
    players = [person(api_server.url, n) for n in ("bob", "cat", "dee")]
    tid = night(ann, players)
    table = table_of(ann, tid, 1)
    first = next(p for p in players if p.username == table["seats"][0]["username"])
    version = ann.ok("GET", f"/tournaments/{tid}")["version"]
    query = f"?fragment=screen&after={version}"
    screens = [tournament_reader(api_server.url, tid, query=query) for _ in range(2)]

    first.ok(
        "POST",
        f"/tournaments/{tid}/rounds/1/tables/{table['code']}/result",
        json={"scores": [3, -1, -2]},
    )

    messages = [s.wait_for(lambda found: len(found) >= 1)[0] for s in screens]
    for reader in screens:
        reader.stop()
    html = messages[0].data["html"]
    assert html == messages[1].data["html"]
    assert f'data-table-code="{table["code"]}" data-status="pending"' in html
    assert "score0" not in html and "csrfmiddlewaretoken" not in html
    # The screen's fallback answers the same part, and 304 while the version stands.
    polled = httpx.get(f"{api_server.url}/tournaments/{tid}/screen/live")
    assert polled.status_code == 200 and polled.text == html
    etag = polled.headers["ETag"]
    assert etag == f'"{messages[0].data["version"]}"'
    unchanged = httpx.get(
        f"{api_server.url}/tournaments/{tid}/screen/live", headers={"If-None-Match": etag}
    )
    assert unchanged.status_code == 304
    page = httpx.get(f"{api_server.url}/tournaments/{tid}/screen").text
    assert html in page
    assert re.search(r"<nav|<form|<button", page) is None  # no controls, no site navigation
    unknown = httpx.get(f"{api_server.url}/tournaments/{tid}/tables/QQQ")
    assert unknown.status_code == 404
