"""Every error status and code of docs/api.md, in the one error shape, and errors change nothing.

Most requests go to the live server; the rate limit is checked in process, where a test can
lower ``RATE_LIMIT_PER_MINUTE``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts import ratelimit
from accounts.services import register_player
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)

RATE_WINDOW = 60
JSON = {"Content-Type": "application/json"}


@dataclass
class Match:
    """A started game of ``classic`` (one hand) with three seated players and a spectator."""

    game_id: int
    seats: list[Client]
    outsider: Client
    spectator: Client

    @property
    def path(self) -> str:
        return f"/games/{self.game_id}"

    def view(self, seat: int | None = None) -> dict[str, Any]:
        client = self.spectator if seat is None else self.seats[seat]
        view = client.ok("GET", self.path)
        assert isinstance(view, dict)
        return view

    def to_act(self) -> int:
        (seat,) = self.view()["to_act"]
        return int(seat)

    def act(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        view = self.seats[seat].ok("POST", f"{self.path}/actions", json=action)
        assert isinstance(view, dict)
        return view

    def snapshot(self, seat: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """What a change would show: the seat's view, the public view and the seat's events."""
        events = self.seats[seat].ok("GET", f"{self.path}/events?after=0")
        return self.view(seat), self.view(), events

    def post_illegal(self, seat: int, action: Any, status: int, code: str) -> dict[str, Any]:
        """Post a refused action for ``seat``; check the error and that nothing changed."""
        before = self.snapshot(seat)
        response = self.seats[seat].post(f"{self.path}/actions", json=action)
        error = error_of(response, status, code)
        assert self.snapshot(seat) == before
        return error

    def close(self) -> None:
        for client in [*self.seats, self.outsider, self.spectator]:
            client.close()


@pytest.fixture
def match(api_server: LiveServer) -> Iterator[Match]:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    table = ann.ok(
        "POST",
        "/tables",
        201,
        json={"rules": {"preset": "classic", "max_hands": 1}, "move_seconds": 3600},
    )
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    started = cat.ok("POST", f"/tables/{table['id']}/join", json={})
    assert started["status"] == "playing"
    found = Match(
        int(started["game"]),
        [ann, bob, cat],
        register(api_server.url, "dan"),
        Client(api_server.url),
    )
    yield found
    found.close()


def name_trump(match: Match) -> int:
    """The dealer names the first legal trump; returns the dealer's seat."""
    dealer = match.to_act()
    view = match.view(dealer)
    assert view["phase"] == "trump"
    match.act(dealer, dict(view["legal_actions"][0]))
    return dealer


def lowest_cards(view: dict[str, Any], count: int) -> list[str]:
    order = {card: i for i, card in enumerate(sorted_deck())}
    return sorted(view["your_hand"], key=order.__getitem__)[:count]


def sorted_deck() -> list[str]:
    return [f"{rank}{suit}" for suit in "CDHS" for rank in "23456789TJQKA"]


def reach_the_play(match: Match) -> int:
    """Trump and discard done; returns the seat to lead the first trick."""
    dealer = name_trump(match)
    view = match.view(dealer)
    assert view["legal_actions"] == [{"type": "discard", "count": 4}]
    match.act(dealer, {"type": "discard", "cards": lowest_cards(view, 4)})
    leader = match.to_act()
    assert match.view(leader)["phase"] == "play"
    return leader


def step(match: Match) -> dict[str, Any]:
    """One legal action by the seat to act: the first legal one, the lowest cards to part with."""
    seat = match.to_act()
    view = match.view(seat)
    action = dict(view["legal_actions"][0])
    if action["type"] in ("discard", "give"):
        action["cards"] = lowest_cards(view, action.pop("count"))
    return match.act(seat, action)


def play_to_the_end(match: Match) -> dict[str, Any]:
    for _ in range(200):
        view = step(match)
        if view["status"] == "finished":
            return view
    raise AssertionError("the game does not end")


# --- 400 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, needs_token",
    [("/accounts/register", False), ("/tables", True), ("/me/tokens", True)],
)
def test_it_answers_malformed_json_with_400(
    api_server: LiveServer, path: str, needs_token: bool
) -> None:
    client = register(api_server.url, "ann") if needs_token else Client(api_server.url)

    response = client.post(
        path, content=b'{"rules": "classic",', headers={"Content-Type": "application/json"}
    )

    error_of(response, 400, "malformed_json")


