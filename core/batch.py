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
from functools import cache, lru_cache
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
    model = type(row)
    shape = tuple((new_model, len(rows)) for new_model, rows in groups.items())
    sql = _statement(model, tuple(fields), tuple(expected), shape)  # type: ignore[arg-type]  # a model class is hashable
    params = _update_params(connection, row, fields, expected)
    for new_model, rows in groups.items():
        params.extend(_insert_params(connection, new_model, rows))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        written, *returned = cursor.fetchone()
    if written:
        for rows, ids in zip(groups.values(), returned, strict=True):
            for new, new_id in zip(rows, ids, strict=True):
                new.pk = new_id
    return bool(written)


@lru_cache(maxsize=256)  # shapes are few; bounded all the same
def _statement(
    model: type[Model],
    fields: tuple[str, ...],
    expected: tuple[str, ...],
    groups: tuple[tuple[type[Model], int], ...],
) -> str:
    """The one statement that updates ``fields`` of a ``model`` row where ``expected`` still
    hold and inserts ``groups`` (each model's count of new rows) if it did. Worked out once
    per shape (a move's shapes are few: its count of events and of stream lines), as its
    text is the same every time, and building it was a large part of the write's CPU."""
    quote = connection.ops.quote_name
    clauses, new_ids = [f"changed AS ({_update(model, fields, expected)} RETURNING 1)"], []
    for number, (new_model, count) in enumerate(groups):
        name, pk = quote(f"new_{number}"), quote(new_model._meta.pk.column)
        clauses.append(f"{name} AS ({_insert(new_model, count)} RETURNING {pk})")
        # Ids come from the sequence in the order of the VALUES rows (in practice; Django's
        # bulk_create on PostgreSQL relies on the same).
        new_ids.append(f"(SELECT array_agg({pk} ORDER BY {pk}) FROM {name})")
    selected = ", ".join(["EXISTS (SELECT FROM changed)", *new_ids])
    return f"WITH {', '.join(clauses)} SELECT {selected}"


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


def _insert(model: type[Model], count: int) -> str:
    """``INSERT ... SELECT`` of ``count`` rows, which inserts nothing unless ``changed`` (the
    update) has a row."""
    head, one_row, _ = _insert_shape(model, connection.vendor)  # type: ignore[arg-type]  # a model class is hashable
    values = ", ".join([one_row] * count)
    return f"{head} SELECT * FROM (VALUES {values}) AS new WHERE EXISTS (SELECT FROM changed)"


def _insert_params(
    connection: BaseDatabaseWrapper, model: type[Model], rows: list[Model]
) -> list[Any]:
    _, _, fields = _insert_shape(model, connection.vendor)  # type: ignore[arg-type]  # a model class is hashable
    return [
        f.get_db_prep_save(f.pre_save(new, add=True), connection) for new in rows for f in fields
    ]


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


def _update(model: type[Model], names: Sequence[str], expected: Sequence[str]) -> str:
    """``UPDATE`` of the ``names`` fields of the row with a given primary key where the
    ``expected`` fields still hold given values (parameters: :func:`_update_params`)."""
    meta = model._meta
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    conditions = [f"{quote(meta.pk.column)} = %s"]
    conditions.extend(f"{quote(meta.get_field(name).column)} = %s" for name in expected)
    table = quote(meta.db_table)
    return f"UPDATE {table} SET {assignments} WHERE {' AND '.join(conditions)}"


def _update_params(
    connection: BaseDatabaseWrapper,
    row: Model,
    names: Sequence[str],
    expected: Mapping[str, Any],
) -> list[Any]:
    meta = row._meta
    params = [
        f.get_db_prep_save(f.pre_save(row, add=False), connection)
        for f in (meta.get_field(name) for name in names)
    ]
    params.append(row.pk)
    for name, value in expected.items():
        params.append(meta.get_field(name).get_db_prep_value(value, connection))
    return params
