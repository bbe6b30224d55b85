"""Text contrast as the screen shows it, measured in the browser: WCAG's contrast ratio
between a text's colour and the colour behind it, each composited through every background
and opacity of the elements above it (tests/test_web_cards_browser.py,
tests/test_web_accessibility.py)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

#: The least contrast of normal text (WCAG 2 AA).
MINIMUM = 4.5

#: For each text-holding element of an element (itself included; with ``whole``, the element
#: alone, as a select showing its choice): the colour of its text and of what is behind it,
#: each as the screen shows it (composited over the backgrounds and opacities behind it).
SHOWN_COLOURS = """(card, whole = false) => {
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
    const holders = whole ? [card] : [card, ...card.querySelectorAll("*")].filter(
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


#: Every disabled control of the page that shows words (a disabled button or select, or an
#: element marked ``aria-disabled``), each with the start of its HTML and the colours of its
#: text.
DISABLED_CONTROLS = f"""() => [...document.querySelectorAll(
        'button:disabled, select:disabled, [aria-disabled="true"]')]
    .filter((n) => n.getClientRects().length && n.textContent.trim())
    .map((n) => ({{
        target: n.outerHTML.slice(0, 120),
        colours: ({SHOWN_COLOURS})(n, n.tagName === "SELECT"),
    }}))"""


def faint_disabled_controls(page: Page) -> list[str]:
    """The page's disabled controls whose text is below :data:`MINIMUM` against what is
    behind it, each said with its ratio and the start of its HTML."""
    found: list[dict[str, Any]] = page.evaluate(DISABLED_CONTROLS)
    faint = []
    for control in found:
        ratio = min(contrast(shown["text"], shown["back"]) for shown in control["colours"])
        if ratio < MINIMUM:
            faint.append(f"{ratio:.2f}:1  {' '.join(control['target'].split())}")
    return faint
