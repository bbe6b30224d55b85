"""The rules page and the create-table form in a real browser, at a desktop's and a phone's
width: nothing wider than the screen, the navigation on one row, the preset anchors reached;
in the lobby, the seat the person takes is not offered to a bot."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from games.engine import PRESETS
from tests.browser import ARTEFACTS, new_page, sign_up

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {1280: 900, 390: 844}


def overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than the window (0: none)."""
    return int(
        page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
    )


def nav_rows(page: Page) -> int:
    """The rows the top navigation's links take."""
    return int(
        page.evaluate(
            """() => new Set(Array.from(document.querySelectorAll("header nav a"))
                .map(a => Math.round(a.getBoundingClientRect().top))).size"""
        )
    )


def test_it_shows_the_rules_at_a_desktop_and_a_phone_width(
    api_server: Any, context: BrowserContext
) -> None:
    page = new_page(context)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for width, height in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{api_server.url}/rules")
        page.screenshot(path=str(ARTEFACTS / f"rules-{width}.png"), full_page=True)

        assert overflow(page) == 0, width
        assert nav_rows(page) == 1, width
        assert page.locator("header nav a[data-nav=rules]").is_visible()
        assert page.locator("article.preset").count() == len(PRESETS)
        # Cards are drawn at a readable size.
        card = page.locator("#tricks .card").first.bounding_box()
        assert card is not None and card["width"] >= 30 and card["height"] >= 40
        page.goto(f"{api_server.url}/rules#preset-woburn")
        heading = page.locator("#preset-woburn h3")
        assert heading.is_visible()
        box = heading.bounding_box()
        assert box is not None and 0 <= box["y"] < height, width
    assert page.errors == []  # type: ignore[attr-defined]


def test_it_never_offers_the_persons_own_seat_to_a_bot(
    api_server: Any, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, api_server.url, "rulesann")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{api_server.url}/lobby")
    seat = {n: page.locator(f"select[name=seat_{n}]") for n in range(4)}

    assert seat[0].is_disabled() and seat[3].is_disabled()
    assert seat[1].is_enabled() and seat[2].is_enabled()
    page.select_option("select[name=seat_1]", "house:random")
    page.select_option("select[name=my_seat]", "1")
    assert seat[1].is_disabled() and seat[1].input_value() == ""
    assert seat[0].is_enabled()
    page.check("input[name=preset][value='four-handed']")
    assert seat[3].is_enabled()
    page.check("input[name=preset][value='classic']")
    assert seat[3].is_disabled()
    link = page.locator("#create-table li[data-preset=woburn] a.preset-rules")
    assert link.get_attribute("href") == "/rules#preset-woburn"
    assert overflow(page) == 0
    page.locator("#create-table").screenshot(path=str(ARTEFACTS / "lobby-create-table-390.png"))
    assert page.errors == []  # type: ignore[attr-defined]
