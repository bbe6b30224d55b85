"""The start page in a real browser: its "Being played now" table stays inside its card at a
desktop's and a phone's width, players with the longest names allowed included."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext

from tests.browser import ARTEFACTS, new_page
from tests.conftest import LiveServer
from tests.game_helpers import start_table, three_players

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {1280: 900, 390: 844}
#: A username as long as the site allows, less the digit three_players adds.
LONG_NAME = "averyverylongplayername-numbe"


def test_it_keeps_the_games_being_played_inside_their_card(
    api_server: LiveServer, context: BrowserContext
) -> None:
    players = three_players(api_server.url, LONG_NAME)
    start_table(players[0], players[1:], "9-5-3-single-kitty")
    start_table(players[1], [players[2], players[0]], {"preset": "classic", "max_hands": 2})
    page = new_page(context)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{api_server.url}/")
        page.wait_for_selector("#games-in-play tr[data-game-id]")
        page.screenshot(path=str(ARTEFACTS / f"home-{width}.png"), full_page=True)

        sizes = page.evaluate(
            """() => {
                const table = document.querySelector("#games-in-play table");
                const card = table.closest(".panel");
                return {table: table.scrollWidth, card: card.clientWidth,
                        page: document.documentElement.scrollWidth,
                        window: document.documentElement.clientWidth};
            }"""
        )
        assert sizes["table"] <= sizes["card"], (width, sizes)
        assert sizes["page"] <= sizes["window"], (width, sizes)
    assert page.errors == []  # type: ignore[attr-defined]