def test_it_answers_a_malformed_action_body_with_400(match: Match) -> None:
    seat = match.to_act()
    before = match.snapshot(seat)

    response = match.seats[seat].post(
        f"{match.path}/actions",
        content=b"{'type': 'trump'}",
        headers={"Content-Type": "application/json"},
    )

    error_of(response, 400, "malformed_json")
    assert match.snapshot(seat) == before


@pytest.mark.parametrize(
    "body, field",
    [
        ({"rules": "classic", "rated": "perhaps"}, "rated"),
        ({"rules": "classic", "move_seconds": "soon"}, "move_seconds"),
        ({"rules": "classic", "move_seconds": [60]}, "move_seconds"),
        ({"rules": "classic", "seat": "first"}, "seat"),
        ({"rules": 5}, "rules"),
        ({"rules": ["classic"]}, "rules"),
    ],
)
def test_it_answers_wrong_field_types_with_400_naming_the_field(
    api_server: LiveServer, body: dict[str, Any], field: str
) -> None:
    ann = register(api_server.url, "ann")

    error = error_of(ann.post("/tables", json=body), 400, "invalid")

    assert field in error["fields"], error


@pytest.mark.parametrize("body", [[1, 2, 3], "classic", 17, None])
def test_it_answers_a_body_that_is_not_an_object_with_400(
    api_server: LiveServer, body: Any
) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post("/tables", content=json.dumps(body).encode(), headers=JSON)

    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in ("invalid", "invalid_rules")


def test_it_refuses_wrong_types_in_registration(api_server: LiveServer) -> None:
    response = Client(api_server.url).post(
        "/accounts/register", json={"username": 5, "password": ["x"], "email": "nope"}
    )

    error = error_of(response, 400, "invalid")
    assert {"password", "email"} <= set(error["fields"]), error


@pytest.mark.parametrize("expected_version", ["3", 2.5, True, [1]])
def test_it_refuses_an_expected_version_that_is_not_an_integer(
    match: Match, expected_version: Any
) -> None:
    dealer = match.to_act()
    option = match.view(dealer)["legal_actions"][0]

    error = match.post_illegal(
        dealer, {**option, "expected_version": expected_version}, 400, "invalid"
    )

    assert "expected_version" in error.get("fields", {}), error


@pytest.mark.parametrize("body", [[{"type": "trump", "suit": "S"}], "trump", 7])
def test_it_refuses_an_action_that_is_not_an_object(match: Match, body: Any) -> None:
    dealer = match.to_act()
    before = match.snapshot(dealer)

    response = match.seats[dealer].post(
        f"{match.path}/actions", content=json.dumps(body).encode(), headers=JSON
    )

    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] in ("invalid", "illegal_action")
    assert match.snapshot(dealer) == before


# --- 400 illegal_action with a docs/replay.md reason ---------------------------------------------


@pytest.mark.parametrize(
    "action, reason",
    [
        ({"type": "trump", "suit": "X"}, "invalid_suit"),
        ({"type": "trump", "suit": "NT"}, "invalid_suit"),
        ({"type": "trump", "suit": 3}, "invalid_suit"),
        ({"type": "trump"}, "invalid_suit"),
        ({"type": "dance"}, "unknown_action"),
        ({"type": 5}, "unknown_action"),
        ({"suit": "S"}, "unknown_action"),
        ({"type": "discard", "cards": ["2C", "3C", "4C", "5C"]}, "wrong_phase"),
        ({"type": "bid", "tricks": 9}, "wrong_phase"),
    ],
)
def test_it_refuses_illegal_trump_phase_actions_with_their_reason(
    match: Match, action: dict[str, Any], reason: str
) -> None:
    dealer = match.to_act()

    error = match.post_illegal(dealer, action, 400, "illegal_action")

    assert error["reason"] == reason, error


def test_it_refuses_a_card_play_in_the_trump_phase_as_wrong_phase(match: Match) -> None:
    dealer = match.to_act()
    card = match.view(dealer)["your_hand"][0]

    error = match.post_illegal(dealer, {"type": "play", "card": card}, 400, "illegal_action")

    assert error["reason"] == "wrong_phase", error


