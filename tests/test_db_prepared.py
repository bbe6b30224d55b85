"""On PostgreSQL a statement the server runs again and again is prepared once per connection
(parsed and planned once): psycopg's prepared statements, with parameters bound on the
server (config/settings/base.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from core.rows import load_one
from games.models import Game
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
    lookup = f"FROM {Game._meta.db_table} WHERE id = %s"

    for _ in range(6):
        assert load_one(Game, lookup, [game_id]) is not None

    prepared = [
        s for s in prepared_statements() if f"FROM {Game._meta.db_table} WHERE id = $1" in s
    ]
    assert len(prepared) == 1, prepared_statements()
