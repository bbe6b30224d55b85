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

from accounts.models import Player
from realtime import hub, stream
from realtime.models import PlayerMessage
from tests.api_client import Client, register
from tests.conftest import LiveServer, database_url_of_current_connection


def test_it_moves_the_cursor_only_past_ids_delivered_long_enough_before_a_look() -> None:
    settle = stream.STREAM_SETTLE_SECONDS
    cursor = stream.StreamCursor(settled=10)
    cursor.delivered(14, now=100.0)
    cursor.delivered(12, now=105.0)
    cursor.delivered(16, now=105.0)

    cursor.settle(looked=100.0 + settle - 1)
    assert (cursor.settled, set(cursor.recent)) == (10, {12, 14, 16})

    # 14 has settled: every transaction that took a lower id had ended before the look.
    # 12 goes with it (delivered already); 16 is too young.
    cursor.settle(looked=100.0 + settle)
    assert (cursor.settled, set(cursor.recent)) == (14, {16})


def test_it_remembers_a_bounded_number_of_ids_above_the_cursor() -> None:
    cursor = stream.StreamCursor(settled=0)
    newest = 10 + stream.STREAM_RECENT_MAX
    for message_id in range(1, newest + 1):
        cursor.delivered(message_id, now=100.0)

    cursor.settle(looked=101.0)

    assert cursor.settled == newest - stream.STREAM_RECENT_MAX
    assert sorted(cursor.recent) == list(range(cursor.settled + 1, newest + 1))


@pytest.mark.django_db
def test_it_leaves_out_the_lines_already_delivered_above_the_cursor() -> None:
    player = Player.objects.create(username="skipper")
    ids = [
        PlayerMessage.objects.create(player=player, type="game_start", payload={"game": g}).id
        for g in range(4)
    ]

    lines = stream.stream_lines_after(player, ids[0], exclude_ids=[ids[2]])

    assert [message_id for message_id, _, _ in lines] == [ids[1], ids[3]]
    assert stream.stream_lines_after(player, ids[0], exclude_ids=ids[1:]) == []


def read_stream(client: Client, lines: list[dict[str, Any]], ready: threading.Event) -> None:
    # (The server closes the stream when the suite stops it.)
    with contextlib.suppress(httpx.TransportError):
        for line in client.stream_lines():
            if line.strip():
                lines.append(json.loads(line))
            else:
                ready.set()  # a keep-alive: the stream is in its loop


def wait_for_games(lines: list[dict[str, Any]], count: int) -> list[int]:
    deadline = time.monotonic() + 10
    while len(lines) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return [line["game"] for line in lines]


def message_for(player: Player, game: int) -> None:
    PlayerMessage.objects.create(player=player, type="game_start", payload={"game": game})
    hub.publish([hub.player_channel(player.pk)])


def open_transaction() -> psycopg.Connection[Any]:
    """A second connection to the test database, for a transaction left open."""
    return psycopg.connect(database_url_of_current_connection())


def insert_message(other: psycopg.Connection[Any], player: Player, game: int) -> None:
    other.execute(
        f"INSERT INTO {PlayerMessage._meta.db_table} (player_id, type, payload, created_at)"
        " VALUES (%s, 'game_start', %s, now())",
        [player.pk, json.dumps({"game": game})],
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite makes ids visible in commit order"
)
def test_it_streams_messages_whose_transactions_commit_after_a_later_one(
    api_server: LiveServer,
) -> None:
    client = register(api_server.url, "latecomer")
    player = Player.objects.get(username="latecomer")
    lines: list[dict[str, Any]] = []
    ready = threading.Event()

    # Before the stream connects: game 1's message takes the lower id and commits last,
    # game 2's is committed when it connects (it is history then, not sent).
    with open_transaction() as other:
        insert_message(other, player, 1)
        message_for(player, 2)
        threading.Thread(target=read_stream, args=(client, lines, ready), daemon=True).start()
        assert ready.wait(10)
        other.commit()
    hub.publish([hub.player_channel(player.pk)])
    assert wait_for_games(lines, 1) == [1]

    # While it streams: game 3's message takes the lower id, game 4's is sent first.
    with open_transaction() as other:
        insert_message(other, player, 3)
        message_for(player, 4)
        assert wait_for_games(lines, 2) == [1, 4]
        other.commit()
    hub.publish([hub.player_channel(player.pk)])
    assert wait_for_games(lines, 3) == [1, 4, 3]

    message_for(player, 5)
    assert wait_for_games(lines, 4) == [1, 4, 3, 5]  # and nothing twice