def test_it_refuses_illegal_discards_with_their_reason(match: Match) -> None:
    dealer = name_trump(match)
    hand = match.view(dealer)["your_hand"]
    not_held = next(card for card in sorted_deck() if card not in hand)
    cases = [
        ({"type": "discard", "cards": hand[:3]}, "wrong_card_count"),
        ({"type": "discard", "cards": hand[:5]}, "wrong_card_count"),
        ({"type": "discard", "cards": hand[0]}, "wrong_card_count"),
        ({"type": "discard"}, "wrong_card_count"),
        ({"type": "discard", "cards": [hand[0]] * 4}, "duplicate_card"),
        ({"type": "discard", "cards": [*hand[:3], "ZZ"]}, "card_not_in_hand"),
        ({"type": "discard", "cards": [*hand[:3], 17]}, "card_not_in_hand"),
        ({"type": "discard", "cards": [*hand[:3], not_held]}, "card_not_in_hand"),
        ({"type": "trump", "suit": "S"}, "wrong_phase"),
    ]

    for action, reason in cases:
        error = match.post_illegal(dealer, action, 400, "illegal_action")
        assert error["reason"] == reason, (action, error)


def test_it_refuses_illegal_plays_with_their_reason(match: Match) -> None:
    leader = reach_the_play(match)
    hand = match.view(leader)["your_hand"]
    not_held = next(card for card in sorted_deck() if card not in hand)

    for card in ("ZZ", 17, None, not_held, "as", ["AS"]):
        error = match.post_illegal(leader, {"type": "play", "card": card}, 400, "illegal_action")
        assert error["reason"] == "card_not_in_hand", (card, error)
    error = match.post_illegal(leader, {"type": "play"}, 400, "illegal_action")
    assert error["reason"] == "card_not_in_hand", error


def test_it_refuses_a_card_off_suit_while_holding_the_suit_led(match: Match) -> None:
    leader = reach_the_play(match)
    follower = (leader + 1) % 3
    leads = match.view(leader)["your_hand"]
    follows = match.view(follower)["your_hand"]
    # A lead in a suit the follower holds, while the follower also holds another suit.
    lead = next(
        card
        for card in leads
        if any(c[1] == card[1] for c in follows) and any(c[1] != card[1] for c in follows)
    )
    match.act(leader, {"type": "play", "card": lead})
    assert match.to_act() == follower
    off_suit = next(card for card in follows if card[1] != lead[1])

    error = match.post_illegal(follower, {"type": "play", "card": off_suit}, 400, "illegal_action")

    assert error["reason"] == "must_follow_suit", error
    legal = [a["card"] for a in match.view(follower)["legal_actions"]]
    assert off_suit not in legal
    assert all(card[1] == lead[1] for card in legal)


# --- 401 ------------------------------------------------------------------------------------


def test_it_answers_401_to_an_action_without_a_token(match: Match) -> None:
    dealer = match.to_act()
    option = match.view(dealer)["legal_actions"][0]
    before = match.snapshot(dealer)

    response = match.spectator.post(f"{match.path}/actions", json=option)

    error_of(response, 401, "not_authenticated")
    assert match.snapshot(dealer) == before


def test_it_answers_401_to_an_unknown_token_even_on_public_reads(match: Match) -> None:
    stranger = Client(match.spectator.base_url, token="smk_unknown")

    error_of(stranger.get(match.path), 401, "invalid_token")
    error_of(stranger.get("/tables"), 401, "invalid_token")
    error_of(stranger.get(f"{match.path}/events?after=0"), 401, "invalid_token")
    error_of(stranger.get("/stream"), 401, "invalid_token")


def test_it_answers_401_to_the_stream_without_a_token(api_server: LiveServer) -> None:
    error_of(Client(api_server.url).get("/stream"), 401, "not_authenticated")


# --- 403 ------------------------------------------------------------------------------------


def test_it_answers_403_not_seated_to_a_player_outside_the_game(match: Match) -> None:
    dealer = match.to_act()
    option = match.view(dealer)["legal_actions"][0]
    before = match.snapshot(dealer)

    response = match.outsider.post(f"{match.path}/actions", json=option)

    error_of(response, 403, "not_seated")
    assert match.snapshot(dealer) == before


