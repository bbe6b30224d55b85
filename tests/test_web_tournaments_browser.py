"""A club tournament run from the pages in a real browser: an organiser creates a swiss, enters
house bots, a person enters themself, the organiser starts it, and the page follows it to the
end by itself; its standings are the API's. Chromium drives the suite's live server, whose
worker plays the house bots and advances the rounds (docs/web.md "Tournaments"). The page
follows the tournament's push channel (``/api/v1/tournaments/{id}/live``), and asks every few
seconds instead where it cannot."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page

from games.models import Game
from tests.browser import new_page, screenshots, sign_up
from tests.conftest import LiveServer
from tests.tournament_helpers import new_tournament, play_fallbacks, players
from tournaments.services import entries, running

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


def requests_of(page: Page) -> list[str]:
    """The paths the page asks for from now on (filled as it asks)."""
    paths: list[str] = []
    page.on("request", lambda request: paths.append(request.url.split("//", 1)[1].split("/", 1)[1]))
    return paths


def standings_shown(page: Page) -> list[str]:
    rows = page.locator("#standings tr[data-username]")
    return [str(rows.nth(i).get_attribute("data-username")) for i in range(rows.count())]


def test_it_runs_a_swiss_of_house_bots_and_a_person_from_the_pages(
    site: str, context: BrowserContext
) -> None:
    ann = new_page(context)
    sign_up(ann, site, "ann")
    ann.goto(f"{site}/tournaments/new")
    ann.fill("input[name=name]", "Club night")
    ann.select_option("select[name=format]", "swiss")
    ann.fill("input[name=rounds]", "2")
    ann.fill("input[name=hands_per_game]", "1")
    ann.fill("input[name=move_seconds]", "2")  # bob does not play: the clock plays for him
    screenshots(ann, "tournament-new")
    ann.click("[data-action=create-tournament]")
    ann.wait_for_url(re.compile(r"/tournaments/\d+$"))
    assert ann.locator("tr[data-entrant]").count() == 0
    base = ann.url
    tournament_id = int(base.rsplit("/", 1)[1])
    for bot in [
        "house:heuristic",
        "house:random",
        "house:strong",
        "house:heuristic",
        "house:random",
    ]:
        ann.select_option("#add-bot", bot)
        with ann.expect_navigation():
            ann.click("[data-action=add-house-bot]")

    browser = context.browser
    assert browser is not None
    bobs_context = browser.new_context()
    try:
        bob = new_page(bobs_context)
        sign_up(bob, site, "bob")
        bob.goto(base)
        bob.click("[data-action=register]")
        bob.wait_for_selector("[data-action=withdraw]")
        # The organiser's open page shows the new entrant without being reloaded.
        ann.wait_for_selector('#tournament-live tr[data-entrant="bob"]', timeout=30_000)
        screenshots(ann, "tournament-open-organiser")
        assert bob.locator("[data-action=start]").count() == 0

        ann.click("[data-action=start]")
        ann.wait_for_selector('[data-tournament-status="running"]')
        screenshots(ann, "tournament-running")
        # The page follows the rounds and reloads itself at the end.
        ann.wait_for_selector('[data-tournament-status="finished"]', timeout=300_000)
        bob.wait_for_selector('[data-tournament-status="finished"]', timeout=30_000)
        screenshots(ann, "tournament-finished")

        api = httpx.get(f"{site}/api/v1/tournaments/{tournament_id}/standings", timeout=10)
        rows = api.json()["results"]
        assert len(rows) == 6 and {row["games"] for row in rows} == {2}
        assert standings_shown(ann) == [row["username"] for row in rows]
        assert standings_shown(bob) == [row["username"] for row in rows]
        for page in (ann, bob):
            assert page.errors == []  # type: ignore[attr-defined]
    finally:
        bobs_context.close()

    without_script = browser.new_context(java_script_enabled=False)
    try:
        plain = without_script.new_page()
        plain.goto(base)
        assert standings_shown(plain) == [row["username"] for row in rows]
        assert plain.locator("#round-2 tr[data-game-id]").count() == 2
        plain.goto(f"{site}/tournaments")
        assert (
            plain.locator(f'[data-group="finished"] [data-tournament-id="{tournament_id}"]').count()
            == 1
        )
        screenshots(plain, "tournaments-list")
    finally:
        without_script.close()


def test_it_follows_the_push_channel(api_server: LiveServer, context: BrowserContext) -> None:
    """A person's page gets each change of the tournament pushed, at once, and asks for
    nothing: the shared live part goes in place with the person's own rows marked."""
    site = api_server.url
    ann, *others = players("tpush", 5)  # people only: nothing moves unless the test moves it
    tournament = new_tournament(ann, [ann, *others])
    base = f"{site}/tournaments/{tournament.pk}"
    dora = new_page(context)
    sign_up(dora, site, "dora")
    asked = requests_of(dora)
    dora.goto(base)
    with dora.expect_navigation():
        dora.click("[data-action=register]")
    stream = f"api/v1/tournaments/{tournament.pk}/live"
    deadline = time.monotonic() + 10
    while not any(path.startswith(stream) for path in asked) and time.monotonic() < deadline:
        dora.wait_for_timeout(50)
    dora.wait_for_timeout(500)  # the stream opened

    changed_at = time.monotonic()
    entries.add_entrant(ann, tournament_id=tournament.pk, username="house:random")
    dora.wait_for_selector('#tournament-live tr[data-entrant="house:random #1"]', timeout=10_000)
    assert time.monotonic() - changed_at < 5  # pushed: the page asks every 10 s
    entries.remove_entrant(ann, tournament_id=tournament.pk, name="house:random #1")
    dora.wait_for_selector('#tournament-live tr[data-entrant="house:random #1"]', state="detached")

    running.start(ann, tournament_id=tournament.pk)  # a new status: the page reloads itself
    dora.wait_for_selector('[data-tournament-status="running"]')
    dora.wait_for_selector('#standings tr.me[data-username="dora"]')
    games = Game.objects.filter(tournament_table__round__tournament=tournament)
    others_table = games.exclude(players__player__username="dora").get()
    dora_s_table = games.get(players__player__username="dora")
    dora.wait_for_timeout(500)
    play_fallbacks(others_table.pk)
    dora.wait_for_selector(
        f'#round-1 tr[data-game-id="{others_table.pk}"]:not(:has(.badge.live))', timeout=10_000
    )
    assert dora.locator(f'#round-1 tr[data-game-id="{dora_s_table.pk}"] .badge.live').count() == 1
    assert dora.locator('#standings tr.me[data-username="dora"]').count() == 1
    assert dora.locator('.seats li.me[data-username="dora"]').count() == 1
    screenshots(dora, "tournament-pushed")

    play_fallbacks(dora_s_table.pk)
    running.advance(tournament_id=tournament.pk)  # (or the suite's worker did)
    dora.wait_for_selector('#tournament-live[data-round="2"]')
    assert f"tournaments/{tournament.pk}/live" not in asked  # it never asked for its part
    assert dora.errors == []  # type: ignore[attr-defined]


