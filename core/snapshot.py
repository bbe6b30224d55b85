"""Reads that see the database at one moment, whatever others write meanwhile."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import connection, transaction


@contextlib.contextmanager
def snapshot() -> Iterator[None]:
    """On PostgreSQL, a ``REPEATABLE READ`` transaction: its reads all see the database as
    the first of them saw it (the default level sees each statement's own moment). Within a
    transaction already, that one's. On SQLite, nothing: its transactions here take the
    write lock at their start, which would hold every writer back for the reads; what reads
    there must bear a change between two of its queries."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield
