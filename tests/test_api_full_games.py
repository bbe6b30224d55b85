"""Three HTTP clients and a spectator play whole games against the live ASGI server.

While they play, every response any of them receives (game views, action responses, events,
stream lines) is scanned for cards that client may not know.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import pytest

from tests.api_client import Client, cards_in, register
from tests.conftest import LiveServer
from tests.game_helpers import choose_action, start_table

pytestmark = pytest.mark.django_db(transaction=True)


class StreamReader(threading.Thread):
    def __init__(self, client: Client) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.lines: list[str] = []

    def run(self) -> None:
        try:
            for line in self.client.stream_lines():
                self.lines.append(line)
        except Exception:  # the server closes the stream when the test ends
            pass


class LeakScanner:
    """Checks each client's new responses against the true hidden cards of the moment."""

    def __init__(self, clients: dict[int | None, Client]) -> None:
        self.clients = clients
        # Bodies of earlier games (a test plays on until one has an exchange) were checked
        # against their own game's cards, not this one's.
        self.checked = {seat: len(client.received) for seat, client in clients.items()}
        self.ever_held: dict[int | None, set[str]] = {seat: set() for seat in clients}
        self.discards: set[str] = set()
        self.bodies_checked = 0
        self.hand_number = 0
        # Each seat's view, and the cards hidden from it, at each version of the game: the
        # stream's your_turn lines are checked against the moment they were sent.
        self.views_at: dict[int, dict[int, dict[str, Any]]] = {}
        self.hidden_at: dict[int, dict[int | None, set[str]]] = {}

    def check(self, views: dict[int, dict[str, Any]], public_plays: set[str]) -> None:
        hands = {seat: set(view["your_hand"]) for seat, view in views.items()}
        hand_number = views[0]["hand_number"]
        if hand_number != self.hand_number:  # a new deal: what was known is void
            self.hand_number = hand_number
            self.discards = set()
            self.ever_held = {seat: set() for seat in self.clients}
        for seat, view in views.items():
            # What a seat may know (docs/rules.md "Information"): its hand, cards it gave and
            # received in exchanges, its discards and kitty as dealer, disclosed cards.
            self.ever_held[seat] |= hands[seat]
            self.ever_held[seat] |= cards_in(view.get("exchange"))
            self.ever_held[seat] |= cards_in(view.get("disclosures"))
            self.ever_held[seat] |= cards_in(view.get("your_kitty"))
            self.discards |= set(view.get("your_discards") or [])
        version = views[0]["version"]
        self.views_at[version] = views
        self.hidden_at[version] = {}
        for seat, client in self.clients.items():
            hidden = set(self.discards)
            for other, hand in hands.items():
                if other != seat:
                    hidden |= hand
            hidden -= self.ever_held[seat]
            hidden -= public_plays
            self.hidden_at[version][seat] = hidden
            for body in client.received[self.checked[seat] :]:
                leaked = cards_in(body) & hidden
                assert not leaked, f"seat {seat} was shown {leaked}: {body}"
                self.bodies_checked += 1
            self.checked[seat] = len(client.received)


def play_to_the_end(
    players: dict[int, Client], spectator: Client, game_id: int, rng: random.Random
) -> dict[str, Any]:
    everyone: dict[int | None, Client] = {**players, None: spectator}
    scanner = LeakScanner(everyone)
    last_seq = dict.fromkeys(everyone, 0)
    actions = 0
    while True:
        views = {seat: c.ok("GET", f"/games/{game_id}") for seat, c in players.items()}
        spectator.ok("GET", f"/games/{game_id}")
        public_plays: set[str] = set()
        for seat, client in everyone.items():
            body = client.ok("GET", f"/games/{game_id}/events?after={last_seq[seat]}")
            if body["events"]:
                last_seq[seat] = body["events"][-1]["seq"]
            if seat is None:
                for event in body["events"]:
                    if event["type"] in ("play", "trick"):
                        public_plays |= cards_in(event)
        if views[0]["status"] == "finished":
            return {
                "final": views[0],
                "actions": actions,
                "scanned": scanner.bodies_checked,
                "views_at": scanner.views_at,
                "hidden_at": scanner.hidden_at,
            }
        scanner.check(views, public_plays)
        (seat,) = views[0]["to_act"]
        view = views[seat]
        assert view["your_seat"] == seat
        action = choose_action(view, rng)
        after = players[seat].ok(
            "POST",
            f"/games/{game_id}/actions",
            json={**action, "expected_version": view["version"]},
        )
        assert after["version"] == view["version"] + 1
        actions += 1
        assert actions < 2000, "the game does not end"


