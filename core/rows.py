"""Loading one model row by plain SQL, for the game row a move reads.

``Model.objects.raw()`` works out afresh on every query how its columns map onto the model
(``resolve_model_init_order``, the cursor's description), which costs more CPU than the
query itself. Here the column list and each field's converters are worked out once per
model, and the instance is built the way the ORM builds it (``Model.from_db``), so it
behaves like any loaded instance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar, cast
from weakref import WeakKeyDictionary

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model

M = TypeVar("M", bound=Model)
Converter = Callable[[Any, Any, Any], Any]


@cache
def _shape(model: type[Model], vendor: str) -> tuple[str, list[str], list[Any]]:
    """(select list, attribute names, column expressions) of ``model`` on ``vendor``."""
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    table = model._meta.db_table
    columns = ", ".join(f"{quote(table)}.{quote(f.column)}" for f in fields)
    return columns, [f.attname for f in fields], [f.get_col(table) for f in fields]


#: Per database connection (one per thread), each model's converters: the backend's are
#: methods of that connection, and working them out again on every lookup is costly.
_converters_by_connection: WeakKeyDictionary[Any, dict[type[Model], list[Any]]] = (
    WeakKeyDictionary()
)


def _converters(model: type[Model]) -> list[tuple[int, Any, Converter]]:
    """(position, column, converter) for each value the database's own type leaves raw,
    as the ORM's compiler finds them: the backend's converters, then the field's."""
    known = _converters_by_connection.setdefault(connections[DEFAULT_DB_ALIAS], {})
    if model not in known:
        _, _, cols = _shape(model, connection.vendor)  # type: ignore[arg-type]  # a model class is hashable
        known[model] = [
            (position, col, convert)
            for position, col in enumerate(cols)
            for convert in [
                *connection.ops.get_db_converters(col),
                *col.get_db_converters(connection),
            ]
        ]
    return known[model]


def load_one(model: type[M], sql: str, params: Sequence[Any]) -> M | None:
    """The first row of ``SELECT <model's columns> <sql>`` as a ``model`` instance, or None.

    ``sql`` is the rest of the statement after the select list (``FROM ... WHERE ...``),
    with ``%s`` placeholders. The select list names the model's table, so ``sql`` must name
    it too, without an alias.
    """
    found = load_row([model], sql, params)
    return None if found is None else cast(M, found[0])


def load_row(models: Sequence[type[Model]], sql: str, params: Sequence[Any]) -> list[Model] | None:
    """The first row of ``SELECT <each model's columns> <sql>`` as one instance of each of
    ``models`` (a join: their tables named in ``sql``, without aliases), or None."""
    shapes = [_shape(model, connection.vendor) for model in models]  # type: ignore[arg-type]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(columns for columns, _, _ in shapes)} {sql}", params)
        row = cursor.fetchone()
    if row is None:
        return None
    instances, start = [], 0
    for model, (_, attnames, _) in zip(models, shapes, strict=True):
        values = list(row[start : start + len(attnames)])
        start += len(attnames)
        for position, column, convert in _converters(model):
            values[position] = convert(values[position], column, connection)
        instances.append(model.from_db(connection.alias, attnames, values))
    return instances
