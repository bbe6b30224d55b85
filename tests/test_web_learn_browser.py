"""The visitor's journey in a browser (Chromium, the suite's live server, its real worker,
beat and move timer): from the home page into the lesson, where the coach says what to do
at each step and waits for it; then a game against the computer played to its end as a
guest; then a sign-up that keeps that game on the new profile."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from accounts import ratelimit
from accounts.models import Player
from games.models import Game, GamePlayer
from tests.browser import PASSWORD, new_page, play_to_end, screenshots, table, wait_for_change

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

#: Reads what the coach may read: the table on the page.
SITUATION = """() => {
  const main = document.querySelector("main[data-game-id]");
  const slot = (p) => main.querySelector(`.trick-slot.pos-${p} [data-card]`)?.dataset.card ?? null;
  const bottom = slot("bottom");
  const led = bottom ? null : (slot("left") ?? slot("top") ?? slot("right"));
  return {
    status: main.dataset.status,
    version: main.dataset.version,
    yourTurn: main.querySelector('[data-testid="turn-alert"]:not([hidden])') !== null,
    calls: [...main.querySelectorAll("button[data-suit]:not([disabled])")]
      .map((b) => b.dataset.suit),
    choice: main.querySelector(".choice")?.dataset.choice ?? null,
    hand: [...main.querySelectorAll(".hand button.card")].map((b) => b.dataset.card),
    playable: [...main.querySelectorAll(".hand button.card[data-send]:not([disabled])")]
      .map((b) => b.dataset.card),
    trump: main.querySelector("[data-trump]")?.dataset.trump ?? null,
    led,
    coach: document.querySelector('[data-testid="coach"]').textContent,
  };
}"""
SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
ACTIONABLE = ".hand button:not([disabled]), button[data-suit]:not([disabled])"


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> Iterator[str]:
    # The live server sees the browser at 127.0.0.1: a fresh count of its guest accounts.
    ratelimit.reset("guest:127.0.0.1")
    yield str(api_server.url)
    ratelimit.reset("guest:127.0.0.1")


def wait_for_my_move(page: Page, version: str | None) -> dict[str, Any]:
    """The situation once the person must act (or the game is over)."""
    page.wait_for_function(
        """() => { const m = document.querySelector("main[data-game-id]");
                   return m.dataset.status === "finished" || (
                     m.querySelector('[data-testid="turn-alert"]:not([hidden])') &&
                     m.querySelector(ACTIONABLE)); }""".replace("ACTIONABLE", repr(ACTIONABLE)),
        timeout=60_000,
    )
    # The coach has read this table (it looks at every change, and twice a second).
    page.wait_for_timeout(600)
    return dict(page.evaluate(SITUATION))


def choose_cards(page: Page, count: int) -> None:
    picks = page.locator("main .hand button.pick")
    for index in range(count):
        picks.nth(index).click()
    page.click("[data-action=confirm]")


def take_the_lesson(page: Page, said: list[str]) -> set[str]:
    """Play the lesson by the page, checking at each step that the coach says what to do;
    returns the situations met."""
    met: set[str] = set()
    deadline = time.monotonic() + 300
    version = None
    while time.monotonic() < deadline:
        s = wait_for_my_move(page, version)
        said.append(s["coach"])
        if s["status"] == "finished":
            return met
        version = s["version"]
        coach = s["coach"]
        if s["calls"]:
            assert "names trumps" in coach and "dealer" in coach, coach
            suit = re.search(r"Click (.) above your hand", coach)
            assert suit, coach
            met.add("trump")
            screenshots(page, "learn-trump")
            page.click(f"main button[data-suit='{SYMBOLS[suit.group(1)]}']")
        elif s["choice"] == "discard":
            assert "kitty" in coach and "Confirm" in coach, coach
            met.add("kitty")
            screenshots(page, "learn-kitty")
            choose_cards(page, 4)
        elif s["choice"] == "give":
            assert "exchange" in coach and "you give" in coach, coach
            met.add("give")
            screenshots(page, "learn-exchange-give")
            count = int(page.locator(".choice").get_attribute("data-count") or 0)
            choose_cards(page, count)
        else:
            led, hand, trump = s["led"], s["hand"], s["trump"]
            card = s["playable"][0]
            if led is None:
                assert "Your lead" in coach, coach
            elif any(c[1] == led[1] for c in hand):
                assert "must follow suit" in coach, coach
                assert all(c[1] == led[1] for c in s["playable"])
                if "follow" not in met:
                    screenshots(page, "learn-follow")
                met.add("follow")
            elif trump and led[1] != trump and any(c[1] == trump for c in hand):
                assert "Play a trump" in coach or "Normally you would play a trump" in coach, coach
                card = next(c for c in s["playable"] if c[1] == trump)
                if "trump-trick" not in met:
                    screenshots(page, "learn-trump-a-trick")
                met.add("trump-trick")
            if "exchange" in coach and "explained" not in met:
                # The new hand's first card: the coach explains what the exchange did.
                assert "every hand after the first opens with the exchange" in coach, coach
                met.add("explained")
                screenshots(page, "learn-exchange-explained")
            page.click(f"main .hand button[data-card='{card}']")
        wait_for_change(page, version, timeout=60_000)
    raise AssertionError("the lesson did not end in time")


def test_a_visitor_learns_plays_the_computer_as_a_guest_and_keeps_the_game(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    started = time.monotonic()
    page.goto(f"{site}/")
    screenshots(page, "home-visitor")
    page.click("[data-action=learn]")
    page.wait_for_url(f"{site}/learn")
    assert "Play your first game with me" in page.inner_text('[data-testid="coach"]')
    screenshots(page, "learn-start")
    page.click("[data-action=start-lesson]")
    page.wait_for_url(f"{site}/learn")
    page.locator("main[data-game-id]").wait_for()
    lesson_id = int(str(table(page)["game-id"]))
    guest = GamePlayer.objects.get(game_id=lesson_id, seat=0).player
    assert guest.is_guest and guest.username.startswith("guest-")

    said: list[str] = []
    met = take_the_lesson(page, said)
    lesson_seconds = time.monotonic() - started

    assert {"trump", "kitty", "follow", "explained"} <= met, met
    done = page.locator('[data-testid="learn-done"]')
    done.wait_for(state="visible")
    assert "That is the game" in page.inner_text('[data-testid="coach"]')
    ticked = page.locator(".coach-steps li.done").evaluate_all(
        "els => els.map(e => e.dataset.step)"
    )
    expected = {"trump", "kitty", "follow", "exchange"} | ({"trump-trick"} & met)
    assert expected <= set(ticked), (ticked, met)
    screenshots(page, "learn-done")
    assert page.errors == []  # type: ignore[attr-defined]

    # A real game against the computer, played to its end by the page.
    page.click('[data-testid="learn-done"] [data-action=play-computer-short]')
    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    # The guest's first games come with hints, which they may switch off.
    hint = page.locator('[data-testid="coach"][data-mode="hints"]')
    hint.wait_for(state="visible", timeout=60_000)
    assert hint.inner_text().startswith("Hint:")
    screenshots(page, "computer-game")
    game_started = time.monotonic()
    play_to_end(page, {}, limit=400)
    game_seconds = time.monotonic() - game_started
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and not game.rated
    assert GamePlayer.objects.get(game_id=game_id, seat=0).player_id == guest.pk
    page.locator('[data-testid="result"]').wait_for()
    screenshots(page, "computer-game-over")

    # Signing up from the guest's session keeps the account and its games.
    page.click("[data-action=guest-signup]")
    page.wait_for_url(re.compile(r"/signup"))
    assert guest.username in page.inner_text('[data-testid="guest-signup"]')
    screenshots(page, "signup-guest")
    page.fill("input[name=username]", "learner")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{site}/")
    person = Player.objects.get(pk=guest.pk)
    assert person.username == "learner" and not person.is_guest
    page.goto(f"{site}/players/learner")
    history = page.locator(".history-table")
    assert history.locator(f"a[href='/games/{game_id}']").count() == 1
    assert history.locator(f"a[href='/games/{lesson_id}']").count() == 1
    assert page.errors == []  # type: ignore[attr-defined]
    print(
        f"\nlesson {lesson_seconds:.0f} s, game {game_seconds:.0f} s, "
        f"all {time.monotonic() - started:.0f} s; the coach said:\n" + "\n".join(said)
    )
