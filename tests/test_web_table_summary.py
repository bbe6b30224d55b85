"""Between hands the table sums up the hand just played and the exchange to come; at the end
the result box leads with the viewer's own place, score and rating change (docs/web.md,
"The table"). Both are made from the viewer's own view: checked here on the rendered table,
for every seat and a spectator, against what that viewer may know."""

from __future__ import annotations

import re
from typing import Any

from django.template.loader import render_to_string

from games.engine import Game as Engine
from tests.browser import CARD_CODE, visible_cards
from web.table import table_context

SEATS = [
    {"seat": 0, "username": "ann", "is_bot": False},
    {"seat": 1, "username": "house:random", "is_bot": True},
    {"seat": 2, "username": "house:random", "is_bot": True},
]


def act(engine: Engine) -> None:
    """One move of a fixed policy: the first legal action, the first cards of the hand."""
    seat = engine.view(None)["to_act"][0]
    view = engine.view(seat)
    legal = view["legal_actions"][0]
    action = {k: legal[k] for k in ("type", "to", "suit", "card") if k in legal}
    if legal["type"] in ("discard", "give"):
        action["cards"] = view["your_hand"][: legal["count"]]
    engine.apply_dict(seat, action)


def page_view(engine: Engine, seat: int | None, **extra: Any) -> dict[str, Any]:
    """A view as games.selectors.game_view gives it to the page (the platform's fields)."""
    view = engine.view(seat)
    return {
        **view,
        "id": 1,
        "status": "playing",
        "rated": True,
        "version": 50,
        "deadline": None,
        "seed_commitment": "0" * 64,
        "seats": SEATS,
        "your_seat": seat,
        **extra,
    }


def render(view: dict[str, Any], rating: dict[str, Any] | None = None) -> str:
    return render_to_string("web/game/table.html", table_context(view, None, rating))


def part(html: str, testid: str) -> str:
    found = re.search(rf'<(\w+) [^>]*data-testid="{testid}".*?</\1>', html, re.S)
    assert found, testid
    return found.group(0)


def second_hand() -> Engine:
    """Classic, seed 1, played by the fixed policy to the start of its second hand."""
    engine = Engine.new("classic", seed=1)
    while engine.view(None)["hand_number"] == 1:
        act(engine)
    return engine


def test_it_sums_up_the_hand_and_the_exchange_to_come_between_hands_for_every_viewer() -> None:
    engine = second_hand()
    public = engine.view(None)
    last = public["previous_hands"][-1]
    plan = [b for b in public["exchange"] if not b["done"]]
    assert plan, "the fixed deal's second hand starts with an exchange"
    names = {0: "ann", 1: "house:random #1", 2: "house:random #2"}

    for seat in (None, 0, 1, 2):
        view = page_view(engine, seat)
        html = render(view)
        summary = part(html, "hand-summary")
        assert 'data-hand="1"' in summary
        for s in range(3):
            row = re.search(rf'<li data-seat="{s}"[^>]*>.*?</li>', summary, re.S)
            assert row, (seat, s)
            assert f'data-tricks="{last["tricks"][s]}"' in row.group(0)
            assert f'data-target="{last["targets"][s]}"' in row.group(0)
            # Each seat named apart (two house bots of one kind).
            assert f'<span class="who">{names[s]}</span>' in row.group(0)
        for batch in plan:
            line = f"{names[batch['from']]} gives {batch['count']} to {names[batch['to']]}"
            assert line in summary, (seat, line)
        # The summary shows counts, never a card; the page no card its viewer may not know.
        assert not CARD_CODE.search(summary)
        assert set(CARD_CODE.findall(html)) <= visible_cards(view), seat


def test_the_summary_is_hidden_once_the_first_card_of_the_hand_is_down() -> None:
    engine = Engine.new("classic", seed=1)
    # The first hand has no summary, not even before its first card.
    assert 'data-testid="hand-summary"' not in render(page_view(engine, 0))
    engine = second_hand()
    while engine.view(None)["phase"] != "play":
        act(engine)
    assert "hidden" not in part(render(page_view(engine, 0)), "hand-summary").split(">")[0]
    act(engine)
    assert engine.view(None)["current_trick"]
    # Hidden from then on (the page shows it a while when the hand changed unseen).
    assert " hidden>" in part(render(page_view(engine, 0)), "hand-summary").split("</p>")[0]


def finished(seat: int | None, *, rated: bool) -> dict[str, Any]:
    engine = Engine.new({"preset": "classic", "max_hands": 1}, seed=1)
    while not engine.is_over():
        act(engine)
    view = engine.view(None)
    ranks = [1, 3, 2]
    return {
        **page_view(engine, None),
        "status": "finished",
        "rated": rated,
        "your_seat": seat,
        "result": {**view["result"], "ranks": ranks, "scores": [4, -3, 0]},
    }


def test_the_result_leads_with_the_viewers_place_score_and_rating_change() -> None:
    rating = {
        "pool": "classic",
        "before": 1500,
        "after": 1512,
        "provisional_before": True,
        "provisional_after": True,
    }
    html = render(finished(2, rated=True), rating)
    me = part(html, "result-me")
    assert 'data-place="2"' in me and 'data-score="0"' in me
    assert 'data-rating-before="1500"' in me and 'data-rating-after="1512"' in me
    assert "data-rating-pending" not in me
    assert "You placed 2nd" in me and "1500?" in me and "1512?" in me and "(+12)" in me
    # The result comes first on the page, before the table's felt.
    assert html.index('data-testid="result"') < html.index('class="felt')

    # Rated, not yet known: said so, and the page looks again.
    pending = part(render(finished(0, rated=True)), "result-me")
    assert 'data-rating-pending="true"' in pending and 'data-rating-after=""' in pending
    assert "You won!" in pending

    # Unrated: no rating change at all; a spectator has no line of their own.
    unrated = part(render(finished(1, rated=False), rating), "result-me")
    assert "data-rating" not in unrated and "not rated" in unrated
    assert 'data-place="3"' in unrated
    assert 'data-testid="result-me"' not in render(finished(None, rated=True))


def test_the_result_of_a_seat_a_bot_played_out_says_so_rather_than_the_bots_place() -> None:
    view = finished(0, rated=True)
    view["seats"] = [{**SEATS[0], "played_by": "house:heuristic"}, *SEATS[1:]]
    rating = {
        "pool": "classic",
        "before": 1500,
        "after": 1431,
        "provisional_before": True,
        "provisional_after": True,
    }
    me = part(render(view, rating), "result-me")
    assert "Your seat was played out" in me and "You won!" not in me
    assert "rated last" in me and 'data-place="1"' in me
