"""The Challenges page keeps itself current (docs/web.md "Challenges"): ``GET /challenges/live``
(Server-Sent Events) sends the signed-in person's own lists, rendered once for all their
pages, when a challenge they are in is made, answered, canceled or declined; the page puts
them in place. Nobody's page gets another person's challenges. Real server and worker, in
chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.conf import settings
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import Player
from challenges import services
from challenges.models import Challenge
from tests.browser import new_page, sign_up
from tests.conftest import LiveServer
from tests.live_client import LiveReader, Message

pytestmark = pytest.mark.django_db(transaction=True)


def listed(message: Message) -> list[int]:
    return [int(found) for found in re.findall(r'data-challenge-id="(\d+)"', message.data["html"])]


def session_cookie(context: BrowserContext) -> str:
    cookie = next(c for c in context.cookies() if c["name"] == settings.SESSION_COOKIE_NAME)
    return f"{cookie['name']}={cookie['value']}"


@pytest.fixture
def people(browser: Browser, api_server: LiveServer) -> Iterator[dict[str, tuple[Page, Any]]]:
    """Four people signed up in browsers of their own, each on their challenges page."""
    contexts = []
    pages: dict[str, tuple[Page, Any]] = {}
    try:
        for name in ("lvann", "lvbob", "lvcat", "lvdan"):
            context = browser.new_context()
            context.set_default_timeout(20_000)
            contexts.append(context)
            page = new_page(context)
            sign_up(page, api_server.url, name)
            page.goto(f"{api_server.url}/challenges")
            page.evaluate("window.notReloaded = true")
            pages[name] = (page, context)
        yield pages
    finally:
        for context in contexts:
            context.close()


def row(challenge: Challenge) -> str:
    return f"#challenge-lists #challenge-{challenge.pk}"


def test_it_shows_challenges_and_their_answers_as_they_happen(
    api_server: LiveServer, celery_worker: Any, people: dict[str, tuple[Page, Any]]
) -> None:
    ann, bob, cat, dan = (people[n][0] for n in ("lvann", "lvbob", "lvcat", "lvdan"))
    # What dan's page is sent, read on the wire with his session: only his own lists.
    dans_stream = LiveReader(
        api_server.url,
        0,
        path="/challenges/live",
        headers={"Cookie": session_cookie(people["lvdan"][1])},
    )
    bobs_stream = LiveReader(
        api_server.url,
        0,
        path="/challenges/live",
        headers={"Cookie": session_cookie(people["lvbob"][1])},
    )
    dans_stream.wait_for(lambda found: len(found) >= 1)
    bobs_stream.wait_for(lambda found: len(found) >= 1)

    # A new challenge appears on the pages of those it involves: with Accept for an invitee,
    # with Cancel for the challenger.
    first = services.create_challenge(
        Player.objects.get(username="lvbob"), to=["lvann", "lvcat"], move_seconds=600
    )
    ann.wait_for_selector(f"{row(first)} [data-action=accept]")
    cat.wait_for_selector(f"{row(first)} [data-action=accept]")
    bob.wait_for_selector(f"{row(first)} [data-action=cancel]")

    # ann accepts on the row that came live (its form got the page's CSRF token); bob's and
    # cat's pages show her answer.
    ann.click(f"{row(first)} [data-action=accept]")
    ann.wait_for_url(re.compile(rf"/challenges#challenge-{first.pk}$"))
    for page in (bob, cat):
        page.wait_for_selector(f'{row(first)} [data-seat="1"][data-answer="accepted"]')
    assert ann.locator(f"{row(first)} [data-action=accept]").count() == 0

    # cat declines: the challenge leaves bob's and ann's pages.
    cat.click(f"{row(first)} [data-action=decline]")
    cat.wait_for_url(re.compile(rf"/challenges#challenge-{first.pk}$"))
    assert Challenge.objects.get(pk=first.pk).status == "declined"
    for page in (bob, ann):
        page.wait_for_selector(row(first), state="detached")

    # A challenge to ann appears, then bob cancels it from the row that came to his page.
    second = services.create_challenge(
        Player.objects.get(username="lvbob"), to=["lvann", "house:random"], move_seconds=600
    )
    ann.wait_for_selector(row(second))
    bob.wait_for_selector(f"{row(second)} [data-action=cancel]")
    assert bob.evaluate("window.notReloaded") is True  # bob's page was never reloaded
    bob.click(f"{row(second)} [data-action=cancel]")
    ann.wait_for_selector(row(second), state="detached")
    assert Challenge.objects.get(pk=second.pk).status == "canceled"

    # dan, in none of them, saw nothing: on his page, and nothing was even sent to it.
    assert dan.evaluate("window.notReloaded") is True
    assert dan.locator("[data-challenge-id]").count() == 0
    assert dans_stream.status == 200
    assert [listed(m) for m in dans_stream.messages] == [[]]
    # ... while bob's stream, read the same way, carried both challenges.
    seen = bobs_stream.wait_for(lambda found: any(second.pk in listed(m) for m in found))
    assert any(first.pk in listed(m) for m in seen)
    dans_stream.stop()
    bobs_stream.stop()
    for page in (ann, bob, cat, dan):
        assert page.errors == []  # type: ignore[attr-defined]


def test_it_refuses_the_live_lists_to_a_visitor(api_server: LiveServer) -> None:
    response = httpx.get(f"{api_server.url}/challenges/live", timeout=10)

    assert response.status_code == 403
