"""Bot clients for the arena's tests: each reads its stream in a thread and answers its
turns with a legal action (or, told to, answers nothing)."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import httpx

from tests.api_client import Client
from tests.game_helpers import choose_action


class StreamBot(threading.Thread):
    """A bot account's client: reads ``GET /stream``, plays each ``your_turn`` it gets (unless
    ``silent``), and keeps every line it read in ``lines``."""

    def __init__(self, client: Client, *, silent: bool = False, seed: int = 0) -> None:
        super().__init__(daemon=True, name=f"bot-{client.username}")
        self.client = client
        self.silent = silent
        self.rng = random.Random(seed)
        self.lines: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self.connected = threading.Event()
        self.http = httpx.Client(base_url=client.base_url, timeout=httpx.Timeout(30, read=8))

    def run(self) -> None:
        headers = {"Authorization": f"Token {self.client.token}"}
        while not self.stopping.is_set():
            try:
                with self.http.stream("GET", "/api/v1/stream", headers=headers) as response:
                    self.connected.set()
                    for raw in response.iter_lines():
                        if self.stopping.is_set():
                            return
                        if raw:
                            self.read(json.loads(raw), headers)
            except httpx.HTTPError:
                continue  # a quiet stream timed out, or the server dropped it: connect again

    def read(self, line: dict[str, Any], headers: dict[str, str]) -> None:
        self.lines.append(line)
        if line["type"] != "your_turn" or self.silent or not line["view"]["legal_actions"]:
            return
        action = {**choose_action(line["view"], self.rng), "expected_version": line["version"]}
        # A 409 (the turn was played meanwhile, a line that came twice) is no matter.
        self.http.post(f"/api/v1/games/{line['game']}/actions", json=action, headers=headers)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in list(self.lines) if line["type"] == kind]

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=15)
        self.http.close()
