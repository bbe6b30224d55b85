"""The live table tells its player when it is their turn (the title, an alert, a sound
they can switch off, a notification they asked for), lets them resign after a
confirmation, and tells apart two seats of one name (docs/web.md, "The table"); the last
is checked on the rendered table in tests/test_web_table_labels.py.

The browser tests drive Chromium against the suite's live server, whose house bots are
played by its real Celery worker.
"""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import (
    ARTEFACTS,
    PHONE,
    create_table,
    new_page,
    sign_up,
    table,
    wait_for_change,
)

#: Every title the page takes, with whether its turn alert was hidden then.
TITLE_LOG = """
window.__titles = [];
new MutationObserver(() => {
  const alert = document.querySelector('[data-testid="turn-alert"]');
  window.__titles.push({title: document.title, hidden: alert ? alert.hidden : null});
}).observe(document, {subtree: true, childList: true, characterData: true});
"""
LEGAL = (
    "main .controls button[data-send]:not([disabled]), "
    "main .hand button[data-send]:not([disabled]), main .hand button.pick:not([disabled])"
)


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


def act_once(page: Page) -> str:
    """Make one legal move by clicking; returns what was clicked (``card`` for a card
    played)."""
    picks = page.locator("main .hand button.pick")
    if picks.count():
        choice = page.locator(".choice")
        count = int(choice.get_attribute("data-count") or 0)
        targets = choice.locator("button[data-to]")
        if targets.count():
            targets.first.click()
            count = int(targets.first.get_attribute("data-count") or 0)
        for index in range(count):
            picks.nth(index).click()
        page.click("[data-action=confirm]")
        return "choice"
    button = page.locator(LEGAL).first
    kind = "card" if button.get_attribute("data-card") else "other"
    button.click()
    return kind


def titles_since(page: Page, mark: int) -> list[dict[str, Any]]:
    return list(page.evaluate("n => window.__titles.slice(n)", mark))


def wait_for_turn(page: Page) -> None:
    page.locator('[data-testid="turn-alert"]').wait_for(state="visible", timeout=60_000)
    page.locator(LEGAL).first.wait_for(timeout=10_000)


# --- Told when it is your turn ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_it_tells_a_member_when_the_bots_pass_the_turn_back(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    page.add_init_script(TITLE_LOG)
    sign_up(page, site, "gil")
    create_table(page, site, preset="classic", bots=["house:random", "house:random"])
    alert = page.locator('[data-testid="turn-alert"]')
    names = page.locator(".seat-name").all_inner_texts()
    assert {"house:random #1", "house:random #2"} <= {n.replace("bot", "").strip() for n in names}

    # Until a card of the member's is followed by a bot's turn (a trick the member wins
    # as its last card leaves the turn with them).
    for _ in range(20):
        wait_for_turn(page)
        assert page.title().startswith("Your turn")
        mark = int(page.evaluate("() => window.__titles.length"))
        version = table(page)["version"]
        kind = act_once(page)
        if kind != "card":
            wait_for_change(page, version)
            continue
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                "n => window.__titles.slice(n).some(t => !t.title.startsWith('Your turn'))",
                arg=mark,
                timeout=5_000,
            )
            break
    else:
        raise AssertionError("the turn never passed to a bot after the member's card")

    # The member acted: the title no longer says so, and the alert is hidden...
    shown = titles_since(page, mark)
    away = next(i for i, t in enumerate(shown) if not t["title"].startswith("Your turn"))
    assert shown[away]["hidden"] is True
    assert shown[away]["title"].startswith("Game #")
    # ...until the bots pass the turn back.
    page.wait_for_function(
        """n => { const t = window.__titles.slice(n);
                  const away = t.findIndex(x => !x.title.startsWith('Your turn'));
                  return t.slice(away).some(x => x.title.startsWith('Your turn')); }""",
        arg=mark,
        timeout=60_000,
    )
    wait_for_turn(page)
    assert page.title().startswith("Your turn")
    assert alert.is_visible() and "Your turn" in alert.inner_text()
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "table-your-turn-1280.png"))
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    alert.wait_for(state="visible")
    page.screenshot(path=str(ARTEFACTS / "table-your-turn-390.png"))
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_it_keeps_the_sound_switch_and_the_notification_choice_in_the_browser(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "hal")
    create_table(page, site, preset="classic", bots=["house:random", "house:heuristic"])
    sound = page.locator("#sound-toggle")
    stored = "() => localStorage.getItem('sm-sound')"

    # On by default; the switch turns it off, and the page remembers it.
    assert sound.get_attribute("aria-pressed") == "true" and sound.inner_text() == "Sound: on"
    sound.click()
    assert sound.get_attribute("aria-pressed") == "false" and page.evaluate(stored) == "off"
    page.reload()
    assert sound.get_attribute("aria-pressed") == "false" and sound.inner_text() == "Sound: off"
    sound.click()
    assert sound.get_attribute("aria-pressed") == "true" and page.evaluate(stored) == "on"

    # Notifications: a visible "Notify me"; never asked for on load; once the browser
    # allows them, the same control turns them off and on.
    notify = page.locator("#notify-toggle")
    assert notify.is_visible()
    context.grant_permissions(["notifications"], origin=site)
    page.reload()
    assert notify.get_attribute("aria-pressed") == "true"
    notify.click()
    assert notify.get_attribute("aria-pressed") == "false"
    assert page.evaluate("() => localStorage.getItem('sm-notify')") == "off"
    notify.click()
    assert notify.get_attribute("aria-pressed") == "true"
    assert page.errors == []  # type: ignore[attr-defined]


# --- Resigning ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_it_resigns_from_the_page_only_once_confirmed(site: str, context: BrowserContext) -> None:
    page = new_page(context)
    sign_up(page, site, "ivy")
    game_id = create_table(
        page, site, preset="classic", bots=["house:random", "house:random"], max_hands="1"
    )
    dialog = page.locator('[data-testid="resign-dialog"]')

    # Cancelled: nothing happens, the member still plays.
    page.click("[data-action=resign]")
    assert dialog.is_visible() and "Really resign?" in dialog.inner_text()
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "table-resign-1280.png"))
    page.click("[data-action=resign-cancel]")
    assert not dialog.is_visible()
    game = httpx.get(f"{site}/api/v1/games/{game_id}", timeout=10).json()
    assert game["status"] == "playing" and not game["seats"][0].get("played_by")
    assert table(page)["status"] == "playing"

    # Confirmed: a house bot takes the seat, the game is played to its end, the member last.
    page.click("[data-action=resign]")
    page.click("[data-action=resign-confirm]")
    page.locator('[data-testid="result"]').wait_for(timeout=120_000)
    assert table(page)["status"] == "finished" and not dialog.is_visible()
    assert "Game over" in page.locator("main .turn").inner_text()
    game = httpx.get(f"{site}/api/v1/games/{game_id}", timeout=10).json()
    assert game["seats"][0]["played_by"] == "house:heuristic"
    rows = page.locator('[data-testid="result"] tr[data-seat]')
    # The two bots of one kind are told apart in the result too.
    shown = {rows.nth(i).get_attribute("data-seat"): rows.nth(i).inner_text() for i in range(3)}
    assert "house:random #1" in shown["1"] and "house:random #2" in shown["2"]
    assert page.locator("[data-action=resign]").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]
