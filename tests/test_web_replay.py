"""The replay page (docs/web.md "Replay"): ``/games/{id}/replay?step=N`` is a finished game
after its first N actions, every hand face up.

Games are played in process through the services from fixed deals (``Table.deal_seed``)
with fixed random actions (tests/rating_helpers.py ``play_out``), so each is the same on
every database. Each page is checked against the engine itself: the game's record replayed
here with ``Engine.from_deals`` and ``apply_dict``, independently of the page's code.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from games import play, selectors, tables
from games.engine import Game as Engine
from games.models import Game, Table
from tests.rating_helpers import new_players, play_out
from web.templatetags.cards import sort_hand

pytestmark = pytest.mark.django_db

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


# --- Reading the page ---------------------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def all(self, tag: str | None = None, **attrs: str | None) -> list[Node]:
        """Every element below with ``tag`` and ``attrs`` (``None``: the attribute is there
        with any value; ``data_card`` is ``data-card``)."""
        wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if (tag is None or child.tag == tag) and all(
                    k in child.attrs and (v is None or child.attrs[k] == v)
                    for k, v in wanted.items()
                ):
                    found.append(child)
                found += child.all(tag, **attrs)
        return found

    def one(self, tag: str | None = None, **attrs: str | None) -> Node:
        (found,) = self.all(tag, **attrs)
        return found

    def cards(self) -> list[str]:
        """The codes of the face-up cards below, in page order."""
        return [n.attrs["data-card"] for n in self.all(data_card=None)]

    def text(self) -> str:
        parts = [c if isinstance(c, str) else c.text() for c in self.children]
        return " ".join(" ".join(parts).split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    return builder.root


@dataclass
class Page:
    status: int
    html: str
    main: Node

    def seat_hand(self, seat: int) -> list[str]:
        return self.main.one(data_hand_seat=str(seat)).cards()

    def stat(self, name: str, seat: int) -> int:
        return int(self.main.one("b", **{f"data_{name}": str(seat)}).text())


def get(client: Client, path: str) -> Page:
    response = client.get(path)
    html = response.content.decode()
    main = parse(html).one("main")
    return Page(response.status_code, html, main)


def replay(client: Client, game_id: int, step: int | str | None = None) -> Page:
    query = "" if step is None else f"?step={step}"
    page = get(client, f"/games/{game_id}/replay{query}")
    assert page.status == 200, page.html
    return page


# --- The games ------------------------------------------------------------------------------


def finished(preset: str, seed: int, hands: int, people: list[Player], passes: int = 0) -> int:
    """A finished game of ``preset`` (``max_hands``: ``hands``) with ``people`` in the first
    seats and a house bot in the last, dealt from ``replay-{seed}`` and played with
    ``random.Random(seed)`` (``passes``: the first bids are passes, which redeals after
    three in Woburn)."""
    seats = 4 if preset == "four-handed" else 3
    rules = {"preset": preset, "max_hands": hands}
    table = tables.create_table(people[0], rules=rules, rated=False, move_seconds=600, seat=None)
    for seat, person in enumerate(people[: seats - 1]):
        tables.join_table(person, table_id=table.pk, seat=seat)
    # A table with a deal seed seats house bots only: the seed comes after the people sit.
    Table.objects.filter(pk=table.pk).update(deal_seed=f"replay-{seed}")
    tables.seat_bot(people[0], table_id=table.pk, bot="house:random", seat=seats - 1)
    game_id = Game.objects.get(table_id=table.pk).pk
    for _ in range(passes):
        game = Game.objects.get(pk=game_id)
        (seat,) = game.to_act
        play.act_for_seat(
            game_id, seat=seat, action={"type": "pass"}, expected_version=game.version
        )
    assert play_out(game_id, random.Random(seed)).status == Game.Status.FINISHED
    return game_id


@dataclass
class Step:
    """The engine after a step, and what the step's action made it report."""

    hands: list[list[str]]
    trick: list[str]
    tricks: list[int]
    scores: list[int]
    trump: str | None
    dealer: int
    events: list[dict[str, Any]]


