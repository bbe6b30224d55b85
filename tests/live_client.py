"""A Server-Sent Events reader for the tests of the live streams (``/games/{id}/live``,
``/tournaments/{id}/live``, the home page's ``/games/live``, the challenges page's
``/challenges/live``)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Message:
    id: int | None
    event: str
    data: dict[str, Any]
    at: float


def parse_messages(text: str, at: float) -> tuple[list[Message], int]:
    """The whole messages in ``text`` and how many comments; the caller keeps the rest."""
    messages, comments = [], 0
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line.startswith(":"):
                comments += 1
            elif line:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
        if "data" in fields:
            event_id = int(fields["id"]) if fields.get("id", "").isdigit() else None
            messages.append(
                Message(event_id, fields.get("event", "message"), json.loads(fields["data"]), at)
            )
    return messages, comments


@dataclass
class LiveReader:
    """Reads a game's live stream (or the one at ``path``) in a thread: each message with
    the time it came."""

    base_url: str
    game_id: int
    token: str | None = None
    last_event_id: int | None = None
    query: str = ""
    path: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    comments: int = 0
    status: int | None = None
    ended_at: float | None = None
    error: BaseException | None = None

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        headers = {"Accept": "text/event-stream", **self.headers}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = str(self.last_event_id)
        path = self.path or f"/api/v1/games/{self.game_id}/live"
        url = f"{self.base_url}{path}{self.query}"
        try:
            with httpx.stream("GET", url, headers=headers, timeout=60) as response:
                self.status = response.status_code
                buffer = ""
                for chunk in response.iter_text():
                    buffer += chunk
                    whole, _, buffer = buffer.rpartition("\n\n")
                    if whole:
                        found, comments = parse_messages(whole, time.monotonic())
                        self.messages.extend(found)
                        self.comments += comments
                    if self._stop.is_set():
                        return
        except httpx.HTTPError as error:
            self.error = error
        finally:
            self.ended_at = time.monotonic()

    def stop(self) -> None:
        """Stop reading at the next chunk (the thread is a daemon: it may stay blocked)."""
        self._stop.set()

    def wait_for(self, predicate: Any, timeout: float = 15.0) -> list[Message]:
        """The messages so far, once ``predicate`` holds for them (never asked of none)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = list(self.messages)
            if found and predicate(found):
                return found
            if self.ended_at is not None and len(found) == len(self.messages):
                break
            time.sleep(0.02)
        raise AssertionError(f"live stream: condition not met; got {self.summary()}")

    def wait_for_seq(self, last_seq: int, timeout: float = 15.0) -> list[Message]:
        return self.wait_for(
            lambda found: any(m.data["last_seq"] >= last_seq for m in found), timeout
        )

    def wait_for_end(self, timeout: float) -> float | None:
        self.thread.join(timeout)
        return self.ended_at

    def events(self) -> list[dict[str, Any]]:
        return [event for message in list(self.messages) for event in message.data["events"]]

    def summary(self) -> str:
        return (
            f"status {self.status}, {len(self.messages)} messages "
            f"(ids {[m.id for m in self.messages][-5:]}), "
            f"ended {self.ended_at is not None}, error {self.error!r}"
        )


def tournament_reader(base_url: str, tournament_id: int, **kwargs: Any) -> LiveReader:
    """A reader of the tournament's live stream."""
    return LiveReader(
        base_url, tournament_id, path=f"/api/v1/tournaments/{tournament_id}/live", **kwargs
    )
