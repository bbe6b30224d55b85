"""What the service-mode benchmarks share: a fresh PostgreSQL database, percentiles."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def deployed_web_server(behind_proxy: bool = False, code: Path = ROOT) -> list[str]:
    """The web server's command as the platform starts it, read from there: platform/Procfile's
    (``make run`` and the container image, no proxy in front) or, ``behind_proxy``,
    docker-compose.yml's (behind nginx). Its address options are left out: add ``--host`` and
    ``--port``. ``code``: another checkout's, served on this one's packages."""
    if behind_proxy:
        compose = yaml.safe_load((code / "docker-compose.yml").read_text())
        words = shlex.split(compose["services"]["web"]["command"])
    else:
        line = next(
            line
            for line in (code / "platform" / "Procfile").read_text().splitlines()
            if line.startswith("web:")
        )
        words = shlex.split(line.removeprefix("web:"))
        # After ``exec env NAME=value``: uvicorn, or an older checkout's ``python -m ...``.
        words = words[next(i for i, word in enumerate(words) if word in ("uvicorn", "python")) :]
    command = [str(BIN / words[0])]
    options = iter(words[1:])
    for word in options:
        if word in ("--host", "--port"):
            next(options)
        else:
            command.append(word)
    return command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fresh_database(name: str) -> str:
    """Drop and create database ``name`` on the local PostgreSQL; returns its URL."""
    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgres://postgres@127.0.0.1:5432/{name}"


def start(
    args: list[str], env: dict[str, str], log_name: str, code: Path = ROOT
) -> subprocess.Popen[bytes]:
    """A process of the platform in the checkout at ``code``, logging to var/``log_name``."""
    log = open(ROOT / "var" / log_name, "wb")  # noqa: SIM115
    return subprocess.Popen(
        args, cwd=code, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def service_platform(
    db_name: str,
    redis_url: str,
    worker_concurrency: int = 2,
    code: Path = ROOT,
    settings: dict[str, str] | None = None,
) -> Iterator[dict[str, str]]:
    """Service mode on a fresh database and Redis db: migrated, a Celery worker (prefork),
    beat and the move timer running, and Django set up in this process on the same
    settings; yields those settings (the environment). ``code``: the checkout whose code
    runs (this one by default), on this checkout's packages; ``settings``: more environment
    for every process."""
    (ROOT / "var").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": fresh_database(db_name),
        "REDIS_URL": redis_url,
        "DATA_DIR": str(ROOT / "var" / db_name),
        "SECRET_KEY": "bench-only-secret-key-bench-only-secret-key",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        **(settings or {}),
    }
    migrate = [str(BIN / "python"), "manage.py", "migrate", "-v0"]
    subprocess.run(migrate, cwd=code, env=env, check=True)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    celery = [str(BIN / "celery"), "-A", "config"]
    worker = start(
        [*celery, "worker", f"--concurrency={worker_concurrency}", "--loglevel=WARNING"],
        env,
        f"{db_name}-worker.log",
        code,
    )
    schedule = ROOT / "var" / f"{db_name}-beat-schedule"
    beat = start(
        [*celery, "beat", "--loglevel=WARNING", f"--schedule={schedule}"],
        env,
        f"{db_name}-beat.log",
        code,
    )
    timer = start(
        [str(BIN / "python"), "manage.py", "movetimer"], env, f"{db_name}-timer.log", code
    )
    os.environ.update(env)
    sys.path.insert(0, str(code))
    import django

    django.setup()
    try:
        time.sleep(3)  # the worker's processes are up
        yield env
    finally:
        stop(worker)
        stop(beat)
        stop(timer)


def start_uvicorn(
    env: dict[str, str],
    port: int,
    *,
    log_name: str,
    workers: int = 1,
    code: Path = ROOT,
    behind_proxy: bool = True,
) -> subprocess.Popen[bytes]:
    """The web server on loopback serving the checkout at ``code``, quiet, logging to
    ``var/<log_name>``; returned once it answers. Started as docker-compose.yml starts it
    behind nginx (the service deployment), or, not ``behind_proxy``, as platform/Procfile
    does (``make run``). A checkout from before nginx stood in front bounded request heads in
    its own protocol: it is served as its Procfile said."""
    older = not (code / "server" / "head_limits.py").exists()
    process = start(
        [
            *deployed_web_server(behind_proxy and not older, code),
            *("--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)),
            *("--no-access-log", "--log-level", "warning"),
        ],
        env,
        log_name,
        code,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/schema/", timeout=5):
                return process
        except OSError:  # not listening yet (urllib's errors are OSErrors)
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not start")


#: States of a TCP socket in /proc/net/tcp.
ESTABLISHED, LISTENING = "01", "0A"


def tcp_sockets(port: int, state: str) -> set[str]:
    """The server-side sockets of ``port`` on this machine in a TCP ``state`` (from
    /proc/net), named as /proc/PID/fd links name them."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                if fields[3] == state and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    found.add(f"socket:[{fields[9]}]")
    return found


def processes_cpu(include: Callable[[int, int, str], bool]) -> dict[int, float]:
    """User + system CPU seconds of each live process that ``include(pid, parent pid, command
    name)`` picks, by pid: differences taken pid by pid stay right when a process ends or
    starts between two readings (a backend of a database that closes its connection)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # it ended meanwhile
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        if include(int(entry), int(fields[1]), name):
            found[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    return found