def engine_steps(record: dict[str, Any]) -> list[Step]:
    """The record replayed through the engine: the state after each number of actions."""
    engine = Engine.from_deals(record["rules"], record["deals"], record["first_dealer"])

    def state(events: list[dict[str, Any]]) -> Step:
        return Step(
            hands=[[str(c) for c in engine.hand(s)] for s in range(engine.players)],
            trick=[str(card) for _, card in engine.current_trick()],
            tricks=engine.tricks,
            scores=engine.scores,
            trump=engine.trump,
            dealer=engine.dealer,
            events=events,
        )

    steps = [state([e.to_dict() for e in engine.opening_events()])]
    for action in record["actions"]:
        events = engine.apply_dict(action["seat"], action)
        steps.append(state([e.to_dict() for e in events]))
    assert engine.is_over()
    return steps


PRESETS = [
    # preset, seed, hands: classic has an exchange (with its returns) in hand 2.
    ("classic", 1, 2),
    ("calls", 2, 1),
    ("four-handed", 3, 1),
    ("woburn", 4, 1),
    ("9-5-3-single-kitty", 5, 1),
]


@pytest.fixture
def people() -> list[Player]:
    return new_players("replayer", 3)


@pytest.fixture
def client() -> Client:
    return Client()


# --- Tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "seed", "hands"), PRESETS)
def test_it_shows_every_dealt_hand_face_up_at_step_0(
    client: Client, people: list[Player], preset: str, seed: int, hands: int
) -> None:
    game_id = finished(preset, seed, hands, people)
    record = selectors.game_record(game_id)

    page = replay(client, game_id)

    assert page.main.attrs["data-game-id"] == str(game_id)
    assert page.main.attrs["data-step"] == "0"
    assert page.main.attrs["data-last-step"] == str(len(record["actions"]))
    dealt = record["deals"][0]["hands"]
    assert len(dealt) == (4 if preset == "four-handed" else 3)
    for seat, cards in enumerate(dealt):
        assert page.seat_hand(seat) == sort_hand(cards), seat
    assert page.main.one(data_dealer=None).attrs["data-dealer"] == str(record["first_dealer"])
    assert replay(client, game_id, 0).main.cards() == page.main.cards()


@pytest.mark.parametrize(("preset", "seed", "hands"), PRESETS)
def test_it_shows_at_every_step_exactly_the_cards_the_engine_holds(
    client: Client, people: list[Player], preset: str, seed: int, hands: int
) -> None:
    game_id = finished(preset, seed, hands, people)
    record = selectors.game_record(game_id)
    steps = engine_steps(record)
    assert len(steps) == len(record["actions"]) + 1

    for number, step in enumerate(steps):
        page = replay(client, game_id, number)

        assert page.main.attrs["data-step"] == str(number)
        for seat, cards in enumerate(step.hands):
            assert page.seat_hand(seat) == sort_hand(cards), (number, seat)
            assert page.stat("tricks", seat) == step.tricks[seat], (number, seat)
            assert page.stat("score", seat) == step.scores[seat], (number, seat)
        played = page.main.all(data_trick_card=None)
        if step.trick:  # a trick in progress: its cards on the table
            assert sorted(n.attrs["data-trick-card"] for n in played) == sorted(step.trick)
        elif any(e["type"] == "trick" for e in step.events):  # the trick just won
            (won,) = (e for e in step.events if e["type"] == "trick")
            assert sorted(n.attrs["data-trick-card"] for n in played) == sorted(won["cards"])
        else:
            assert played == [], number
        trump = page.main.all(data_trump=None)
        assert [n.attrs["data-trump"] for n in trump] == ([step.trump] if step.trump else [])
        assert page.main.one(data_dealer=None).attrs["data-dealer"] == str(step.dealer)


@pytest.mark.parametrize(("preset", "seed", "hands"), PRESETS)
def test_it_ends_on_the_games_result(
    client: Client, people: list[Player], preset: str, seed: int, hands: int
) -> None:
    game_id = finished(preset, seed, hands, people)
    record = selectors.game_record(game_id)
    last = len(record["actions"])

    page = replay(client, game_id, last)

    assert page.main.attrs["data-step"] == str(last)
    result = page.main.one(data_testid="result")
    rows = result.all("tr", data_seat=None)
    assert {int(r.attrs["data-seat"]): int(r.attrs["data-rank"]) for r in rows} == dict(
        enumerate(record["ranks"])
    )
    assert {int(r.attrs["data-seat"]): int(r.attrs["data-score"]) for r in rows} == dict(
        enumerate(record["scores"])
    )
    assert [int(r.attrs["data-rank"]) for r in rows] == sorted(record["ranks"])
    for seat, score in enumerate(record["scores"]):
        assert page.stat("score", seat) == score
        assert page.seat_hand(seat) == sort_hand(record["final_hands"][seat])
    assert page.main.all(data_nav="next") == [] and page.main.all(data_nav="last") == []
    # Only the last step shows the result; a step past the end is the last one.
    assert replay(client, game_id, last - 1).main.all(data_testid="result") == []
    assert replay(client, game_id, last + 50).main.attrs["data-step"] == str(last)


