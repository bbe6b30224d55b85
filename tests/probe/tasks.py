import os
from typing import Any

from celery import shared_task

from tests.probe.models import Probe


@shared_task(bind=True, name="tests.probe.mark_probe")
def mark_probe(self: Any, probe_id: int) -> None:
    Probe.objects.filter(id=probe_id).update(
        processed_by=self.request.hostname or "unknown", processed_pid=os.getpid()
    )
