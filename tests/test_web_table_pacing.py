"""The table feels like a card table, and its end can't be missed (docs/web.md, "The
table"): each completed trick stays in view about a second before it is gathered, for the
player and a spectator alike, though house bots answer at once; the page catches up when the
bots run ahead of it; the player's own turn waits at most for a trick being shown; the hand
just played is summed up between hands; at the end the result is in view with the player's
place and score, and the rating change fills in once the worker has rated the game.

The game is real: a person against two house bots played by the suite's Celery worker, on
the live server; the person plays some tricks, then resigns and the bots play on as fast as
they can, which the pages have to keep up with.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ratings.selectors import game_rating_change
from ratings.services import rate_game
from tests.browser import (
    ARTEFACTS,
    DESKTOP,
    PHONE,
    create_table,
    new_page,
    screenshots,
    sign_up,
    table,
    wait_for_change,
)

#: What the page showed and when (performance.now(), ms): each completed trick drawn on the
#: felt, each hand summary while visible, each table version, and each live message as it
#: arrived (before the page's own handler sees it) with whether it gave the viewer the turn.
WATCH = r"""
window.__log = {gathered: [], summaries: [], versions: [], arrivals: []};
const now = () => performance.now();
let trickKey = null, summaryKey = null, version = null;
const track = (list, key, last, extra) => {
  if (key === last) return last;
  const open = list.find((x) => x.key === last && x.end === null);
  if (open) open.end = now();
  if (key !== null) list.push({key, start: now(), end: null, ...extra()});
  return key;
};
new MutationObserver(() => {
  const g = document.querySelector('[data-testid="trick-gathered"]');
  trickKey = track(window.__log.gathered, g ? g.dataset.seq : null, trickKey, () => ({
    cards: [...g.querySelectorAll("[data-card]")].map((c) => c.dataset.card),
    winner: Number(g.dataset.winner),
  }));
  const s = document.querySelector('[data-testid="hand-summary"]');
  const gathering = s && s.closest(".felt").classList.contains("gathering");
  const seen = s && !s.hidden && !gathering ? s.dataset.hand : null;
  summaryKey = track(window.__log.summaries, seen, summaryKey, () => ({}));
  const main = document.querySelector("main[data-game-id]");
  if (main && main.dataset.version !== version) {
    version = main.dataset.version;
    const alert = document.querySelector('[data-testid="turn-alert"]');
    window.__log.versions.push({v: Number(version), t: now(), yourTurn: !!alert && !alert.hidden});
  }
}).observe(document, {subtree: true, childList: true, attributes: true});
const Original = window.EventSource;
window.EventSource = class extends Original {
  constructor(...args) {
    super(...args);
    this.addEventListener("change", (message) => {
      const data = JSON.parse(message.data);
      const html = data.html || "";
      const yourTurn = /data-testid="turn-alert"(?![^>]*hidden)/.test(html);
      const hand = (html.match(/<main [^>]*data-hand="(\d+)"/) || [])[1];
      window.__log.arrivals.push({v: data.version, t: now(), yourTurn, hand, status: data.status});
    });
  }
};
"""
LEGAL = (
    "main .controls button[data-send]:not([disabled]), "
    "main .hand button[data-send]:not([disabled]), main .hand button.pick:not([disabled])"
)
GATHERED = '[data-testid="trick-gathered"]'


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


def act_once(page: Page) -> None:
    """One legal move by clicking: the first legal control, or the first cards of a choice."""
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
    else:
        page.locator(LEGAL).first.click()


def log_of(page: Page) -> dict[str, list[dict[str, Any]]]:
    return dict(page.evaluate("() => window.__log"))


def tricks_played(site: str, game_id: int) -> dict[str, dict[str, Any]]:
    """Every trick of the game (its public events, all of them after the end), by seq."""
    body = httpx.get(f"{site}/api/v1/games/{game_id}/events?after=0", timeout=10).json()
    return {str(e["seq"]): e for e in body["events"] if e["type"] == "trick"}


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_table_of_house_bots_is_paced_for_its_watchers_and_ends_in_a_result_in_view(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    page.add_init_script(WATCH)
    sign_up(page, site, "pia")
    game_id = create_table(
        page, site, preset="classic", bots=["house:random", "house:random"], max_hands="2"
    )
    spectator_context = context.browser.new_context(viewport=DESKTOP)  # type: ignore[union-attr,arg-type]
    spectator_context.add_init_script(WATCH)
    spectator = new_page(spectator_context)
    spectator.goto(f"{site}/games/{game_id}")
    assert table(spectator)["your-seat"] is None

    # The person plays (by clicking, as soon as a gathered trick is gone) until some tricks
    # have been completed on the table.
    deadline = time.monotonic() + 120
    photographed = False
    while len(log_of(page)["gathered"]) < 4:
        if log_of(page)["gathered"] and not photographed:
            # A completed trick on the felt, as the spectator sees it.
            spectator.locator(GATHERED).wait_for(timeout=10_000)
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            spectator.screenshot(path=str(ARTEFACTS / "table-trick-gathered-1280.png"))
            photographed = True
        assert time.monotonic() < deadline, "no trick completed in two minutes"
        page.locator('[data-testid="turn-alert"]').wait_for(state="visible", timeout=60_000)
        page.locator(GATHERED).wait_for(state="detached", timeout=5_000)
        page.locator(LEGAL).first.wait_for(timeout=10_000)
        version = table(page)["version"]
        act_once(page)
        wait_for_change(page, version)

    # Then resigns: house bots play all three seats to the end of the second hand.
    page.locator(GATHERED).wait_for(state="detached", timeout=5_000)
    dialog = page.locator('[data-testid="resign-dialog"]')
    for _ in range(3):  # a click as the table is replaced may land on the new one's cards
        page.click("[data-action=resign]")
        with contextlib.suppress(PlaywrightTimeout):
            dialog.wait_for(state="visible", timeout=3_000)
            break
    page.click("[data-action=resign-confirm]")
    ended = None
    while ended is None:
        assert time.monotonic() < deadline + 120, "the bots did not finish the game"
        game = httpx.get(f"{site}/api/v1/games/{game_id}", timeout=10).json()
        if game["status"] == "finished":
            ended = time.monotonic()
        else:
            time.sleep(0.1)
    # Both pages catch up: they show the end within a few seconds of it.
    for watcher in (page, spectator):
        watcher.wait_for_function(
            "() => document.querySelector('main[data-game-id]').dataset.status === 'finished'",
            timeout=15_000,
        )
    behind = time.monotonic() - ended
    assert behind < 8, f"the pages showed the end {behind:.1f} s after it"

    tricks = tricks_played(site, game_id)
    for name, watcher in (("player", page), ("spectator", spectator)):
        watcher.locator(GATHERED).wait_for(state="detached", timeout=5_000)
        log = log_of(watcher)
        shown = log["gathered"]
        assert len(shown) >= 6, (name, len(shown))
        for trick in shown:
            # Each completed trick as played (its cards, its winner), about a second.
            played = tricks[trick["key"]]
            assert trick["cards"] == played["cards"], (name, trick)
            assert trick["winner"] == played["winner"], (name, trick)
            assert trick["end"] - trick["start"] >= 1000, (name, trick)
        # Between the hands, the first hand's summary stayed in view a while: whenever the
        # page was sent the second hand in play (the bots may also have run to the end
        # between two of the page's looks).
        if any(a["hand"] == "2" and a["status"] == "playing" for a in log["arrivals"]):
            summaries = [s for s in log["summaries"] if s["key"] == "1"]
            assert summaries, (name, log["summaries"])
            assert max(s["end"] - s["start"] for s in summaries) >= 2000, (name, summaries)
    # The bots ran ahead: the pages skipped tricks rather than lag behind.
    assert len(log_of(spectator)["gathered"]) < len(tricks)

    # The player's turn waited for nothing but a trick being shown.
    log = log_of(page)
    for arrival in (a for a in log["arrivals"] if a["yourTurn"]):
        shown_at = next(v["t"] for v in log["versions"] if v["v"] >= arrival["v"])
        assert shown_at - arrival["t"] <= 1300, (arrival, shown_at)
    assert any(a["yourTurn"] for a in log["arrivals"])

    # The result, in view without scrolling, leads with the player's place and score.
    record = httpx.get(f"{site}/api/v1/games/{game_id}/record", timeout=10).json()
    me = page.locator('[data-testid="result-me"]')
    assert me.get_attribute("data-place") == str(record["ranks"][0])
    assert me.get_attribute("data-score") == str(record["scores"][0])
    assert me.get_attribute("data-rating-pending") == "true"
    assert me.get_attribute("data-rating-after") == ""
    in_view(page, '[data-testid="result-me"]')
    assert spectator.locator('[data-testid="result-me"]').count() == 0
    in_view(spectator, '[data-testid="result"] h2')

    # The worker's rating of the game (its task's service, here): the page fills it in.
    assert rate_game(game_id)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"result-me\"]').dataset.ratingAfter",
        timeout=20_000,
    )
    change = rating_change_of(game_id, "pia")
    assert me.get_attribute("data-rating-before") == str(change["display_rating_before"])
    assert me.get_attribute("data-rating-after") == str(change["display_rating"])
    assert "?" in me.inner_text()  # a newcomer's rating is provisional
    screenshots(page, "table-result")
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.reload()
    in_view(page, '[data-testid="result-me"]')
    assert page.locator('[data-testid="result-me"]').get_attribute("data-rating-after") == str(
        change["display_rating"]
    )
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "table-result-390.png"))
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    page.screenshot(path=str(ARTEFACTS / "table-result-1280.png"))
    assert page.errors == [] and spectator.errors == []  # type: ignore[attr-defined]
    spectator_context.close()


def rating_change_of(game_id: int, username: str) -> dict[str, Any]:
    from accounts.models import Player

    player = Player.objects.get(username=username)
    change = game_rating_change(game_id, player.pk)
    assert change is not None
    return change


def in_view(page: Page, selector: str) -> None:
    """The element is wholly on the screen as the page is now, without scrolling."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (selector, box)
