"""Helpers the suite shares: waiting for real processes, free ports, child process handling."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from benchmarks.common import deployed_web_server

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


#: The web server as platform/Procfile starts it; uvicorn's options may follow.
WEB_SERVER = deployed_web_server()

T = TypeVar("T")


def wait_until(
    probe: Callable[[], T], timeout: float = 30.0, interval: float = 0.05, what: str = ""
) -> T:
    """Call ``probe`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = probe()
        except Exception as exc:  # a server still starting refuses connections
            last_error = exc
        else:
            if result:
                return result
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or probe}: {last_error}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(**overrides: str) -> dict[str, str]:
    """The current environment without the platform's variables, plus ``overrides``."""
    platform_vars = {
        "DATABASE_URL",
        "REDIS_URL",
        "SECRET_KEY",
        "RECORD_SIGNING_KEY",
        "DEBUG",
        "ALLOWED_HOSTS",
    }
    env = {k: v for k, v in os.environ.items() if k not in platform_vars}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(overrides)
    return env


def celery_worker_command(hostname: str) -> list[str]:
    """A Celery worker of the platform as the tests start it: one process (``solo``), named
    ``hostname`` so its heartbeat can be told from another's."""
    return [
        str(VENV_BIN / "celery"),
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        f"--hostname={hostname}",
    ]


def start_process(
    args: list[str], env: Mapping[str, str], log_path: Path, cwd: Path = ROOT
) -> subprocess.Popen[bytes]:
    """Start ``args`` in its own process group, output to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = log_path.open("wb")
    return subprocess.Popen(
        args, cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_process_group(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    """Signal the whole group, wait for every member to go (killing after 20 s)."""
    pgid = process.pid
    if process_group_alive(pgid):
        os.killpg(pgid, sig)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(pgid, signal.SIGKILL)
        process.wait()
    deadline = time.monotonic() + 20
    while process_group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if process_group_alive(pgid):
        os.killpg(pgid, signal.SIGKILL)
    return process.returncode
