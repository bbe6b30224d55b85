"""Writing a change of several tables in one database round trip.

A move inserts its events and its stream messages and updates the game row. Issued as
three statements, that is three round trips, each waiting on a busy machine for the
database to be scheduled; on PostgreSQL the inserts ride along with the update as
data-modifying ``WITH`` clauses of one statement (each runs exactly once, to completion,
read or not). Other databases (the embedded SQLite) get the plain ORM calls.

New rows are given their primary keys (on PostgreSQL the statement returns them; on SQLite
``bulk_create`` sets them), so that stream lines can name their message. No
``pre_save``/``post_save`` signals are sent (the games app has no receivers of those).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model


def write_change(row: Model, fields: Sequence[str], new_rows: Sequence[Model]) -> None:
    """Insert ``new_rows`` (in order, grouped by model) and save ``fields`` of ``row``."""
    # The connection itself, not the ``django.db.connection`` proxy: each field's value is
    # prepared with it, and every attribute read through the proxy costs a thread-local
    # lookup (about 30 of them a move).
    connection = connections[DEFAULT_DB_ALIAS]
    groups: dict[type[Model], list[Model]] = {}
    for new in new_rows:
        groups.setdefault(type(new), []).append(new)
    if connection.vendor != "postgresql":
        for model, rows in groups.items():
            model._default_manager.bulk_create(rows)
        row.save(update_fields=fields)
        return
    quote = connection.ops.quote_name
    clauses, new_ids, params = [], [], []
    for number, (model, rows) in enumerate(groups.items()):
        insert, values = _insert(connection, model, rows)
        name, pk = quote(f"new_{number}"), quote(model._meta.pk.column)
        clauses.append(f"{name} AS ({insert} RETURNING {pk})")
        # Ids come from the sequence in the order of the VALUES rows (in practice; Django's
        # bulk_create on PostgreSQL relies on the same).
        new_ids.append(f"(SELECT array_agg({pk} ORDER BY {pk}) FROM {name})")
        params.extend(values)
    update, values = _update(connection, row, fields)
    params.extend(values)
    sql = (f"WITH {', '.join(clauses)} " if clauses else "") + update
    if new_ids:
        sql += f" RETURNING {', '.join(new_ids)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError(f"{row!r} was not updated (rowcount {cursor.rowcount})")
        returned = cursor.fetchone() if new_ids else ()
    for rows, ids in zip(groups.values(), returned, strict=True):
        for new, new_id in zip(rows, ids, strict=True):
            new.pk = new_id


def _insert(
    connection: BaseDatabaseWrapper, model: type[Model], rows: list[Model]
) -> tuple[str, list[Any]]:
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    one_row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    params = [
        f.get_db_prep_save(f.pre_save(new, add=True), connection) for new in rows for f in fields
    ]
    values = ", ".join([one_row] * len(rows))
    return f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {values}", params


def _update(
    connection: BaseDatabaseWrapper, row: Model, names: Sequence[str]
) -> tuple[str, list[Any]]:
    meta = row._meta
    fields = [meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    params = [f.get_db_prep_save(f.pre_save(row, add=False), connection) for f in fields]
    params.append(row.pk)
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    return f"UPDATE {table} SET {assignments} WHERE {pk} = %s", params
