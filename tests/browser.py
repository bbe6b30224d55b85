"""Driving the web pages in a real browser: Debian's chromium through Playwright, against the
suite's live server (uvicorn) with its real worker, beat and move timer.

Screenshots go to ``ARTEFACTS_DIR`` (default ``var/artefacts/screenshots``), each page at a
desktop and a phone width (:func:`screenshots`).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ARTEFACTS = Path(os.environ.get("ARTEFACTS_DIR", ROOT / "var" / "artefacts")) / "screenshots"
PASSWORD = "correct horse battery 9"
#: A card's code where the page could carry it: in an attribute, a JSON value or text.
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][CDHS])(?![A-Za-z0-9])")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium for one test module. Not for the session: while Playwright's sync API is
    open, this thread counts as running an event loop, and later tests that run one of
    their own (``asyncio.run``) would fail."""
    # The tests' database reads between Playwright's calls are plain sync code, which
    # Django would refuse while that loop counts as running.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield launched
            finally:
                launched.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    made = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    made.set_default_timeout(20_000)
    try:
        yield made
    finally:
        made.close()


def new_page(context: BrowserContext) -> Page:
    """A page whose script errors fail the test (collected in ``page.errors``)."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def screenshots(page: Page, name: str) -> None:
    """The page as it is now at desktop width, and at a phone's width."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)  # type: ignore[arg-type]
        page.screenshot(path=str(ARTEFACTS / f"{name}-{label}.png"), full_page=True)
    if size:
        page.set_viewport_size(size)


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/signup")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{base}/")


