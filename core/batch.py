"""Writing a change of several tables in one database round trip, if no other change got in.

A move inserts its events and its stream messages and updates the game row. Issued as
three statements, that is three round trips, each waiting on a busy machine for the
database to be scheduled; on PostgreSQL the inserts ride along with the update as
data-modifying ``WITH`` clauses of one statement (each runs exactly once, to completion,
read or not). Other databases (the embedded SQLite) get the plain ORM calls, in one
transaction.

The update is conditional (``expected``: columns that must still hold these values, such as
the game's ``version``), and the inserts happen only if it does: the statement is then the
whole change, and needs no transaction around it (see ``games.changes``).

New rows are given their primary keys (on PostgreSQL the statement returns them; on SQLite
``bulk_create`` sets them), so that stream lines can name their message. No
``pre_save``/``post_save`` signals are sent (the games app has no receivers of those).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model


def write_change(
    row: Model,
    fields: Sequence[str],
    new_rows: Sequence[Model],
    expected: Mapping[str, Any] | None = None,
) -> bool:
    """Insert ``new_rows`` (in order, grouped by model) and save ``fields`` of ``row``, if
    ``row``'s stored columns still hold the values of ``expected`` (by field name). Returns
    whether it did; if not, nothing was written."""
    # The connection itself, not the ``django.db.connection`` proxy: each field's value is
    # prepared with it, and every attribute read through the proxy costs a thread-local
    # lookup (about 30 of them a move).
    connection = connections[DEFAULT_DB_ALIAS]
    expected = expected or {}
    groups: dict[type[Model], list[Model]] = {}
    for new in new_rows:
        groups.setdefault(type(new), []).append(new)
    if connection.vendor != "postgresql":
        return _write_with_orm(row, fields, groups, expected)
    quote = connection.ops.quote_name
    update, params = _update(connection, row, fields, expected)
    clauses, new_ids = [f"changed AS ({update} RETURNING 1)"], []
    for number, (model, rows) in enumerate(groups.items()):
        insert, values = _insert(connection, model, rows)
        name, pk = quote(f"new_{number}"), quote(model._meta.pk.column)
        clauses.append(f"{name} AS ({insert} RETURNING {pk})")
        # Ids come from the sequence in the order of the VALUES rows (in practice; Django's
        # bulk_create on PostgreSQL relies on the same).
        new_ids.append(f"(SELECT array_agg({pk} ORDER BY {pk}) FROM {name})")
        params.extend(values)
    selected = ", ".join(["EXISTS (SELECT FROM changed)", *new_ids])
    sql = f"WITH {', '.join(clauses)} SELECT {selected}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        written, *returned = cursor.fetchone()
    if written:
        for rows, ids in zip(groups.values(), returned, strict=True):
            for new, new_id in zip(rows, ids, strict=True):
                new.pk = new_id
    return bool(written)


def _write_with_orm(
    row: Model,
    fields: Sequence[str],
    groups: dict[type[Model], list[Model]],
    expected: Mapping[str, Any],
) -> bool:
    meta = row._meta
    values = {
        field.attname: field.pre_save(row, add=False)
        for field in (meta.get_field(name) for name in fields)
    }
    with transaction.atomic():
        stored = type(row)._default_manager.filter(pk=row.pk, **expected)
        if not stored.update(**values):
            return False
        for model, rows in groups.items():
            model._default_manager.bulk_create(rows)
    return True


def _insert(
    connection: BaseDatabaseWrapper, model: type[Model], rows: list[Model]
) -> tuple[str, list[Any]]:
    """``INSERT ... SELECT`` of the rows, which inserts nothing unless ``changed`` (the
    update) has a row."""
    head, one_row, fields = _insert_shape(model, connection.vendor)  # type: ignore[arg-type]  # a model class is hashable
    params = [
        f.get_db_prep_save(f.pre_save(new, add=True), connection) for new in rows for f in fields
    ]
    values = ", ".join([one_row] * len(rows))
    gated = "WHERE EXISTS (SELECT FROM changed)"
    return f"{head} SELECT * FROM (VALUES {values}) AS new {gated}", params


@cache
def _insert_shape(model: type[Model], vendor: str) -> tuple[str, str, list[Field[Any, Any]]]:
    """(``INSERT INTO table (columns)``, one row's placeholders, the fields) of ``model``.
    Each value is cast to its column's type: a ``VALUES`` list in a ``SELECT`` takes its
    column types from its values, and a NULL would be text. (Worked out once: a foreign
    key's type, for one, is found by making a field.)"""
    meta = model._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    one_row = "(" + ", ".join(f"CAST(%s AS {f.db_type(connection)})" for f in fields) + ")"
    return f"INSERT INTO {quote(meta.db_table)} ({columns})", one_row, fields


def _update(
    connection: BaseDatabaseWrapper,
    row: Model,
    names: Sequence[str],
    expected: Mapping[str, Any],
) -> tuple[str, list[Any]]:
    meta = row._meta
    fields = [meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    params = [f.get_db_prep_save(f.pre_save(row, add=False), connection) for f in fields]
    conditions = [f"{quote(meta.pk.column)} = %s"]
    params.append(row.pk)
    for name, value in expected.items():
        field = meta.get_field(name)
        conditions.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection))
    table = quote(meta.db_table)
    return f"UPDATE {table} SET {assignments} WHERE {' AND '.join(conditions)}", params
