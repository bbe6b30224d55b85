"""The Celery application. Workers and beat are started with ``celery -A config ...``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("sergeant_major", include=["config.health"])
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