def test_it_comes_back_to_the_same_page_after_a_step_forward_and_back(
    client: Client, people: list[Player]
) -> None:
    game_id = finished("classic", 1, 2, people)
    last = len(selectors.game_record(game_id)["actions"])

    for start in (0, 1, 17, last // 2, last - 1):
        page = replay(client, game_id, start)
        forward = page.main.one("a", data_nav="next").attrs["href"]
        after = get(client, forward)
        assert after.main.attrs["data-step"] == str(start + 1)
        back = after.main.one("a", data_nav="prev").attrs["href"]
        again = get(client, back)

        assert again.main.attrs["data-step"] == str(start)
        assert again.main == page.main, start
        assert after.main != page.main


def test_it_links_first_previous_next_and_last_with_their_names(
    client: Client, people: list[Player]
) -> None:
    game_id = finished("classic", 1, 2, people)
    last = len(selectors.game_record(game_id)["actions"])

    first = replay(client, game_id, 0)
    middle = replay(client, game_id, 5)

    assert first.main.all("a", data_nav="prev") == []
    assert first.main.all("a", data_nav="first") == []
    links = {a.attrs["data-nav"]: a for a in middle.main.all("a", data_nav=None)}
    assert {nav: a.attrs["href"] for nav, a in links.items()} == {
        "first": f"/games/{game_id}/replay?step=0",
        "prev": f"/games/{game_id}/replay?step=4",
        "next": f"/games/{game_id}/replay?step=6",
        "last": f"/games/{game_id}/replay?step={last}",
    }
    assert {a.attrs["aria-label"] for a in links.values()} == {
        "First step",
        "Previous step",
        "Next step",
        "Last step",
    }
    form = middle.main.one("form")
    assert form.attrs["method"] == "get"
    assert middle.main.one("input", name="step").attrs["value"] == "5"
    assert 'src="/static/web/replay.js"' in middle.html


def test_it_reads_a_bad_step_as_the_first(client: Client, people: list[Player]) -> None:
    game_id = finished("calls", 2, 1, people)

    for bad in ("-3", "x", ""):
        assert replay(client, game_id, bad).main.attrs["data-step"] == "0"


def test_it_shows_the_exchange_gives_and_their_returns(
    client: Client, people: list[Player]
) -> None:
    game_id = finished("classic", 1, 2, people)
    record = selectors.game_record(game_id)
    steps = engine_steps(record)
    gives = [n for n, a in enumerate(record["actions"], 1) if a["type"] == "give"]
    assert gives, "hand 2 of this game has an exchange"
    names = {s["seat"]: s["username"] for s in record["seats"]}

    for number in gives:
        action = record["actions"][number - 1]
        (returned,) = (e for e in steps[number].events if e["type"] == "return_cards")
        page = replay(client, game_id, number)

        said = page.main.one("section", aria_label="What happened")
        lines = said.all("li")
        give_line = next(li for li in lines if " gives" in li.text())
        assert give_line.text().startswith(f"{names[action['seat']]} gives")
        assert give_line.cards() == sort_hand(action["cards"])
        return_line = next(li for li in lines if " returns" in li.text())
        assert return_line.text().startswith(f"{names[returned['from']]} returns")
        assert return_line.cards() == sort_hand(returned["cards"])
        exchange = page.main.one("section", aria_label="Exchange")
        assert set(action["cards"]) | set(returned["cards"]) <= set(exchange.cards())


def test_it_shows_the_kitty_and_the_discards(client: Client, people: list[Player]) -> None:
    game_id = finished("classic", 1, 2, people)
    record = selectors.game_record(game_id)
    (discard, *_) = (n for n, a in enumerate(record["actions"], 1) if a["type"] == "discard")

    before = replay(client, game_id, discard - 1).main.one(aria_label="Kitty")
    after = replay(client, game_id, discard).main.one(aria_label="Kitty")

    assert before.cards() == sort_hand(record["deals"][0]["kitty"])
    discarded = record["actions"][discard - 1]["cards"]
    # The kitty the dealer took, then the discards.
    assert after.cards() == sort_hand(record["deals"][0]["kitty"]) + sort_hand(discarded)


def test_it_shows_the_swap_of_the_single_kitty(client: Client, people: list[Player]) -> None:
    game_id = finished("9-5-3-single-kitty", 5, 1, people)
    record = selectors.game_record(game_id)
    face_up = record["deals"][0]["kitty"]

    start = replay(client, game_id, 0).main.one(aria_label="Kitty")
    assert start.cards() == face_up
    swaps = [(n, a) for n, a in enumerate(record["actions"], 1) if a["type"] == "swap"]
    assert swaps, "someone swaps in this game"
    for number, action in swaps:
        kitty = replay(client, game_id, number).main.one(aria_label="Kitty")
        assert kitty.cards() == [*face_up, action["card"]]


def test_it_shows_the_woburn_auction_and_the_calls_made(
    client: Client, people: list[Player]
) -> None:
    woburn = finished("woburn", 4, 1, people)
    record = selectors.game_record(woburn)
    bids = [a for a in record["actions"] if a["type"] in ("bid", "pass")]
    assert bids

    auction = replay(client, woburn, len(bids)).main.one(aria_label="Auction").text()

    names = {s["seat"]: s["username"] for s in record["seats"]}
    for bid in bids:
        assert f"{names[bid['seat']]}: {bid.get('tricks', 'pass')}" in auction

    calls = finished("calls", 2, 1, people)
    called = selectors.game_record(calls)["actions"][0]
    assert called["type"] == "trump"
    page = replay(client, calls, 1)
    assert page.main.one(data_trump=None).attrs["data-trump"] == called["suit"]
    assert page.main.one(aria_label="Calls made").text()


def test_it_indexes_the_start_of_every_hand(client: Client, people: list[Player]) -> None:
    game_id = finished("four-handed", 3, 2, people)
    steps = engine_steps(selectors.game_record(game_id))
    starts = [n for n, s in enumerate(steps) if any(e["type"] == "hand_start" for e in s.events)]
    assert len(starts) == 2

    page = replay(client, game_id, starts[1] + 3)

    index = page.main.one("section", aria_label="Hands")
    assert [int(a.attrs["data-step"]) for a in index.all("a")] == starts
    assert index.all("a", aria_current="true")[0].attrs["data-step"] == str(starts[1])
    assert page.main.attrs["data-hand"] == "2"
    # The hand's own steps, each a link; the step shown is marked.
    listed = page.main.one("section", aria_label="Steps of this hand").all("a")
    assert [int(a.attrs["data-step"]) for a in listed] == list(range(starts[1], len(steps)))
    (shown,) = [a for a in listed if a.attrs.get("aria-current") == "step"]
    assert shown.attrs["data-step"] == str(starts[1] + 3)


def test_it_indexes_a_woburn_redeal_as_the_same_hand_dealt_again(
    client: Client, people: list[Player]
) -> None:
    game_id = finished("woburn", 4, 1, people, passes=3)
    record = selectors.game_record(game_id)
    assert len(record["deals"]) == 2  # the first deal was passed out

    page = replay(client, game_id, 3)

    index = page.main.one("section", aria_label="Hands").all("li")
    assert [int(li.one("a").attrs["data-step"]) for li in index] == [0, 3]
    assert "all passed" in index[0].text()
    assert "Hand 1 (dealt again)" in index[1].text()
    for seat, cards in enumerate(record["deals"][1]["hands"]):
        assert page.seat_hand(seat) == sort_hand(cards)
    said = page.main.one("section", aria_label="What happened").text()
    assert "Everyone passed" in said


def test_it_refuses_an_unknown_game_with_an_html_404(client: Client) -> None:
    response = client.get("/games/999999/replay")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "data-card" not in response.content.decode()


def test_it_shows_no_card_of_a_game_in_progress(client: Client, people: list[Player]) -> None:
    table = tables.create_table(
        people[0], rules="classic", rated=False, move_seconds=600, seat=None
    )
    for seat, person in enumerate(people):
        tables.join_table(person, table_id=table.pk, seat=seat)
    game = Game.objects.get(table_id=table.pk)
    seated = Client()
    seated.force_login(people[0])

    for viewer in (client, seated):
        response = viewer.get(f"/games/{game.pk}/replay?step=3")

        html = response.content.decode()
        assert response.status_code == 409
        assert response["Content-Type"].startswith("text/html")
        assert "data-card" not in html
        assert f'href="/games/{game.pk}"' in html
