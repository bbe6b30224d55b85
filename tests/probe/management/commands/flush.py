"""``flush`` as the suite runs it: what pytest-django calls after every transactional test.

Django's own empties PostgreSQL with one TRUNCATE of every table and then makes the content
types and permissions again (post_migrate): slow, and run after every transactional test in
service mode. Deleting the rows is far quicker: each test leaves a few rows, and a TRUNCATE
pays for new files for every table, written to disk at its commit, whatever they held.

So, called as the test case calls it, this one deletes the rows of every table but those of
the content types and permissions, which only migrations write, and leaves post_migrate
nothing to make again. Django makes foreign keys deferrable and initially deferred on
PostgreSQL and SQLite alike, so the order of the deletes does not matter: they are checked
at the commit, when every table is empty. Called any other way (resetting sequences,
cascading, without post_migrate, asking first) it is Django's flush.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db import connections

#: Written by migrations (post_migrate) only: kept, so that nothing needs making again.
KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        as_the_test_case_calls_it = not (
            options["interactive"]
            or options.get("reset_sequences", True)
            or options.get("allow_cascade", False)
            or options.get("inhibit_post_migrate", False)
        )
        if not as_the_test_case_calls_it:
            super().handle(**options)
            return
        connection = connections[options["database"]]
        tables = connection.introspection.django_table_names(only_existing=True)
        quote = connection.ops.quote_name
        connection.ops.execute_sql_flush(
            [f"DELETE FROM {quote(table)}" for table in sorted(tables) if table not in KEPT_TABLES]
        )
