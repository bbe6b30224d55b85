"""PostgreSQL: the game's state compressed with lz4 (core/compression.py says why).

The stream messages' payload, compressed here too before that table moved to the realtime
app, is set by realtime's migration 0001 on a new database.
"""

from __future__ import annotations

from django.db import migrations

from core.compression import compress_with_lz4


class Migration(migrations.Migration):
    dependencies = [("games", "0002_game_seats")]

    operations = [compress_with_lz4([("games_game", "state")])]
