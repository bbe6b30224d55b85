"""Two web processes behind nginx, run with the project's own config (platform/nginx.conf):
every watcher, whichever process nginx gave it to, gets each move made through the other
one at once (no buffering on the way), and a long poll through nginx is answered.
"""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks.common import ESTABLISHED, tcp_sockets
from tests.api_client import Client
from tests.conftest import serving_api
from tests.game_helpers import choose_action, start_table, three_players
from tests.live_client import LiveReader
from tests.nginx import port_of, serving_nginx

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed"),
]


def test_it_pushes_every_move_through_nginx_to_watchers_of_both_web_processes(
    django_db_blocker: Any, tmp_path: Path
) -> None:
    with (
        serving_api(django_db_blocker, "proxied-a.log", behind_proxy=True) as first,
        serving_api(django_db_blocker, "proxied-b.log", behind_proxy=True) as second,
        serving_nginx(tmp_path, [port_of(first.url), port_of(second.url)]) as proxied,
    ):
        players = three_players(second.url, "proxied")
        game_id = start_table(players[0], players[1:], {"preset": "classic", "max_hands": 1})
        watchers = [LiveReader(proxied, game_id) for _ in range(4)]
        for watcher in watchers:
            watcher.wait_for(lambda found: len(found) >= 1)
        last = players[0].ok("GET", f"/games/{game_id}/events")["last_seq"]
        poll = httpx.get(f"{proxied}/api/v1/games/{game_id}/events?after={last}&wait=5", timeout=10)
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
        assert tcp_sockets(port_of(first.url), ESTABLISHED)
        assert tcp_sockets(port_of(second.url), ESTABLISHED)
        for watcher in watchers:
            watcher.stop()
