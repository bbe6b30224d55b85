"""Every seat has a label of its own on the table page and in its prompts and results: two
house bots of one kind are told apart (docs/web.md, "The table")."""

from __future__ import annotations

import re
from typing import Any

from django.template.loader import render_to_string

from games.engine import Game as Engine
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
