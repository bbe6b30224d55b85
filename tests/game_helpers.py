"""Setting up games through the API for tests."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.api_client import Client, register


def choose_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A uniformly chosen legal action, built from the view's legal_actions only."""
    option = rng.choice(view["legal_actions"])
    if option["type"] in ("discard", "give"):
        cards = rng.sample(view["your_hand"], option["count"])
        action = {"type": option["type"], "cards": cards}
        if option["type"] == "give":
            action["to"] = option["to"]
        return action
    return dict(option)


def start_table(creator: Client, others: list[Client], rules: Any = "classic") -> int:
    """A table with ``creator`` at seat 0 and ``others`` after; returns the started game."""
    table = creator.ok("POST", "/tables", 201, json={"rules": rules, "move_seconds": 600})
    for client in others:
        table = client.ok("POST", f"/tables/{table['id']}/join", json={})
    assert table["status"] == "playing"
    return int(table["game"])


def three_players(base_url: str, prefix: str) -> list[Client]:
    return [register(base_url, f"{prefix}{i}") for i in range(3)]


def seat_to_act(players: list[Client], game_id: int) -> tuple[Client, dict[str, Any]]:
    """The client whose turn it is, and its view."""
    view = players[0].ok("GET", f"/games/{game_id}")
    (seat,) = view["to_act"]
    return players[seat], players[seat].ok("GET", f"/games/{game_id}")


def play_to_the_end(players: list[Client], game_id: int, rng: random.Random) -> dict[str, Any]:
    """Play the seats of ``players`` (random legal actions) until the game ends, while the
    house bots play theirs; returns the final view."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        acted = False
        for player in players:
            view = player.ok("GET", f"/games/{game_id}")
            if view["status"] == "finished":
                return dict(view)
            if view.get("legal_actions"):
                action = {**choose_action(view, rng), "expected_version": view["version"]}
                response = player.post(f"/games/{game_id}/actions", json=action)
                assert response.status_code in (200, 409), response.text  # a bot moved first
                acted = True
        if not acted:
            time.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end in 120 s")
