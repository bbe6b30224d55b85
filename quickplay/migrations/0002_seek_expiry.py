# Seeks expire (docs/api.md "Quick play"): each seek gets its expires_at. The seeks made
# before have theirs counted from when they were made, as a new seek's would be (an open one
# already past it is swept by beat, and its seeker told).

from datetime import timedelta

from django.conf import settings
from django.db import migrations, models


def give_each_seek_its_expiry(apps, schema_editor):
    Seek = apps.get_model("quickplay", "Seek")
    lifetime = getattr(settings, "QUICKPLAY_SEEK_SECONDS", 600)
    for seek in Seek.objects.filter(expires_at__isnull=True).only(
        "pk", "created_at", "house_bots_after"
    ):
        seconds = lifetime + (seek.house_bots_after or 0)
        Seek.objects.filter(pk=seek.pk).update(
            expires_at=seek.created_at + timedelta(seconds=seconds)
        )


class Migration(migrations.Migration):

    dependencies = [
        ('quickplay', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='seek',
            name='expires_at',
            field=models.DateTimeField(null=True),
        ),
        migrations.RunPython(give_each_seek_its_expiry, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='seek',
            name='expires_at',
            field=models.DateTimeField(),
        ),
        migrations.AlterField(
            model_name='seek',
            name='status',
            field=models.CharField(choices=[('open', 'Open'), ('seated', 'Seated'), ('canceled', 'Canceled'), ('expired', 'Expired')], default='open', max_length=10),
        ),
        migrations.AddIndex(
            model_name='seek',
            index=models.Index(fields=['status', 'expires_at'], name='quickplay_s_status_480e9c_idx'),
        ),
    ]
