"""The Celery application. Workers and beat are started with ``celery -A config ...``."""

import contextlib
import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("sergeant_major")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _leave_the_worker_process_group(**_: Any) -> None:
    """Put each prefork child in its own process group.

    Process managers (honcho under ``make run``, and others) stop a worker by signalling its
    whole process group. Children killed that way under a warm shutdown can leave the main
    process waiting for them until it is SIGKILLed; out of the group, they are stopped by
    the main process instead, after their current task.
    """
    # A solo pool runs this in the main process, which may lead its own session already.
    with contextlib.suppress(PermissionError):
        os.setpgid(0, 0)


@worker_process_init.connect
def _freeze_startup_objects(**_: Any) -> None:
    from server.gc_tuning import freeze_startup_objects

    freeze_startup_objects()
