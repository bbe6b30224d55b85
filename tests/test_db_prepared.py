"""On PostgreSQL a statement the server runs again and again is prepared once per connection
(parsed and planned once): psycopg's prepared statements, with parameters bound on the
server (config/settings/base.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Game
from games.play import _read_game
from tests.rating_helpers import new_players, start_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_it_prepares_the_game_lookup_a_move_repeats() -> None:
    game_id = start_game(list(new_players("prep", 3)))

    for _ in range(6):
        assert _read_game(game_id).pk == game_id

    table = Game._meta.db_table
    prepared = [
        s
        for s in prepared_statements()
        if f'FROM "{table}" WHERE "{table}"."id" = $1' in s and "LIMIT 1" in s
    ]
    assert len(prepared) == 1, prepared_statements()