# --- 404 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/games/999999"),
        ("GET", "/games/999999/events"),
        ("GET", "/games/999999/record"),
        ("POST", "/games/999999/actions"),
        ("GET", "/tables/999999"),
        ("POST", "/tables/999999/join"),
        ("POST", "/tables/999999/leave"),
        ("POST", "/tables/999999/bots"),
        ("GET", "/players/nobody"),
        ("GET", "/players/nobody/games"),
        ("DELETE", "/me/tokens/999999"),
    ],
)
def test_it_answers_404_for_unknown_things(api_server: LiveServer, method: str, path: str) -> None:
    ann = register(api_server.url, "ann")
    bodies = {"/bots": {"bot": "house:random"}, "/actions": {"type": "pass"}}
    body = next((b for end, b in bodies.items() if path.endswith(end)), {})

    response = ann.request(method, path, json=body if method == "POST" else None)

    error_of(response, 404, "not_found")


@pytest.mark.parametrize(
    "path", ["/api/v1/no-such-thing", "/api/v1/games/abc", "/api/nothing", "/api/v1/tables/1/x"]
)
def test_it_answers_404_in_json_for_an_unknown_api_path(api_server: LiveServer, path: str) -> None:
    for method in ("GET", "POST"):
        response = httpx.request(method, api_server.url + path, json={}, timeout=10)
        error_of(response, 404, "not_found")


# --- 409 ------------------------------------------------------------------------------------


def test_it_answers_409_version_conflict_to_a_stale_expected_version(match: Match) -> None:
    dealer = match.to_act()
    view = match.view(dealer)
    option = view["legal_actions"][0]

    error = match.post_illegal(
        dealer, {**option, "expected_version": view["version"] + 1}, 409, "version_conflict"
    )
    assert error["version"] == view["version"]

    after = match.act(dealer, {**option, "expected_version": view["version"]})
    assert after["version"] == view["version"] + 1
    # A version below the game's (a version is never negative: -1 is a 400, tested elsewhere).
    error = match.post_illegal(
        dealer,
        {"type": "discard", "cards": lowest_cards(after, 4), "expected_version": view["version"]},
        409,
        "version_conflict",
    )
    assert error["version"] == after["version"]


def test_it_answers_409_not_your_turn_to_a_seat_not_to_act(match: Match) -> None:
    dealer = match.to_act()
    other = (dealer + 1) % 3

    for action in ({"type": "trump", "suit": "S"}, {"type": "play", "card": "2C"}):
        error = match.post_illegal(other, action, 409, "not_your_turn")
        assert error["to_act"] == [dealer], error


def test_it_answers_409_game_in_progress_for_the_record_before_the_end(match: Match) -> None:
    error_of(match.spectator.get(f"{match.path}/record"), 409, "game_in_progress")
    error_of(match.seats[0].get(f"{match.path}/record"), 409, "game_in_progress")


def test_it_answers_409_to_an_action_on_a_finished_game(match: Match) -> None:
    final = play_to_the_end(match)
    assert final["result"] is not None
    record = match.spectator.ok("GET", f"{match.path}/record")
    assert record["scores"] == final["result"]["scores"]

    for seat in range(3):
        error = match.post_illegal(seat, {"type": "play", "card": "2C"}, 409, "game_finished")
        assert "reason" not in error
    error_of(match.outsider.post(f"{match.path}/actions", json={"type": "pass"}), 403, "not_seated")


# --- 413 ------------------------------------------------------------------------------------


def padded_table_body(size: int) -> bytes:
    """A valid table request of exactly ``size`` bytes (white space pads it: an unknown field
    would be refused)."""
    head = b'{"rules": "classic", "move_seconds": 60'
    tail = b"}"
    body = head + b" " * (size - len(head) - len(tail)) + tail
    assert len(body) == size
    json.loads(body)
    return body


