"""Stream messages that commit out of id order are still delivered, each exactly once.

Message ids come from one sequence, but transactions commit in their own order: on
PostgreSQL a bot account's moves in two games can make the lower id visible after the higher
one. (SQLite serialises writers, so ids there are visible in order.)
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any

import httpx
import psycopg
import pytest
from django.db import connection

from games import realtime, selectors
from games.models import Player, PlayerMessage
from tests.api_client import register
from tests.conftest import LiveServer


def test_it_moves_the_cursor_only_past_ids_delivered_long_enough_ago() -> None:
    cursor = selectors.StreamCursor(settled=10)
    cursor.delivered(14, now=100.0)
    cursor.delivered(12, now=105.0)

    cursor.settle(now=100.0 + selectors.STREAM_SETTLE_SECONDS - 1)
    assert (cursor.settled, set(cursor.recent)) == (10, {12, 14})

    # 14 has settled: every transaction that took a lower id has ended; 12 goes with it.
    cursor.settle(now=100.0 + selectors.STREAM_SETTLE_SECONDS)
    assert (cursor.settled, cursor.recent) == (14, {})


@pytest.mark.django_db
def test_it_leaves_out_the_lines_already_delivered_above_the_cursor() -> None:
    player = Player.objects.create(username="skipper")
    ids = [
        PlayerMessage.objects.create(player=player, type="game_start", payload={"game": g}).id
        for g in range(4)
    ]

    lines = selectors.stream_lines_after(player, ids[0], delivered=[ids[2]])

    assert [message_id for message_id, _ in lines] == [ids[1], ids[3]]


def read_stream(url: str, token: str, lines: list[dict[str, Any]], stop: threading.Event) -> None:
    # (The server closes the stream when the suite stops it.)
    with (
        contextlib.suppress(httpx.TransportError),
        httpx.stream(
            "GET", url + "/api/v1/stream", headers={"Authorization": f"Token {token}"}, timeout=30
        ) as response,
    ):
        for line in response.iter_lines():
            if line.strip():
                lines.append(json.loads(line))
            if stop.is_set():
                return


def wait_for_games(lines: list[dict[str, Any]], count: int) -> list[int]:
    deadline = time.monotonic() + 10
    while len(lines) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return [line["game"] for line in lines]


def message_for(player: Player, game: int) -> None:
    PlayerMessage.objects.create(player=player, type="game_start", payload={"game": game})
    realtime.publish([realtime.player_channel(player.pk)])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite makes ids visible in commit order"
)
def test_it_streams_a_message_whose_transaction_commits_after_a_later_one(
    api_server: LiveServer,
) -> None:
    client = register(api_server.url, "latecomer")
    player = Player.objects.get(username="latecomer")
    lines: list[dict[str, Any]] = []
    stop = threading.Event()
    threading.Thread(
        target=read_stream, args=(api_server.url, client.token, lines, stop), daemon=True
    ).start()
    time.sleep(0.5)  # connected: its cursor is at the player's last message (none)
    message_for(player, 1)
    assert wait_for_games(lines, 1) == [1]

    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
        dbname=settings["NAME"], password=settings["PASSWORD"] or None,
    ) as other:  # fmt: skip
        # This transaction takes the lower id and commits last.
        other.execute(
            f"INSERT INTO {PlayerMessage._meta.db_table} (player_id, type, payload, created_at)"
            " VALUES (%s, 'game_start', '{\"game\": 2}', now())",
            [player.pk],
        )
        message_for(player, 3)
        assert wait_for_games(lines, 2) == [1, 3]
        other.commit()
    realtime.publish([realtime.player_channel(player.pk)])

    assert wait_for_games(lines, 3) == [1, 3, 2]
    message_for(player, 4)
    assert wait_for_games(lines, 4) == [1, 3, 2, 4]  # and nothing twice
    stop.set()
