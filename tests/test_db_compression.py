"""On PostgreSQL a game's state and the stream messages, large and written at every move, are
compressed with lz4 rather than pglz (games migration 0003; cheaper to write)."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from games.models import Game
from tests.rating_helpers import new_players, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only: SQLite does not compress values")


def test_it_sets_lz4_on_the_game_state_and_message_payload_columns() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attcompression FROM pg_attribute"
            " WHERE attname IN ('state', 'payload')"
            " AND attrelid::regclass::text IN ('games_game', 'games_playermessage')"
        )
        rows = sorted(cursor.fetchall())
    assert rows == [("games_game", "state", "l"), ("games_playermessage", "payload", "l")]


def test_it_stores_a_large_game_state_compressed_with_lz4() -> None:
    game_id = start_game(list(new_players("lz", 3)))
    state = json.loads(Game.objects.get(pk=game_id).state)
    state["padding"] = [f"hand {n}: a long history" for n in range(400)]  # ~10 KB, as late
    text = json.dumps(state)
    Game.objects.filter(pk=game_id).update(state=text)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(state) FROM games_game WHERE id = %s", [game_id]
        )
        assert cursor.fetchone() == ("lz4",)
    assert Game.objects.get(pk=game_id).state == text  # reads back as it was written
