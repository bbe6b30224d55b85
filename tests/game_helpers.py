"""Setting up games through the API for tests."""

from __future__ import annotations

import random
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
