"""The suite's flush (tests/probe/management/commands/flush.py), as pytest-django calls it
after a transactional test: every table empty but the content types' and permissions',
which stay as the migrations made them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection

from accounts.models import ApiToken
from games import tables
from games.models import Game, GameEvent
from tests.probe.models import Probe
from tests.rating_helpers import new_players

pytestmark = pytest.mark.django_db(transaction=True)


def row_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.django_table_names(only_existing=True):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def test_it_empties_every_table_but_the_content_types_and_permissions() -> None:
    players = new_players("flushed", 3)
    table = tables.create_table(
        players[0], rules="classic", rated=True, move_seconds=600, seat=None
    )
    for seat, player in enumerate(players):
        tables.join_table(player, table_id=table.pk, seat=seat)
    Probe.objects.create(label="flushed")
    content_types = sorted(ContentType.objects.values_list("app_label", "model"))
    permissions = sorted(Permission.objects.values_list("content_type_id", "codename"))
    assert Game.objects.exists() and GameEvent.objects.exists() and ApiToken.objects.exists()

    # As TransactionTestCase._fixture_teardown calls it.
    call_command(
        "flush",
        verbosity=0,
        interactive=False,
        database="default",
        reset_sequences=False,
        allow_cascade=False,
        inhibit_post_migrate=False,
    )

    counts = row_counts()
    kept = {"django_content_type", "auth_permission"}
    assert {t: n for t, n in counts.items() if t not in kept and n} == {}
    assert sorted(ContentType.objects.values_list("app_label", "model")) == content_types
    assert sorted(Permission.objects.values_list("content_type_id", "codename")) == permissions
    assert counts["auth_permission"] > 0
