"""A club tournament run from the pages in a real browser: an organiser creates a swiss, enters
house bots, a person enters themself, the organiser starts it, and the page follows it to the
end by itself; its standings are the API's. Chromium drives the suite's live server, whose
worker plays the house bots and advances the rounds (docs/web.md "Tournaments")."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page

from tests.browser import new_page, screenshots, sign_up

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


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
        rows = api.json()
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
