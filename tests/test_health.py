"""GET /healthz: 200 when database, broker, worker heartbeat and move timer are fine; 503 naming
failures."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.test import Client

from core.heartbeats import (
    HEARTBEAT_KEY,
    MOVE_TIMER_KEY,
    heartbeat_store,
    store_heartbeat,
    store_move_timer_look,
)
from tests.conftest import WorkerInfo
from tests.support import (
    WEB_SERVER,
    clean_env,
    free_port,
    start_process,
    stop_process_group,
    wait_until,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def saved_heartbeat() -> Iterator[None]:
    """Let a test overwrite the heartbeat and the move timer's look (which starts fresh);
    put the worker's and the timer's back afterwards."""
    saved = {key: heartbeat_store().get(key) for key in (HEARTBEAT_KEY, MOVE_TIMER_KEY)}
    store_move_timer_look()
    yield
    for key, value in saved.items():
        if value:
            heartbeat_store().set(key, value)
        else:
            heartbeat_store().delete(key)


def test_it_answers_200_when_everything_is_fine(client: Client, celery_worker: WorkerInfo) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert body["failing"] == []
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True
    assert body["checks"]["worker"]["hostname"] == celery_worker.hostname
    assert body["checks"]["move_timer"]["ok"] is True


def test_it_records_a_heartbeat_from_the_beat_task_on_the_worker(
    celery_worker: WorkerInfo, saved_heartbeat: None
) -> None:
    from health.tasks import record_heartbeat

    heartbeat_store().delete(HEARTBEAT_KEY)
    record_heartbeat.delay()

    beat = wait_until(lambda: heartbeat_store().get(HEARTBEAT_KEY), timeout=30, what="a heartbeat")
    assert beat["hostname"] == celery_worker.hostname
    assert time.time() - beat["at"] < 30


def test_it_answers_503_when_no_heartbeat_was_ever_recorded(
    client: Client, saved_heartbeat: None
) -> None:
    # The suite's live worker records a heartbeat every HEARTBEAT_INTERVAL (and beat sends
    # one as it starts): when one lands between the delete and the request, delete it again.
    for _ in range(3):
        heartbeat_store().delete(HEARTBEAT_KEY)

        response = client.get("/healthz")

        if response.status_code == 503:
            break

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["failing"] == ["worker"]
    assert "no worker heartbeat" in body["checks"]["worker"]["error"]


def test_it_answers_503_when_the_heartbeat_is_stale(
    client: Client, saved_heartbeat: None, settings: Any
) -> None:
    # The suite's live worker records a fresh heartbeat every HEARTBEAT_INTERVAL: when one
    # lands between the stale one set here and the request, set it again.
    for _ in range(3):
        store_heartbeat("old-worker@localhost")
        beat = heartbeat_store().get(HEARTBEAT_KEY)
        stale = beat["at"] - settings.HEARTBEAT_MAX_AGE - 30
        heartbeat_store().set(HEARTBEAT_KEY, {**beat, "at": stale})

        response = client.get("/healthz")

        if response.json()["checks"]["worker"].get("hostname") == "old-worker@localhost":
            break

    assert response.status_code == 503
    assert response.json()["failing"] == ["worker"]
    assert response.json()["checks"]["worker"]["hostname"] == "old-worker@localhost"


def test_it_answers_503_when_the_move_timer_has_not_looked_for_too_long(
    client: Client, saved_heartbeat: None, settings: Any
) -> None:
    store_heartbeat("worker@localhost")
    heartbeat_store().set(MOVE_TIMER_KEY, time.time() - settings.HEARTBEAT_MAX_AGE - 30)

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["move_timer"]
    assert body["checks"]["move_timer"]["error"].startswith("last look")


def test_it_keeps_the_heartbeats_however_many_callers_the_rate_limits_count(
    saved_heartbeat: None, settings: Any
) -> None:
    # The embedded default's file cache deletes entries at random once it holds MAX_ENTRIES:
    # a rate-limit bucket per caller must never cost the heartbeats.
    from accounts.ratelimit import WINDOW, hit, reset

    if settings.REDIS_URL:
        pytest.skip("Redis keeps every key until it expires")
    store_heartbeat("worker@localhost")
    default_limit = settings.CACHES["default"].get("OPTIONS", {}).get("MAX_ENTRIES", 300)
    callers = [f"ip:heartbeat-test-{number}" for number in range(default_limit * 3)]
    try:
        for caller in callers:
            hit(caller, 1000, WINDOW)

        assert heartbeat_store().get(HEARTBEAT_KEY) is not None
        assert heartbeat_store().get(MOVE_TIMER_KEY) is not None
    finally:
        for caller in callers:
            reset(caller)


def test_it_answers_503_naming_database_broker_and_worker_when_services_are_down(
    tmp_path: Path,
) -> None:
    """A real ASGI server configured with a database and a Redis that nobody listens on."""
    closed_port = free_port()
    port = free_port()
    env = clean_env(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATA_DIR=str(tmp_path),
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{closed_port}/nothing",
        REDIS_URL=f"redis://127.0.0.1:{closed_port}/0",
    )
    server = start_process(
        [*WEB_SERVER, "--port", str(port)],
        env,
        tmp_path / "uvicorn.log",
    )
    try:
        response = wait_until(
            lambda: httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=20),
            timeout=60,
            what="uvicorn to answer",
        )
    finally:
        stop_process_group(server)

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["failing"] == ["database", "redis", "broker", "worker", "move_timer"]
    assert body["checks"]["redis"]["error"].startswith("ConnectionError")
    assert body["checks"]["database"]["error"].startswith("OperationalError")
    assert body["checks"]["worker"]["error"].startswith("cache unreadable")
