"""``manage.py migrate``, which first records the moves of models out of the games app.

Player and ApiToken moved from the games app to accounts, and PlayerMessage to realtime;
their tables kept their names. On a new database the new apps' first migrations make the
tables. On a database made before the move, the games app's first migration made them
already, so those migrations are recorded as applied without running; Django would refuse
to migrate otherwise (the games app's applied migrations now depend on them).
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.recorder import MigrationRecorder

#: Migrations that only took over tables the games app's first migration made.
TAKEN_OVER = [("accounts", "0001_initial"), ("realtime", "0001_initial")]


def record_models_moved_out_of_games(database: str) -> list[tuple[str, str]]:
    """Record :data:`TAKEN_OVER` as applied on a database made before the move; returns
    what it recorded."""
    recorder = MigrationRecorder(connections[database])
    if not recorder.has_table():
        return []
    applied = recorder.applied_migrations()
    if ("games", "0001_initial") not in applied:
        return []
    recorded = [name for name in TAKEN_OVER if name not in applied]
    for app, name in recorded:
        recorder.record_applied(app, name)
    return recorded


class Command(migrate.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        database = options.get("database") or DEFAULT_DB_ALIAS
        for app, name in record_models_moved_out_of_games(database):
            if options.get("verbosity", 1) >= 1:
                self.stdout.write(f"  Recorded {app}.{name} (its tables were made as games').")
        super().handle(*args, **options)
