"""The lobby's and a table's reads (games/selectors.py): a fixed number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import create_bot_player, register_player
from games import selectors, tables
from games.models import Game, Table

pytestmark = pytest.mark.django_db


def shown_tables() -> tuple[list[dict[str, object]], int]:
    with CaptureQueriesContext(connection) as queries:
        shown = [selectors.table_data(t) for t in selectors.tables(None)]
    return shown, len(queries)


def test_it_reads_the_lobby_in_the_same_queries_however_many_tables() -> None:
    ann, _ = register_player("ann", password="a long pass phrase")
    bob, _ = register_player("bob", password="a long pass phrase")
    cy, _ = register_player("cy", password="a long pass phrase")
    tables.create_table(ann, rules="classic", rated=True, move_seconds=60, seat=0)
    _, queries_for_one = shown_tables()

    for _ in range(3):
        tables.create_table(ann, rules="classic", rated=True, move_seconds=60, seat=0)
    started = tables.create_table(bob, rules="classic", rated=True, move_seconds=60, seat=0)
    tables.join_table(ann, table_id=started.pk, seat=None)
    tables.join_table(cy, table_id=started.pk, seat=None)
    shown, queries_for_five = shown_tables()

    assert queries_for_five == queries_for_one == 2
    assert len(shown) == 5
    newest = shown[0]
    assert newest["id"] == started.pk
    assert newest["game"] == Game.objects.get(table=started).pk
    assert newest["created_by"] == "bob"
    assert [s["username"] for s in newest["seats"]] == ["bob", "ann", "cy"]  # type: ignore[index]
    assert all(t["game"] is None for t in shown[1:])
    assert [s["username"] for s in shown[1]["seats"]] == ["ann", None, None]  # type: ignore[index]


def test_it_reads_one_table_in_two_queries() -> None:
    ann, _ = register_player("ann", password="a long pass phrase")
    table = tables.create_table(ann, rules="classic", rated=False, move_seconds=30, seat=2)

    with CaptureQueriesContext(connection) as queries:
        shown = selectors.table_data(selectors.table(table.pk))

    assert len(queries) == 2
    assert shown["rated"] is False and shown["move_seconds"] == 30 and shown["game"] is None
    assert [s["username"] for s in shown["seats"]] == [None, None, "ann"]  # type: ignore[index]


def shown_without_queries(table: Table) -> dict[str, object]:
    with CaptureQueriesContext(connection) as queries:
        shown = selectors.table_data(table)
    assert len(queries) == 0
    return shown


def test_it_shows_the_table_a_seating_service_returns_as_a_read_of_it_would() -> None:
    ann, _ = register_player("ann", password="a long pass phrase")
    bob, _ = register_player("bob", password="a long pass phrase")
    owner, _ = register_player("owner", password="a long pass phrase")
    create_bot_player(owner, username="owned-bot")

    created = tables.create_table(owner, rules="classic", rated=False, move_seconds=30, seat=None)
    assert shown_without_queries(created) == selectors.table_data(selectors.table(created.pk))
    steps = [
        tables.join_table(ann, table_id=created.pk, seat=2),
        tables.seat_bot(owner, table_id=created.pk, bot="owned-bot", seat=None),
        tables.join_table(bob, table_id=created.pk, seat=None),  # the last seat: the game starts
    ]
    shown = [shown_without_queries(table) for table in steps]

    assert shown[-1] == selectors.table_data(selectors.table(created.pk))
    assert [s["username"] for s in shown[0]["seats"]] == [None, None, "ann"]  # type: ignore[index]
    assert [s["username"] for s in shown[1]["seats"]] == ["owned-bot", None, "ann"]  # type: ignore[index]
    assert shown[1]["seats"][0]["is_bot"] is True  # type: ignore[index]
    assert shown[1]["game"] is None and shown[1]["status"] == "open"
    assert shown[2]["game"] == Game.objects.get(table=created).pk
    assert shown[2]["status"] == "playing" and shown[2]["created_by"] == "owner"
