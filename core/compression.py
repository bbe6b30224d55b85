"""PostgreSQL: compress large values that every move rewrites with lz4 instead of pglz.

A game's ``state`` is rewritten by every move and grows with the game; a ``your_turn``
message carries a whole view. Past about 2 KB PostgreSQL compresses a value before storing
it, with pglz by default; the ``UPDATE`` and ``COMMIT`` of a long game's state are cheaper
with lz4. Values already stored keep their compression; small values are not compressed at
all. A server built without lz4 (or older than 14) keeps pglz: the migration then changes
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import DatabaseError, migrations, transaction


def _use_compression(method: str, columns: Sequence[tuple[str, str]]) -> Callable[[Any, Any], None]:
    def apply(apps: Any, schema_editor: Any) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql" or connection.pg_version < 140000:
            return
        for table, column in columns:
            try:
                with transaction.atomic(using=connection.alias):  # a savepoint
                    schema_editor.execute(
                        f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET COMPRESSION {method}'
                    )
            except DatabaseError:  # built without lz4: pglz stays
                return

    return apply


def compress_with_lz4(columns: Sequence[tuple[str, str]]) -> migrations.RunPython:
    """A migration operation: these (table, column)s compressed with lz4 (back: pglz)."""
    return migrations.RunPython(_use_compression("lz4", columns), _use_compression("pglz", columns))
