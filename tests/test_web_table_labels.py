"""Every seat has a label of its own on the table page and in its prompts and results, and in
the lists of tables and games in play of the lobby and the start page: two house bots of one
kind are told apart (docs/web.md, "The table")."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client

from accounts.services import register_player
from games import tables
from games.engine import Game as Engine
from games.models import Game
from web.table import names_by_seat, table_context, told_apart


def test_it_numbers_only_the_names_that_sit_more_than_once() -> None:
    assert told_apart({0: "ann", 1: "house:random", 2: "house:random"}) == {
        0: "ann",
        1: "house:random #1",
        2: "house:random #2",
    }
    assert told_apart({2: "x", 0: "x", 1: "x"}) == {0: "x #1", 1: "x #2", 2: "x #3"}
    assert told_apart({0: "ann", 1: "bob", 2: "house:strong"}) == {
        0: "ann",
        1: "bob",
        2: "house:strong",
    }
    # A tournament's entrant names are distinct already and stay as they are.
    view = {"seats": [{"seat": s, "username": "house:random"} for s in range(3)]}
    entrants = {"seat_names": {0: "house:random #1", 1: "house:random #2", 2: "house:random #3"}}
    assert names_by_seat(view, entrants) == entrants["seat_names"]


def exchange_view() -> dict[str, Any]:
    """Seat 0's view of a classic game at the second hand's exchange, where seat 0 gives
    cards to both other seats (a fixed deal: seed 1)."""
    engine = Engine.new("classic", seed=1)
    while engine.view(None)["phase"] != "exchange":
        seat = engine.view(None)["to_act"][0]
        view = engine.view(seat)
        legal = view["legal_actions"][0]
        action = {k: legal[k] for k in ("type", "to", "suit", "card") if k in legal}
        if legal["type"] in ("discard", "give"):
            action["cards"] = view["your_hand"][: legal["count"]]
        engine.apply_dict(seat, action)
    base = engine.view(0)
    assert {b["to"] for b in base["exchange"] if b["from"] == 0} == {1, 2}
    return {
        **base,
        "id": 1,
        "status": "playing",
        "rated": False,
        "version": 50,
        "deadline": None,
        "seed_commitment": "0" * 64,
        "seats": [
            {"seat": 0, "username": "ann", "is_bot": False},
            {"seat": 1, "username": "house:random", "is_bot": True},
            {"seat": 2, "username": "house:random", "is_bot": True},
        ],
    }


def test_it_tells_two_house_bots_of_one_kind_apart_in_the_seats_and_the_exchange() -> None:
    html = render_to_string("web/game/table.html", table_context(exchange_view()))

    seats = re.findall(r'<div class="seat-name">([^<]*)', html)
    assert sorted(s.strip() for s in seats) == ["ann (you)", "house:random #1", "house:random #2"]
    # The prompt to give: one button per receiver, each named apart.
    assert re.search(r'data-to="1"[^>]*>to house:random #1 \(', html)
    assert re.search(r'data-to="2"[^>]*>to house:random #2 \(', html)
    # The exchange's lines.
    assert "ann gives" in html and "to house:random #1" in html and "to house:random #2" in html
    assert not re.search(r"house:random(?! #)", html)


def rows(page: str, hook: str, key: int) -> list[str]:
    """The text of each ``<tr data-{hook}="{key}">`` of the page."""
    found = re.findall(rf'<tr[^>]*data-{hook}="{key}"[^>]*>(.*?)</tr>', page, re.S)
    assert found, (hook, key)
    return [" ".join(re.sub(r"<[^>]+>", " ", inner).split()) for inner in found]


@pytest.mark.django_db
def test_the_lobby_and_the_start_page_list_two_house_bots_of_one_kind_apart(
    client: Client,
) -> None:
    dee, _ = register_player("dee", password="correct horse battery")
    waiting = tables.create_table(dee, rules="classic", rated=False, move_seconds=60, seat=None)
    for seat in (0, 2):
        tables.seat_bot(dee, table_id=waiting.pk, bot="house:random", seat=seat)
    playing = tables.create_table(dee, rules="classic", rated=False, move_seconds=60, seat=1)
    for seat in (0, 2):
        tables.seat_bot(dee, table_id=playing.pk, bot="house:heuristic", seat=seat)
    game = Game.objects.get(table=playing)
    client.force_login(dee)

    for path in ("/", "/lobby"):
        page = client.get(path).content.decode()
        for seats in rows(page, "table-id", waiting.pk):
            assert re.search(r"house:random #1 bot .+ house:random #2 bot", seats), seats
        # The start page lists the game twice: dee's games, and the games in play.
        for players in rows(page, "game-id", game.pk):
            assert "house:heuristic #1 bot , dee , house:heuristic #2" in players, (path, players)