def test_it_asks_every_few_seconds_where_it_cannot_follow_the_channel(
    api_server: LiveServer, browser: Any
) -> None:
    """Without EventSource, or with a stream that never opens, the page asks for its live
    part as before."""
    site = api_server.url
    ann, bob = players("tpoll", 2)
    tournament = new_tournament(ann, [ann, bob])
    base = f"{site}/tournaments/{tournament.pk}"
    old = browser.new_context()
    old.add_init_script("delete window.EventSource;")
    broken = browser.new_context()
    broken.route("**/api/v1/tournaments/*/live*", lambda route: route.abort())
    try:
        pages = [new_page(old), new_page(broken)]
        asked = [requests_of(page) for page in pages]
        for page in pages:
            page.goto(base)
        entries.add_entrant(ann, tournament_id=tournament.pk, username="house:heuristic")
        for page in pages:
            page.wait_for_selector(
                '#tournament-live tr[data-entrant="house:heuristic #1"]', timeout=40_000
            )
            assert page.errors == []  # type: ignore[attr-defined]
        polled = f"tournaments/{tournament.pk}/live"
        assert polled in asked[0] and not any(p.startswith("api/") for p in asked[0])
        assert polled in asked[1]
        assert sum(p.startswith(f"api/v1/{polled}") for p in asked[1]) >= 3
    finally:
        old.close()
        broken.close()
