"""On a phone (390 by 844 CSS pixels), in every phase where the player must act, the whole hand
and the control that acts (the confirm button, the calls, the bids, "Keep my hand") are on
the screen without scrolling, and the navigation takes one row (docs/web.md, "The table").

Each game is dealt from a fixed seed and its other seats are played through the API by a
fixed policy, so each phase comes to the person's seat at a known point; the person then
acts in the phone-sized page by tapping, as the policy would. Every phase is photographed
at 1280 and 390 pixels wide (``table-phase-PRESET-PHASE-{1280,390}.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from accounts.models import Player
from games.tables import start_seated_game
from tests.api_client import Client, register
from tests.browser import ARTEFACTS, DESKTOP, PHONE, new_page, table
from tests.browser import wait_for_change as wait_for_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

RANKS = "23456789TJQKA"

#: Each game: its rules, its seed, and the phases its person (seat 0) is checked in; the
#: fixed policy below brings each of them to seat 0 (found by playing the engine).
GAMES = [
    ("classic", "phone-1", {"play", "exchange", "trump", "discard"}),
    ("kitty-first", "phone-1", {"discard"}),  # a 20-card hand to discard from
    ("woburn", "phone-0", {"bid"}),
    ("9-5-3-single-kitty", "phone-4", {"swap"}),  # 17 cards and "Keep my hand"
    ("calls", "phone-0", {"trump"}),  # six calls
    ("four-handed", "phone-0", {"exchange"}),
]

#: The controls that act in each phase, besides the cards of the hand.
CONTROLS = {
    "play": [],
    "exchange": ["[data-action=confirm]", ".choice [data-to], .choice [data-give-to]"],
    "discard": ["[data-action=confirm]"],
    "trump": ["button[data-suit]"],
    "bid": ["button[data-bid]", "[data-action=pass]"],
    "swap": ["[data-action=no_swap]"],
}


def policy(view: dict[str, Any], seat: int) -> dict[str, Any]:
    """Seat 0 plays its highest card (so that it ends up giving in an exchange), the others
    their lowest; the lowest cards go in a discard or a give; the others pass a bid."""
    legal = view["legal_actions"]
    types = {a["type"] for a in legal}

    def rank(card: str) -> int:
        return RANKS.index(card[0])

    if "play" in types:
        cards = [a["card"] for a in legal if a["type"] == "play"]
        return {"type": "play", "card": (max if seat == 0 else min)(cards, key=rank)}
    first = legal[0]
    if first["type"] in ("discard", "give"):
        action = {
            "type": first["type"],
            "cards": sorted(view["your_hand"], key=rank)[: first["count"]],
        }
        if first["type"] == "give":
            action["to"] = first["to"]
        return action
    if "pass" in types and seat != 0:
        return {"type": "pass"}
    return {k: first[k] for k in ("type", "suit", "card", "tricks", "to") if k in first}


def tap(page: Page, action: dict[str, Any]) -> None:
    """Make ``action`` by tapping the page, as a person would."""
    kind = action["type"]
    if kind in ("discard", "give"):
        targets = page.locator(f"main .choice button[data-to='{action.get('to')}']")
        if targets.count():
            targets.click()
        for card in action["cards"]:
            page.click(f"main .hand button[data-card='{card}']")
        page.click("main [data-action=confirm]")
    elif kind in ("play", "swap"):
        page.click(f"main .hand button[data-card='{action['card']}']")
    elif kind == "trump":
        page.click(f"main button[data-suit='{action['suit']}']")
    elif kind == "bid":
        page.click(f"main button[data-bid='{action['tricks']}']")
    else:
        page.click(f"main [data-action='{kind}']")


def on_screen(page: Page, selector: str) -> None:
    """Every element of ``selector`` is wholly on the phone's screen, the page unscrolled."""
    boxes = page.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.left, y: r.top, w: r.width, h: r.height}; })"
    )
    assert boxes, selector
    for box in boxes:
        assert box["x"] >= 0 and box["x"] + box["w"] <= PHONE["width"] + 0.5, (selector, box)
        assert box["y"] >= 0 and box["y"] + box["h"] <= PHONE["height"] + 0.5, (selector, box)


