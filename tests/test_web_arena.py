"""The arena page (``/arena?pool=``) as a browser gets it: who is in, the games being played
with links to their pages, and the leaderboard, as ``GET /api/v1/arena`` gives them."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from accounts.services import create_bot_player
from arena import services
from arena.models import Arena
from ratings import services as ratings
from tests.api_client import cards_in
from tests.rating_helpers import QUICK_RULES, new_players, play_out

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr data-username="([^"]*)" data-rating="(-?\d+)">')
GAME = re.compile(r'<li data-game-id="(\d+)"><a href="/games/(\d+)">')


def section(page: str, heading_id: str) -> str:
    start = page.index(f'id="{heading_id}"')
    end = page.find("</section>", start)
    return page[start:end]


def test_it_shows_who_is_in_the_games_and_the_leaderboard() -> None:
    (owner,) = new_players("arenaweb", 1)
    bots = [create_bot_player(owner, username=f"webbot{i}")[0] for i in range(4)]
    Arena.objects.create(pool="classic", rules=QUICK_RULES, move_seconds=60, wait_seconds=600)
    for bot in bots:
        services.join(bot, pool="classic")
    (first,) = services.seat_arena("classic")  # three of the four; the fourth waits
    play_out(first, random.Random(3))
    ratings.rate_game(first)
    (second,) = services.seat_arena("classic")  # the fourth with two of the first game
    browser = Client()
    api = browser.get("/api/v1/arena?pool=classic").json()
    idle = next(b["username"] for b in api["bots"] if b["playing"] is None)
    services.leave(next(b for b in bots if b.username == idle), pool="classic")
    api = browser.get("/api/v1/arena?pool=classic").json()

    response = browser.get("/arena?pool=classic")

    assert response.status_code == 200
    page = response.content.decode()
    in_arena = [name for name, _ in ROW.findall(section(page, "in-arena"))]
    assert in_arena == [b["username"] for b in api["bots"]] and idle not in in_arena
    assert len(in_arena) == 3
    assert GAME.findall(section(page, "arena-games")) == [(str(second), str(second))]
    shown = ROW.findall(section(page, "arena-board"))
    board = [name for name, _ in shown]
    assert board == [row["username"] for row in api["leaderboard"]]
    # Each row carries the display rating, as the API gives it.
    assert [int(rating) for _, rating in shown] == [
        row["display_rating"] for row in api["leaderboard"]
    ]
    assert sorted(board) == sorted(b.username for b in bots)
    assert not cards_in(page.replace("<", " <").split())  # no seat's cards on the page
    assert browser.get("/arena?pool=bridge").status_code == 404
    assert '<a href="/arena">Arena</a>' in browser.get("/").content.decode()
