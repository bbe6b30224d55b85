"""The home page's "Being played now", kept current: ``GET /games/live`` (Server-Sent Events)
sends the list, rendered once for every page, when a game starts or ends; the page puts it in
place. Real server; both modes.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext

from tests.browser import new_page
from tests.conftest import LiveServer
from tests.game_helpers import play_to_the_end, start_table, three_players
from tests.live_client import LiveReader, Message

pytestmark = pytest.mark.django_db(transaction=True)

ONE_HAND = {"preset": "classic", "max_hands": 1}


def listed(message: Message) -> list[int]:
    return [int(game) for game in re.findall(r'data-game-id="(\d+)"', message.data["html"])]


def home_reader(url: str, **kwargs: Any) -> LiveReader:
    return LiveReader(url, 0, path="/games/live", **kwargs)


def test_it_pushes_the_list_when_a_game_starts_and_ends(api_server: LiveServer) -> None:
    reader = home_reader(api_server.url)
    first = reader.wait_for(lambda found: len(found) >= 1)[0]
    assert first.event == "change" and first.id == first.data["version"]
    assert '<div id="games-in-play"' in first.data["html"]

    players = three_players(api_server.url, "homelive")
    started_at = time.monotonic()
    game_id = start_table(players[0], players[1:], ONE_HAND)
    shown = reader.wait_for(lambda found: game_id in listed(found[-1]))[-1]
    assert shown.at - started_at < 3  # woken, not found by a look
    assert f'data-version="{shown.id}"' in shown.data["html"]
    page = httpx.get(f"{api_server.url}/").text
    mark = re.search(r'<div id="games-in-play"[^>]*data-version="(\d+)"', page)
    assert mark is not None and int(mark.group(1)) == shown.id

    play_to_the_end(players, game_id, random.Random(4))
    gone = reader.wait_for(lambda found: game_id not in listed(found[-1]))[-1]
    assert gone.id != shown.id
    reader.stop()

    # A page that shows the list already is sent nothing until it changes.
    again = home_reader(api_server.url, last_event_id=gone.id)
    time.sleep(1.0)
    assert again.status == 200 and again.messages == []
    again.stop()
    behind = home_reader(api_server.url, query=f"?after={shown.id}")
    assert listed(behind.wait_for(lambda found: len(found) >= 1)[0]) == listed(gone)
    behind.stop()


@pytest.mark.slow
def test_the_home_page_keeps_its_list_current(
    api_server: LiveServer, context: BrowserContext
) -> None:
    page = new_page(context)
    page.goto(f"{api_server.url}/")
    page.wait_for_timeout(500)  # the stream opened
    players = three_players(api_server.url, "homepage")
    game_id = start_table(players[0], players[1:], ONE_HAND)
    page.wait_for_selector(f'#games-in-play tr[data-game-id="{game_id}"]', timeout=10_000)
    play_to_the_end(players, game_id, random.Random(5))
    page.wait_for_selector(
        f'#games-in-play tr[data-game-id="{game_id}"]', state="detached", timeout=10_000
    )
    assert page.errors == []  # type: ignore[attr-defined]