def create_table(page: Page, base: str, *, preset: str, bots: list[str], **options: str) -> int:
    """Create a table from the lobby's form, the creator at seat 0 and ``bots`` in the other
    seats; returns the game's id (the page goes to the game when the table is full)."""
    page.goto(f"{base}/lobby")
    page.check(f"input[name=preset][value='{preset}']")
    for seat, bot in enumerate(bots, start=1):
        page.select_option(f"select[name=seat_{seat}]", bot)
    if options:
        page.click("details:has(input[name=max_hands]) summary")
        for name, value in options.items():
            page.fill(f"input[name={name}]", value)
    page.click("[data-action=create-table]")
    page.wait_for_url(re.compile(r"/games/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def table(page: Page) -> dict[str, str | None]:
    main = page.locator("main[data-game-id]")
    return {
        name: main.get_attribute(f"data-{name}")
        for name in ("game-id", "version", "status", "your-seat", "phase")
    }


@dataclass
class Snapshot:
    """What one page showed at one version of the game: every card code anywhere in it."""

    viewer: str
    seat: int | None
    version: int
    status: str
    cards: set[str]  # outside a completed trick drawn on the felt
    gathered: list[str] = field(default_factory=list)  # that trick's cards, as drawn


@dataclass
class Play:
    """What playing a game through the page did."""

    clicks: int = 0
    choices: dict[str, int] = field(default_factory=dict)  # "discard"/"give" → times made
    buttons: set[str] = field(default_factory=set)  # kinds of controls clicked
    calls_offered: set[str] = field(default_factory=set)  # trump/call buttons shown
    snapshots: list[Snapshot] = field(default_factory=list)


def snapshot(page: Page, viewer: str) -> Snapshot:
    # The page's HTML and the version it shows, read at one instant of the page's script;
    # a completed trick drawn on the felt (table.js) apart.
    shown = page.evaluate(
        """() => {
            const main = document.querySelector("main[data-game-id]");
            const page = document.documentElement.cloneNode(true);
            const trick = page.querySelector('[data-testid="trick-gathered"]');
            const gathered = trick ? [...trick.querySelectorAll("[data-card]")] : [];
            trick?.remove();
            return {html: page.outerHTML, gathered: gathered.map((c) => c.dataset.card),
                    ...main.dataset};
        }"""
    )
    seat = shown.get("yourSeat")
    return Snapshot(
        viewer=viewer,
        seat=int(seat) if seat is not None else None,
        version=int(shown["version"]),
        status=str(shown["status"]),
        cards=set(CARD_CODE.findall(shown["html"])),
        gathered=list(shown["gathered"]),
    )


def wait_for_change(page: Page, version: str | None, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "v => document.querySelector('main[data-game-id]').dataset.version !== v",
        arg=version,
        timeout=timeout,
    )


def play_to_end(
    page: Page,
    watchers: dict[str, Page],
    limit: float = 300,
    on_click: Callable[[int], None] | None = None,
) -> Play:
    """Play the page's seat to the end of the game by clicking: a legal card or call or bid
    when it is the seat's turn, chosen cards and the receiving seat for a discard or a give.
    Before every click, each page in ``watchers`` and ``page`` itself is snapshot; after
    each, ``on_click`` is called with the number of clicks so far."""
    played = Play()
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        shown = table(page)
        for name, other in {"player": page, **watchers}.items():
            played.snapshots.append(snapshot(other, name))
        if shown["status"] == "finished":
            return played
        version = shown["version"]
        picks = page.locator("main .hand button.pick")
        single = page.locator(
            "main .controls button[data-send]:not([disabled]), "
            "main .hand button[data-send]:not([disabled])"
        )
        calls = page.locator("main button[data-suit]")
        played.calls_offered |= set(calls.evaluate_all("els => els.map(e => e.dataset.suit)"))
        # The controls are read from the table of ``version`` only: a table that has just
        # been replaced (the seat's turn came meanwhile) is looked at again.
        if (picks.count() or single.count()) and table(page)["version"] != version:
            continue
        if picks.count():
            choice = page.locator(".choice")
            kind = str(choice.get_attribute("data-choice"))
            targets = choice.locator("button[data-to]")
            count = int(choice.get_attribute("data-count") or 0)
            if targets.count():
                targets.first.click()
                count = int(targets.first.get_attribute("data-count") or 0)
                played.buttons.add("to")
            for index in range(count):
                picks.nth(index).click()
                assert picks.nth(index).get_attribute("aria-pressed") == "true"
            page.click("[data-action=confirm]")
            played.choices[kind] = played.choices.get(kind, 0) + 1
        elif single.count():
            button = single.first
            for kind in ("suit", "bid", "card", "action"):
                if button.get_attribute(f"data-{kind}") is not None:
                    played.buttons.add(kind)
                    break
            if kind == "card" and "keyboard" not in played.buttons:
                # Once by keyboard: → focuses the first playable card, Enter plays it.
                page.locator("main").press("ArrowRight")
                focused = page.evaluate("() => document.activeElement.dataset.card")
                assert focused == button.get_attribute("data-card")
                page.keyboard.press("Enter")
                played.buttons.add("keyboard")
            else:
                button.click()
        else:
            # Someone else is to act: wait for the page to show their move (or look again).
            with contextlib.suppress(PlaywrightTimeout):
                wait_for_change(page, version, timeout=5_000)
            continue
        played.clicks += 1
        try:
            wait_for_change(page, version, timeout=60_000)
        except PlaywrightTimeout as error:
            said = page.locator(".action-error, #connection").all_inner_texts()
            raise AssertionError(f"the click at v{version} changed nothing: {said}") from error
        if on_click:
            on_click(played.clicks)
    raise AssertionError(f"the game did not end within {limit} s")


def visible_cards(view: Any) -> set[str]:
    """Every card code anywhere in a view (the engine's, for one seat or a spectator)."""
    found: set[str] = set()
    if isinstance(view, str):
        if CARD_CODE.fullmatch(view):
            found.add(view)
    elif isinstance(view, dict):
        for value in view.values():
            found |= visible_cards(value)
    elif isinstance(view, list):
        for value in view:
            found |= visible_cards(value)
    return found
