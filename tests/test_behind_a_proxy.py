"""Two web processes behind nginx, run with the project's own config (platform/nginx.conf):
every watcher, whichever process nginx gave it to, gets each move made through the other
one at once (no buffering on the way), and a long poll through nginx is answered.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.common import ESTABLISHED, tcp_sockets
from tests.api_client import Client
from tests.conftest import LiveServer, serving_api
from tests.game_helpers import choose_action, start_table, three_players
from tests.live_client import LiveReader
from tests.support import ROOT, free_port, stop_process_group, wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed"),
]


def port_of(server: LiveServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


def nginx_config(listen: int, upstreams: list[int]) -> str:
    """platform/nginx.conf with these ports."""
    text = (ROOT / "platform" / "nginx.conf").read_text()
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in upstreams)
    text, count = re.subn(r"(?:        server 127\.0\.0\.1:\d+;\n)+", servers + "\n", text)
    assert count == 1
    text, count = re.subn(r"listen \d+;", f"listen {listen};", text)
    assert count == 1
    return text


def serving_nginx(tmp: Path, upstreams: list[int]) -> Iterator[str]:
    port = free_port()
    (tmp / "logs").mkdir()
    config = tmp / "nginx.conf"
    config.write_text(nginx_config(port, upstreams))
    process = subprocess.Popen(
        [
            "nginx",
            "-p",
            str(tmp),
            "-c",
            str(config),
            "-g",
            f"daemon off; pid {tmp}/nginx.pid; error_log {tmp}/logs/error.log;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"nginx exited: {(tmp / 'logs' / 'error.log').read_text()}")
        try:
            return httpx.get(url + "/healthz", timeout=5).status_code in (200, 503)
        except httpx.TransportError:
            return False

    try:
        wait_until(up, timeout=20, interval=0.1, what="nginx to serve")
        yield url
    finally:
        stop_process_group(process)


def test_it_pushes_every_move_through_nginx_to_watchers_of_both_web_processes(
    django_db_blocker: Any, tmp_path: Path
) -> None:
    with (
        serving_api(django_db_blocker, "proxied-a.log") as first,
        serving_api(django_db_blocker, "proxied-b.log") as second,
    ):
        proxy = serving_nginx(tmp_path, [port_of(first), port_of(second)])
        proxied = next(proxy)
        try:
            players = three_players(second.url, "proxied")
            game_id = start_table(players[0], players[1:], {"preset": "classic", "max_hands": 1})
            watchers = [LiveReader(proxied, game_id) for _ in range(4)]
            for watcher in watchers:
                watcher.wait_for(lambda found: len(found) >= 1)
            last = players[0].ok("GET", f"/games/{game_id}/events")["last_seq"]
            poll = httpx.get(
                f"{proxied}/api/v1/games/{game_id}/events?after={last}&wait=5", timeout=10
            )
            assert poll.status_code == 200 and poll.json()["events"] == []  # waited, answered

            rng = random.Random(11)
            delays = []
            for _ in range(6):
                view = players[0].ok("GET", f"/games/{game_id}")
                seat_client = Client(second.url, token=players[view["to_act"][0]].token)
                seat_view = seat_client.ok("GET", f"/games/{game_id}")
                action = {**choose_action(seat_view, rng), "expected_version": view["version"]}
                moved_at = time.monotonic()
                after = seat_client.ok("POST", f"/games/{game_id}/actions", json=action)
                for watcher in watchers:
                    found = watcher.wait_for(
                        lambda found, v=after["version"]: found[-1].data["version"] >= v,
                        timeout=10,
                    )
                    delays.append(found[-1].at - moved_at)
            assert max(delays) < 2.0, delays  # each message passed on as it came
            # nginx spread the watchers over both web processes.
            assert tcp_sockets(port_of(first), ESTABLISHED)
            assert tcp_sockets(port_of(second), ESTABLISHED)
            for watcher in watchers:
                watcher.stop()
        finally:
            next(proxy, None)