def check_phase(page: Page, site: str, view: dict[str, Any], preset: str) -> None:
    phase = view["phase"]
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    page.goto(f"{site}/games/{view['id']}")
    assert table(page)["phase"] == phase
    summary = page.locator('[data-testid="hand-summary"]')
    if view["previous_hands"] and not view["trick_history"] and not view["current_trick"]:
        # Between hands: the hand before, seat by seat, and the exchange to come.
        assert summary.is_visible()
        last = view["previous_hands"][-1]
        for seat in range(view["players"]):
            row = summary.locator(f"li[data-seat='{seat}']")
            assert row.get_attribute("data-tricks") == str(last["tricks"][seat])
            assert row.get_attribute("data-target") == str(last["targets"][seat])
        shown = summary.locator("[data-exchange-from]").evaluate_all(
            "els => els.map(e => [e.dataset.exchangeFrom, e.dataset.exchangeTo, e.dataset.count])"
        )
        assert shown == [[str(b["from"]), str(b["to"]), str(b["count"])] for b in view["exchange"]]
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"table-phase-{preset}-{phase}-1280.png"))
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    page.reload()
    assert page.evaluate("() => window.scrollY") == 0
    page.locator('[data-testid="turn-alert"]').wait_for(state="visible")
    page.screenshot(path=str(ARTEFACTS / f"table-phase-{preset}-{phase}-390.png"))
    on_screen(page, "main .hand button.card")
    for control in CONTROLS[phase]:
        on_screen(page, f"main :is({control})")
    # Nothing wider than the screen; the navigation on one row.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    nav = page.locator(".site-header nav").bounding_box()
    link = page.locator(".site-header nav a").first.bounding_box()
    assert nav and link and nav["height"] < 2 * link["height"], (nav, link)


def play_to_phases(
    page: Page, site: str, clients: list[Client], game_id: int, preset: str, wanted: set[str]
) -> set[str]:
    """Play the game by the policy (the other seats through the API) until seat 0 has been
    checked in every wanted phase; seat 0 acts by tapping the phone-sized page there."""
    checked: set[str] = set()
    for _ in range(2000):
        view = clients[0].ok("GET", f"/games/{game_id}")
        if view["status"] != "playing" or checked >= wanted:
            break
        (seat,) = view["to_act"]
        mine = clients[seat].ok("GET", f"/games/{game_id}")
        action = policy(mine, seat)
        if seat == 0 and mine["phase"] in wanted - checked:
            check_phase(page, site, mine, preset)
            checked.add(mine["phase"])
            version = table(page)["version"]
            tap(page, action)
            wait_for_version(page, version)
            continue
        clients[seat].ok(
            "POST",
            f"/games/{game_id}/actions",
            json={**action, "expected_version": mine["version"]},
        )
    return checked


@pytest.mark.parametrize(("preset", "seed", "wanted"), GAMES, ids=[g[0] for g in GAMES])
def test_every_phase_where_the_player_acts_fits_a_phone_screen(
    api_server: Any, browser: Browser, preset: str, seed: str, wanted: set[str]
) -> None:
    site = str(api_server.url)
    players = 4 if preset == "four-handed" else 3
    clients = [register(site, f"ph{preset[:6].replace('-', '')}{seat}") for seat in range(players)]
    game = start_seated_game(
        Player.objects.get(username=clients[0].username),
        rules=preset,
        rated=False,
        move_seconds=600,
        players=[Player.objects.get(username=c.username) for c in clients],
        deal_seed=seed,
    )
    context = browser.new_context(viewport=PHONE)  # type: ignore[arg-type]
    context.set_default_timeout(20_000)
    try:
        page = new_page(context)
        page.goto(f"{site}/login")
        page.fill("input[name=username]", clients[0].username)
        page.fill("input[name=password]", "correct horse battery")
        page.click("main form button[type=submit]")
        page.wait_for_url(f"{site}/")
        checked = play_to_phases(page, site, clients, game.pk, preset, wanted)
        assert checked == wanted
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        context.close()
        for client in clients:
            client.close()
