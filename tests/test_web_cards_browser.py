"""Cards in a person's hand in a real browser: an unplayable card still looks unplayable, yet
its rank and suit keep a text contrast of at least 4.5:1 against the card (WCAG's ratio, from
the colours the page computes, through every opacity and background behind the text)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from tests.browser import ARTEFACTS, new_page, sign_up
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

#: For each text-holding element of a card: the colour of its text and of the card behind it,
#: each as the screen shows it (composited over the backgrounds and opacities behind it).
SHOWN_COLOURS = """(card) => {
    const parse = (css) => {
        const parts = css.match(/rgba?\\(([^)]+)\\)/)[1].split(/[\\s,\\/]+/).filter(Boolean);
        const [r, g, b, a] = parts.map(Number);
        return {r, g, b, a: parts.length > 3 ? a : 1};
    };
    const over = (top, below) => ({
        r: top.r * top.a + below.r * (1 - top.a), g: top.g * top.a + below.g * (1 - top.a),
        b: top.b * top.a + below.b * (1 - top.a), a: 1,
    });
    const faded = (inner, below, opacity) => over({...inner, a: opacity}, below);
    const shown = (node, text) => {
        const chain = [];
        for (let n = node; n; n = n.parentElement) chain.unshift(n);
        const draw = (i, below) => {
            const style = getComputedStyle(chain[i]);
            let inner = over(parse(style.backgroundColor), below);
            if (i < chain.length - 1) inner = draw(i + 1, inner);
            else if (text) inner = over(parse(style.color), inner);
            return faded(inner, below, Number(style.opacity));
        };
        return draw(0, {r: 255, g: 255, b: 255, a: 1});
    };
    const holders = [card, ...card.querySelectorAll("*")].filter(
        (n) => [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()));
    return holders.map((n) => ({text: shown(n, true), back: shown(n, false)}));
}"""


def luminance(colour: dict[str, float]) -> float:
    def linear(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * linear(colour["r"]) + 0.7152 * linear(colour["g"]) + 0.0722 * linear(colour["b"])
    )


def contrast(one: dict[str, float], other: dict[str, float]) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


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
    assert len(ratios) >= 2 and min(ratios) >= 4.5, ratios
    # Still unplayable to the eye: a dimmed card with a dashed edge and a hatch, no gold ring.
    off, on = measured["off"], measured["on"]
    assert off["background"] != on["background"] and off["border"] == "dashed"
    assert "gradient" in off["image"] and off["shadow"] == "none" != on["shadow"]
    assert off["cursor"] == "default" != on["cursor"]
    assert page.errors == []  # type: ignore[attr-defined]
