"""Quick play in a browser: a person asks for a game from the lobby and lands in it once the
suite's real worker has seated the seek (with house bots after no wait); or waits, and stops
looking."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from quickplay.models import Seek
from tests.browser import new_page, sign_up, table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


def test_it_takes_a_person_from_the_lobby_into_a_quick_play_game(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "quickweb")
    page.goto(f"{site}/lobby")
    page.fill("input[name=quick-move_seconds]", "3001")
    page.fill("input[name=quick-house_bots_after]", "0")

    page.click("[data-action=quick-play]")

    page.wait_for_url(re.compile(r"/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    seek = Seek.objects.get(player__username="quickweb")
    assert seek.status == Seek.Status.SEATED and seek.game_id == game_id
    shown = table(page)
    assert shown["game-id"] == str(game_id) and shown["your-seat"] is not None
    assert not page.errors  # type: ignore[attr-defined]


def test_it_lets_a_person_wait_for_people_and_stop_looking(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "quickwait")
    page.goto(f"{site}/lobby")
    page.fill("input[name=quick-move_seconds]", "3002")
    page.fill("input[name=quick-house_bots_after]", "")

    page.click("[data-action=quick-play]")

    page.wait_for_url(re.compile(r"/quickplay/\d+$"))
    assert "Waiting for people" in page.inner_text("main")
    page.goto(f"{site}/lobby")
    assert "You are looking for a game" in page.inner_text("#quick-play-panel")
    page.click("#quick-play-panel [data-action=quick-play-cancel]")
    page.wait_for_url(f"{site}/lobby")
    assert page.locator("[data-action=quick-play]").count() == 1
    assert Seek.objects.get(player__username="quickwait").status == Seek.Status.CANCELED
    assert not page.errors  # type: ignore[attr-defined]