def test_it_accepts_a_body_of_exactly_the_limit(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    response = ann.post(
        "/tables", content=padded_table_body(settings.API_MAX_BODY_BYTES), headers=JSON
    )

    assert response.status_code == 201, response.text


@pytest.mark.parametrize("with_token", [True, False], ids=["token", "anonymous"])
def test_it_answers_413_to_a_body_over_the_limit(api_server: LiveServer, with_token: bool) -> None:
    client = register(api_server.url, "ann") if with_token else Client(api_server.url)
    path = "/tables" if with_token else "/accounts/register"

    response = client.post(
        path, content=padded_table_body(settings.API_MAX_BODY_BYTES + 1), headers=JSON
    )

    error_of(response, 413, "body_too_large")
    assert Client(api_server.url).ok("GET", "/tables")["count"] == 0


def test_it_answers_413_to_a_chunked_body_over_the_limit(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    body = padded_table_body(settings.API_MAX_BODY_BYTES * 4)

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 4096):
            yield body[start : start + 4096]

    response = ann.post("/tables", content=chunks(), headers=JSON)

    error_of(response, 413, "body_too_large")
    assert Client(api_server.url).ok("GET", "/tables")["count"] == 0


def test_it_answers_413_to_an_action_over_the_limit(match: Match) -> None:
    dealer = match.to_act()
    option = match.view(dealer)["legal_actions"][0]
    padding = "x" * settings.API_MAX_BODY_BYTES

    match.post_illegal(dealer, {**option, "padding": padding}, 413, "body_too_large")


# --- 429 (in process, with a low limit) -----------------------------------------------------


def fresh_rate_limit(key: str) -> None:
    """Start ``key`` from a full bucket: the limit's requests at once (no window to wait
    out: the bucket refills continuously, accounts/ratelimit.py)."""
    ratelimit.reset(key)


def assert_rate_limited(response: Any) -> int:
    error = error_of(response, 429, "rate_limited")
    retry_after = error["retry_after"]
    assert isinstance(retry_after, int) and 1 <= retry_after <= RATE_WINDOW, error
    assert response.headers["Retry-After"] == str(retry_after)
    return retry_after


@pytest.fixture
def limited_token(settings: Any) -> str:
    """A token with a full bucket, under a limit of 3 requests a minute."""
    settings.RATE_LIMIT_PER_MINUTE = 3
    player, key = register_player("limited", password="correct horse battery")
    fresh_rate_limit(f"token:{player.tokens.get().pk}")
    return key


def test_it_answers_429_with_retry_after_beyond_the_rate_limit(limited_token: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {limited_token}")

    for _ in range(3):
        assert client.get("/api/v1/me").status_code == 200

    assert_rate_limited(client.get("/api/v1/me"))
    assert_rate_limited(client.post("/api/v1/tables", {"rules": "classic"}, format="json"))
    assert_rate_limited(client.get("/api/v1/games/999999/events"))
    assert_rate_limited(client.get("/api/v1/stream"))


def test_it_counts_the_waiting_endpoints_against_the_rate_limit(limited_token: str) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {limited_token}")

    # A bad ``after`` is refused before the endpoint waits (nothing to wait for in process).
    for _ in range(3):
        error_of(client.get("/api/v1/games/999999/events?after=-1"), 400, "invalid")

    assert_rate_limited(client.get("/api/v1/games/999999/events"))
    assert_rate_limited(client.get("/api/v1/me"))


def test_it_rate_limits_each_token_on_its_own(limited_token: str) -> None:
    limited = APIClient()
    limited.credentials(HTTP_AUTHORIZATION=f"Token {limited_token}")
    for _ in range(3):
        limited.get("/api/v1/me")
    assert_rate_limited(limited.get("/api/v1/me"))
    other, key = register_player("unlimited", password="correct horse battery")
    fresh_rate_limit(f"token:{other.tokens.get().pk}")
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert fresh.get("/api/v1/me").status_code == 200


def test_it_rate_limits_anonymous_callers_by_address(settings: Any) -> None:
    settings.RATE_LIMIT_PER_MINUTE = 2
    address = "203.0.113.77"
    fresh_rate_limit(f"ip:{address}")
    client = APIClient(REMOTE_ADDR=address)

    for _ in range(2):
        assert client.get("/api/v1/tables").status_code == 200

    assert_rate_limited(client.get("/api/v1/tables"))
    assert_rate_limited(client.get("/api/v1/players/nobody"))
