"""A task enqueued on commit runs on a real worker process, in whichever mode the suite runs."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.db import transaction

from tests.conftest import WorkerInfo
from tests.probe.models import Probe
from tests.probe.tasks import mark_probe
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def processed(probe_id: int) -> Probe | None:
    probe = Probe.objects.get(id=probe_id)
    return probe if probe.processed_by else None


def test_it_runs_a_task_enqueued_on_commit_on_the_worker(celery_worker: WorkerInfo) -> None:
    with transaction.atomic():
        probe = Probe.objects.create(label="committed")
        transaction.on_commit(lambda: mark_probe.delay(probe.id))

    done = wait_until(lambda: processed(probe.id), timeout=30, what="the worker to mark the probe")

    assert done.processed_by == celery_worker.hostname
    assert done.processed_pid == celery_worker.pid
    assert done.processed_pid != os.getpid()


def test_it_never_sends_a_task_whose_transaction_rolled_back(celery_worker: WorkerInfo) -> None:
    probe = Probe.objects.create(label="outside")

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        transaction.on_commit(lambda: mark_probe.delay(probe.id))
        raise Abort

    # One worker consumes in order: once a later task has run, the first would have too.
    marker = Probe.objects.create(label="marker")
    transaction.on_commit(lambda: mark_probe.delay(marker.id))
    wait_until(lambda: processed(marker.id), timeout=30, what="the marker task")

    assert Probe.objects.get(id=probe.id).processed_by == ""


def test_it_uses_the_broker_of_the_mode_in_use(celery_worker: WorkerInfo) -> None:
    from config.celery_app import app

    with app.connection_for_write() as conn:
        driver = conn.transport.driver_type
    assert driver == ("redis" if settings.REDIS_URL else "filesystem")
