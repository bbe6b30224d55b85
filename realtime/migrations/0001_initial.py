# The stream's messages, moved here from the games app (the table keeps its name).
#
# A database made before the move has this table already (the games app's migration 0001
# made it): `manage.py migrate` records this migration as applied there instead of running
# it (accounts/management/commands/migrate.py).

import core.json_codec
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.compression import compress_with_lz4


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerMessage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('type', models.CharField(max_length=30)),
                ('payload', core.json_codec.JSONField()),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('player', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='messages', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'games_playermessage',
                'indexes': [models.Index(fields=['player', 'id'], name='games_playe_player__8bbf67_idx')],
            },
        ),
        # A your_turn message carries a whole view: see core/compression.py.
        compress_with_lz4([("games_playermessage", "payload")]),
    ]
