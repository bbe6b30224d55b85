"""Chat on the pages (docs/web.md "Chat"): two players chat at their table while a
spectator's chat stays apart; quick phrases, escaping, links only for accounts a day old,
muting, a moderator's deletion; a tournament's room. Chromium against the suite's live
server, with its real worker playing the house bot's seat."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from django.utils import timezone
from playwright.sync_api import Browser, BrowserContext, Page, expect

from accounts.models import Player
from tests.api_client import Client, register
from tests.browser import DESKTOP, PHONE, new_page, screenshots

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
CHAT = '[data-testid="chat"]'
MESSAGE = '[data-testid="chat-message"]'
INPUT = '[data-testid="chat-input"]'


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


@pytest.fixture
def people(browser: Browser) -> Iterator[list[BrowserContext]]:
    """A browser context (a session of its own) for each person; closed at the end."""
    made: list[BrowserContext] = []
    yield made
    for context in made:
        context.close()


def signed_in(browser: Browser, made: list[BrowserContext], site: str, who: Client) -> Page:
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    made.append(context)
    page = new_page(context)
    page.goto(f"{site}/login")
    page.fill("input[name=username]", who.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login" not in url)
    return page


def edit(username: str, **fields: object) -> None:
    player = Player.objects.get(username=username)
    for name, value in fields.items():
        setattr(player, name, value)
    player.save()


def say(page: Page, text: str) -> None:
    page.fill(INPUT, text)
    page.press(INPUT, "Enter")
    expect(page.locator(INPUT)).to_have_value("")


def shown(page: Page, text: str) -> Any:
    return page.locator(f"{CHAT} {MESSAGE}", has_text=text)


def test_two_players_chat_at_a_table_while_the_spectators_chat_apart(
    site: str, browser: Browser, people: list[BrowserContext]
) -> None:
    ann, bob, sam, mod = (register(site, f"webchat{n}") for n in ("ann", "bob", "sam", "mod"))
    edit(mod.username, is_staff=True)
    rules = {"preset": "classic", "max_hands": 1}
    table = ann.ok("POST", "/tables", 201, json={"rules": rules, "move_seconds": 600})
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    game = ann.ok("POST", f"/tables/{table['id']}/bots", json={"bot": "house:random"})["game"]
    pages = {}
    for who in (ann, bob, sam, mod):
        pages[who.username] = page = signed_in(browser, people, site, who)
        page.goto(f"{site}/games/{game}")
        expect(page.locator(CHAT)).to_be_visible()
    a, b, s, m = (pages[who.username] for who in (ann, bob, sam, mod))
    visitor = httpx.get(f"{site}/games/{game}").text
    assert 'data-testid="chat"' in visitor and "to chat" in visitor

    # The spectator speaks first; then the players: neither room shows the other's words.
    say(s, "the rail says ann has the ace")
    expect(shown(s, "the rail says ann has the ace")).to_be_visible()
    say(a, "Hello bob")
    expect(shown(b, "Hello bob")).to_be_visible()
    b.click(f'{CHAT} button[data-phrase="Good luck!"]')
    expect(shown(a, "Good luck!")).to_be_visible()
    for player in (a, b):
        assert "the rail says" not in player.content()
        expect(player.locator(f'{CHAT} button[data-room="spectators"]')).to_be_hidden()
    assert "Hello bob" not in s.content()
    expect(s.locator(f"{CHAT} .chat-log")).not_to_contain_text("Good luck!")

    # Text is text; a new account's link is not a link, a day-old account's is.
    say(a, "<b>bold</b> https://example.com/a")
    message = shown(b, "<b>bold</b>")
    expect(message).to_be_visible()
    expect(b.locator(f"{CHAT} {MESSAGE} b")).to_have_count(0)
    expect(message.locator("a")).to_have_count(0)
    edit(bob.username, date_joined=timezone.now() - timedelta(days=2))
    say(b, "the rules: https://example.com/rules")
    link = shown(a, "the rules").locator("a")
    expect(link).to_have_attribute("href", "https://example.com/rules")
    assert set((link.get_attribute("rel") or "").split()) >= {"nofollow", "noopener"}

    # Muting hides an author's messages, on the page and after a reload; unmuting shows them.
    b.click(f'{CHAT} {MESSAGE}[data-author="{ann.username}"] button[data-action="mute"] >> nth=0')
    expect(shown(b, "Hello bob")).to_be_hidden()
    say(a, "can you hear me")
    expect(shown(b, "the rules")).to_be_visible()
    expect(shown(b, "can you hear me")).to_have_count(1)
    expect(shown(b, "can you hear me")).to_be_hidden()
    b.reload()
    expect(shown(b, "Good luck!")).to_be_visible()
    expect(shown(b, "Hello bob")).to_be_hidden()
    b.click(f'{CHAT} .chat-muted-list button[data-action="unmute"]')
    expect(shown(b, "Hello bob")).to_be_visible()

    # A moderator reads the players' room (without writing there) and deletes a message.
    m.click(f'{CHAT} .chat-tabs button[data-room="players"]')
    expect(m.locator(f"{CHAT} .chat-write")).to_be_hidden()
    m.click(f'{CHAT} {MESSAGE}:has-text("can you hear me") button[data-action="delete"]')
    expect(shown(a, "can you hear me")).to_have_count(0)
    expect(shown(b, "can you hear me")).to_have_count(0)
    expect(a.locator(f'{CHAT} button[data-action="delete"]')).to_have_count(0)
    assert "the rail says" not in a.content() and "the rail says" not in b.content()
    assert not any(page.errors for page in pages.values()), {  # type: ignore[attr-defined]
        name: page.errors
        for name, page in pages.items()  # type: ignore[attr-defined]
    }

    screenshots(a, "chat-table-player")
    screenshots(s, "chat-table-spectator")

    # Once the game is over (both resign: house bots finish it), the players' pages offer
    # the spectators' room, without a reload; the spectators' page still has its own only.
    ann.ok("POST", f"/games/{game}/resign", json={})
    bob.ok("POST", f"/games/{game}/resign", json={})
    rail_tab = a.locator(f'{CHAT} button[data-room="spectators"]')
    expect(rail_tab).to_be_visible(timeout=60_000)
    rail_tab.click()
    expect(shown(a, "the rail says ann has the ace")).to_be_visible()
    expect(a.locator(f"{CHAT} {MESSAGE}")).to_have_count(1)
    say(a, "I did have it")
    expect(shown(s, "I did have it")).to_be_visible()
    assert "Hello bob" not in s.content()
    screenshots(a, "chat-table-after-the-game")
    # On a phone the input, the send button and a quick phrase fit the screen's width.
    a.set_viewport_size(PHONE)  # type: ignore[arg-type]
    for part in (INPUT, f"{CHAT} .chat-form button", f'{CHAT} button[data-phrase="Thanks!"]'):
        box = a.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_a_tournament_has_its_room(
    site: str, browser: Browser, people: list[BrowserContext]
) -> None:
    org, ent, fan = (register(site, f"webcup{n}") for n in ("org", "ent", "fan"))
    body = {"name": "Chat night", "format": "swiss", "rounds": 1}
    tournament = org.ok("POST", "/tournaments", 201, json=body)["id"]
    ent.ok("POST", f"/tournaments/{tournament}/register", 201)
    o, e, f = (signed_in(browser, people, site, who) for who in (org, ent, fan))
    for page in (o, e, f):
        page.goto(f"{site}/tournaments/{tournament}")

    say(o, "Welcome, everyone")
    e.click(f'{CHAT} button[data-phrase="Thanks!"]')
    for page in (o, e, f):
        expect(shown(page, "Welcome, everyone")).to_be_visible()
        expect(shown(page, "Thanks!")).to_be_visible()
    expect(f.locator(f"{CHAT} .chat-write")).to_be_hidden()
    expect(f.locator(f"{CHAT} .chat-refusal")).to_contain_text("entrants and organisers")
    screenshots(e, "chat-tournament")
