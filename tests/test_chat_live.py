"""A chat room's live feed in one web process (this one, the ASGI application driven
directly): every watcher of a room is a subscriber of the room's one feed, each change is
read once and the same bytes go to all of them, and a players' room and a spectators' room
are two feeds whose frames never cross. Messages are posted through the suite's live
server (another process): the change reaches this one through Redis in service mode, and
through the process's one look in the embedded default."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from chat import live
from realtime import feeds
from tests.api_client import register
from tests.conftest import LiveServer
from tests.game_helpers import start_table

pytestmark = pytest.mark.django_db(transaction=True)

WATCHERS = 20


def test_a_room_is_read_once_per_change_for_all_its_watchers(
    api_server: LiveServer, monkeypatch: Any
) -> None:
    from config.asgi import application

    players = [register(api_server.url, f"chatfeed{i}") for i in range(3)]
    rail = register(api_server.url, "chatfeedrail")
    game_id = start_table(players[0], players[1:])
    reads: list[bool] = []  # one per read: whether it made a frame (a change)
    lock = threading.Lock()
    read = live.SOURCE.read

    def counted(key: int, state: Any, audiences: Any) -> Any:
        found = read(key, state, audiences)
        with lock:
            reads.append(bool(found.frames))
        return found

    monkeypatch.setattr(live.SOURCE, "read", counted)

    async def scenario() -> tuple[dict[str, list[bytes]], list[int], int]:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        bodies: dict[str, list[bytes]] = {}

        def watch(name: str, token: str, channel: str) -> Any:
            path = f"/api/v1/games/{game_id}/chat/live"
            scope = {
                "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                "query_string": f"channel={channel}".encode(),
                "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Token {token}".encode())],
                "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80),
            }  # fmt: skip
            bodies[name] = []
            asked: list[bool] = []

            async def receive() -> dict[str, Any]:
                if not asked:
                    asked.append(True)
                    return {"type": "http.request", "body": b"", "more_body": False}
                await done.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                if message.get("body"):
                    bodies[name].append(message["body"])

            return loop.create_task(application(scope, receive, send))

        tasks = [
            watch(f"player{i}", players[i % 3].token or "", "players") for i in range(WATCHERS)
        ]
        tasks += [watch(f"rail{i}", rail.token or "", "spectators") for i in range(WATCHERS)]
        while any(not frames for frames in bodies.values()):
            await asyncio.sleep(0.02)
        kinds = sorted(f.source.kind for f in feeds.registry().feeds.values())
        followers = [len(f.subscribers) for f in feeds.registry().feeds.values()]
        assert kinds == ["chat", "chat"], kinds  # two rooms: two feeds, whoever watches
        for number in range(3):
            said = f"players only {number}"
            await asyncio.to_thread(
                players[number].ok,
                "POST",
                f"/games/{game_id}/chat?channel=players",
                201,
                json={"text": said},
            )
            await asyncio.to_thread(
                rail.ok,
                "POST",
                f"/games/{game_id}/chat?channel=spectators",
                201,
                json={"text": f"rail only {number}"},
            )
            while not all(
                said.encode() in b"".join(bodies[f"player{i}"])
                and f"rail only {number}".encode() in b"".join(bodies[f"rail{i}"])
                for i in range(WATCHERS)
            ):
                await asyncio.sleep(0.02)
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return bodies, followers, len(feeds.registry().feeds)

    bodies, followers, _ = asyncio.run(scenario())

    assert sorted(followers) == [WATCHERS, WATCHERS]
    # Six changes (three a room): six reads that made a frame, and no more.
    assert sum(reads) == 6, reads
    for name, frames in bodies.items():
        sent = b"".join(frames)
        if name.startswith("player"):
            assert b"rail only" not in sent
            assert sent.count(b"players only") == 3
        else:
            assert b"players only" not in sent
            assert sent.count(b"rail only") == 3
    # Every watcher of a room was sent the very same bytes.
    assert len({b"".join(bodies[f"player{i}"]) for i in range(WATCHERS)}) == 1
    assert len({b"".join(bodies[f"rail{i}"]) for i in range(WATCHERS)}) == 1