def had_an_exchange(record: dict[str, Any]) -> bool:
    return any(hand["exchange"] for hand in record["hands"])


#: Games a test plays at most to see an exchange: a random game ends in its first hand
#: (a 12-trick hand, before any exchange) about once in 90.
GAMES_FOR_AN_EXCHANGE = 4


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "classic", "max_hands": 3},
        {"preset": "kitty-first", "max_hands": 3},
    ],
    ids=["classic", "kitty-first"],
)
def test_it_plays_whole_games_over_http_without_leaking_hidden_cards(
    api_server: LiveServer, rules: dict[str, Any]
) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    spectator = Client(api_server.url)
    readers = [StreamReader(c) for c in (ann, bob, cat)]
    for reader in readers:
        reader.start()
    rng = random.Random(7)
    played_games: dict[int, dict[str, Any]] = {}
    for _ in range(GAMES_FOR_AN_EXCHANGE):  # until a game has had an exchange
        game_id = start_table(ann, [bob, cat], rules)
        played = play_to_the_end({0: ann, 1: bob, 2: cat}, spectator, game_id, rng)
        played_games[game_id] = played
        record = spectator.ok("GET", f"/games/{game_id}/record")
        if had_an_exchange(record):
            break
    assert had_an_exchange(record), f"no exchange in {len(played_games)} games"

    final = played["final"]
    assert final["status"] == "finished"
    assert final["result"]["reason"] in ("tricks", "max_hands")
    assert sum(final["result"]["scores"]) == 0
    assert played["scanned"] > 100

    assert record["scores"] == final["result"]["scores"]
    assert len(record["hands"]) == final["result"]["hands_played"]
    assert len(record["deals"]) >= len(record["hands"])
    assert len(record["actions"]) == played["actions"]
    assert [s["username"] for s in record["seats"]] == ["ann", "bob", "cat"]
    assert any(a["type"] == "give" for a in record["actions"])

    # After the end everything is public: the spectator now sees the private deal events.
    events = spectator.ok("GET", f"/games/{game_id}/events?after=0")["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert any(e["type"] == "deal" for e in events)

    for seat, client in enumerate((ann, bob, cat)):
        history = client.ok("GET", f"/players/{client.username}/games")
        assert history["count"] == len(played_games)
        entry = history["results"][0]  # newest first
        assert entry["game"] == game_id
        assert entry["rank"] == final["result"]["ranks"][seat]
        assert entry["score"] == final["result"]["scores"][seat]
        assert entry["result"] in ("win", "shared", "loss")
        profile = client.ok("GET", f"/players/{client.username}")
        assert profile["games_played"] == len(played_games)

    for client in (ann, bob, cat, spectator):
        client.close()
    for reader in readers:
        reader.join(timeout=10)
        seat = [ann, bob, cat].index(reader.client)
        lines = [json.loads(line) for line in reader.lines if line.strip()]
        turns = [line for line in lines if line["type"] == "your_turn"]
        for line in turns:
            # The line of the moment the seat became due: the view a GET gave at that
            # version, and no card then hidden from the seat.
            played = played_games[line["game"]]
            version = line["version"]
            assert line["seat"] == seat == line["view"]["your_seat"]
            assert line["view"] == played["views_at"][version][seat]
            leaked = cards_in(line) & played["hidden_at"][version][seat]
            assert not leaked, f"seat {seat}'s stream was shown {leaked}: {line}"
        for line in lines:
            if line["type"] != "your_turn":
                assert not cards_in(line), line  # game_start, game_finish: no cards
        due = {
            (game, version)
            for game, played in played_games.items()
            for version, views in played["views_at"].items()
            if seat in views[0]["to_act"]
        }
        assert {(line["game"], line["version"]) for line in turns} == due
        kinds = {line["type"] for line in lines}
        assert {"your_turn", "game_start", "game_finish"} <= kinds, kinds
