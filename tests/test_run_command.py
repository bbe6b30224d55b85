"""`make run` brings up web, worker, beat and the move timer; a terminal's Ctrl-C stops every one
of them."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from django.conf import settings

from tests.support import (
    ROOT,
    clean_env,
    free_port,
    process_group_alive,
    start_process,
    stop_process_group,
    wait_until,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def service_urls() -> Iterator[dict[str, str]]:
    """In service mode, a fresh PostgreSQL database and Redis db just for this run."""
    if not settings.REDIS_URL:
        yield {}
        return
    db = settings.DATABASES["default"]
    name = f"sergeant_run_{os.getpid()}"
    admin = f"host={db['HOST']} port={db['PORT'] or 5432} user={db['USER']} dbname=postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    redis_base = settings.REDIS_URL.rsplit("/", 1)[0]
    try:
        yield {
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{name}",
            "REDIS_URL": f"{redis_base}/14",
        }
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def processes_with_env(name: str, value: str) -> list[int]:
    """PIDs of live processes whose environment has ``name=value`` (worker children too)."""
    wanted = f"{name}={value}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if wanted in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def test_it_serves_a_healthy_platform_until_ctrl_c(
    tmp_path: Path, service_urls: dict[str, str]
) -> None:
    port = free_port()
    log_path = tmp_path / "make-run.log"
    env = clean_env(
        DATA_DIR=str(tmp_path / "data"),
        WEB_PORT=str(port),
        HEARTBEAT_INTERVAL="1",
        **service_urls,
    )
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    run = start_process(["make", "--no-print-directory", "run"], env, log_path, cwd=ROOT)
    try:

        def healthy() -> dict[str, Any] | None:
            response = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
            return response.json() if response.status_code == 200 else None

        first = wait_until(healthy, timeout=120, interval=0.5, what="GET /healthz to be 200")
        expected_vendor = "postgresql" if service_urls else "sqlite"
        assert first["checks"]["database"]["vendor"] == expected_vendor
        # Beat keeps scheduling the heartbeat (every second here), so it moves on.
        wait_until(
            lambda: (
                healthy()["checks"]["worker"]["last_heartbeat"]  # type: ignore[index]
                != first["checks"]["worker"]["last_heartbeat"]
            ),
            timeout=30,
            what="beat to record a newer heartbeat",
        )
        output = log_path.read_text()
        assert f"http://127.0.0.1:{port}/" in output
        children = {
            name: int(pid) for name, pid in re.findall(r"(\w+)\.1 started \(pid=(\d+)\)", output)
        }
        assert set(children) == {"web", "worker", "beat", "timer"}
        # web, worker with its two pool processes, beat, timer (make and honcho themselves too).
        assert len(processes_with_env("DATA_DIR", env["DATA_DIR"])) >= 6

        os.killpg(run.pid, signal.SIGINT)  # what a terminal sends on Ctrl-C
        run.wait(timeout=60)
        wait_until(
            lambda: not any(pid_alive(pid) for pid in children.values()),
            timeout=30,
            what="every process to stop",
        )
        assert not process_group_alive(run.pid)
        wait_until(
            lambda: not processes_with_env("DATA_DIR", env["DATA_DIR"]),
            timeout=30,
            what="the worker's pool processes to stop",
        )
        stopped = log_path.read_text()
        assert "SIGKILL" not in stopped, "a process had to be killed: it did not stop in time"
        assert "worker.1 stopped (rc=0)" in stopped
        assert "beat.1 stopped (rc=0)" in stopped
        assert "timer.1 stopped (rc=0)" in stopped
        # uvicorn finishes its shutdown, then re-raises the signal it got: rc=-15 is its normal.
        assert "Finished server process" in stopped
    finally:
        stop_process_group(run)
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
