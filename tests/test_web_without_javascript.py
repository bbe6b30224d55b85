"""The pages that only show data work with JavaScript turned off (docs/web.md): a browser
without scripts reads the start page, the leaderboard, a profile with its chart and history,
a finished game's page and its replay (stepping by links), the lobby and the tournaments."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from games.models import Game
from ratings.services import rate_game
from tests.browser import DESKTOP, screenshots
from tests.service_games import play_until, seated_game

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False, viewport=DESKTOP)  # type: ignore[arg-type]
    context.set_default_timeout(20_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def finished_game() -> Game:
    game, _ = seated_game("classic", names=("ann", "bob", "cy"))
    game = play_until(game, _, "finished")
    assert rate_game(game.pk)
    return game


def cards_on(page: Page) -> set[str]:
    return set(page.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))


def test_it_shows_every_read_only_page_without_javascript(
    api_server: Any, page: Page, finished_game: Game
) -> None:
    site = api_server.url
    game_id = finished_game.pk
    ranks = {p.player.username: p.rank for p in finished_game.players.select_related("player")}

    page.goto(f"{site}/")
    assert page.locator("h1").count() == 1
    page.goto(f"{site}/leaderboard")
    shown = page.locator("tr[data-username]").evaluate_all(
        "els => els.map(e => e.dataset.username)"
    )
    assert sorted(shown) == ["ann", "bob", "cy"]
    screenshots(page, "leaderboard")

    page.goto(f"{site}/players/ann")
    assert page.locator(f'tr[data-game-id="{game_id}"]').count() == 1
    assert page.locator("svg").count() >= 1

    page.goto(f"{site}/games/{game_id}")
    result = page.locator('[data-testid="result"] tr[data-rank]')
    assert result.count() == 3
    assert page.locator("main[data-game-id]").get_attribute("data-status") == "finished"
    seat_ranks = {
        str(result.nth(i).locator("a").inner_text()): int(
            str(result.nth(i).get_attribute("data-rank"))
        )
        for i in range(3)
    }
    assert seat_ranks == ranks

    page.goto(f"{site}/games/{game_id}/replay")
    first = cards_on(page)
    assert len(first) >= 48
    page.locator('a[data-nav="next"]').click()
    assert page.locator("main[data-step]").get_attribute("data-step") == "1"
    page.locator('a[data-nav="last"]').click()
    assert page.locator('[data-testid="result"]').count() == 1

    page.goto(f"{site}/lobby")
    assert page.locator("h1").inner_text() == "Lobby"
    page.goto(f"{site}/tournaments")
    assert page.locator("h1").count() == 1
    page.goto(f"{site}/no-such-page")
    assert "There is no page" in page.content()
