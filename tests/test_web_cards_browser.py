"""Cards in a person's hand in a real browser: an unplayable card still looks unplayable, yet
its rank and suit keep a text contrast of at least 4.5:1 against the card (WCAG's ratio, from
the colours the page computes, through every opacity and background behind the text)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from tests.browser import ARTEFACTS, new_page, sign_up
from tests.conftest import LiveServer
from tests.contrast import MINIMUM, SHOWN_COLOURS, contrast

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_draws_an_unplayable_red_card_with_readable_text(
    api_server: LiveServer, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, api_server.url, "contrastann")
    page.goto(f"{api_server.url}/lobby")
    page.check("input[name=preset][value='classic']")
    page.select_option("select[name=seat_1]", "house:random")
    page.select_option("select[name=seat_2]", "house:random")
    page.click("[data-action=create-table]")
    page.wait_for_selector("main .hand button.card.red")

    # One red card unplayable and one card playable, as the server draws them, measured at
    # one instant (the page replaces its table as the house bots play).
    measured: dict[str, Any] = page.evaluate(
        f"""() => {{
            const cards = [...document.querySelectorAll("main .hand button.card")];
            const red = cards.find((c) => c.classList.contains("red"));
            const other = cards.find((c) => c !== red);
            red.disabled = true;
            other.disabled = false;
            const style = (c) => {{
                const s = getComputedStyle(c);
                return {{background: s.backgroundColor, image: s.backgroundImage,
                         border: s.borderTopStyle, shadow: s.boxShadow, cursor: s.cursor}};
            }};
            return {{colours: ({SHOWN_COLOURS})(red), off: style(red), on: style(other)}};
        }}"""
    )
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.locator("main .hand").screenshot(path=str(ARTEFACTS / "hand-unplayable.png"))

    ratios = [contrast(shown["text"], shown["back"]) for shown in measured["colours"]]
    assert len(ratios) >= 2 and min(ratios) >= MINIMUM, ratios
    # Still unplayable to the eye: a dimmed card with a dashed edge and a hatch, no gold ring.
    off, on = measured["off"], measured["on"]
    assert off["background"] != on["background"] and off["border"] == "dashed"
    assert "gradient" in off["image"] and off["shadow"] == "none" != on["shadow"]
    assert off["cursor"] == "default" != on["cursor"]
    assert page.errors == []  # type: ignore[attr-defined]
