"""The web server itself: uvicorn's options and granian side by side, on the real app.

Service mode on a fresh PostgreSQL database (``sergeant_server_bench``) and Redis db 10, a
Celery worker, beat and the move timer; then every variant below is started at once, each
on its own port with one worker process, and the same load is put on each in turn: wrk,
one thread and ``--connections`` kept-alive connections for ``--seconds``, on ``GET
/api/v1/me`` with a token and on ``GET /healthz``. The variants are interleaved (round 1:
A, B, C...; round 2: the same order rotated by one) since the machine is shared and its load
drifts. What is measured for each run is the CPU time (user + system, from ``/proc``) of
the variant's processes (the server and its children) divided by the requests wrk
completed: the server's CPU a request, printed as a ratio against the baseline (the web
server as docker-compose.yml starts it behind nginx, serving the same app), pooled over the
rounds; with wrk's requests/s and p99 latency at that concurrency
(wall-clock figures: noisy on a shared machine), and the context switches of the server's
threads a request (``/proc``: a count, steady between runs, of the hand-offs between
threads that the CPU figure pays for).

The ``trivial`` variants serve :func:`trivial_app` (a fixed 2-byte JSON answer), so that
what the server costs by itself shows beside what the platform's app costs on top of it.

    .venv/bin/python benchmarks/asgi_servers.py [--rounds 3] [--seconds 5] [--connections 16]

granian is measured only if it is installed (``.venv/bin/pip install granian``: it is not a
dependency). wrk is Debian's ``wrk``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (
    BIN,
    ROOT,
    deployed_web_server,
    free_port,
    processes_cpu,
    service_platform,
    stop,
)

DB_NAME = "sergeant_server_bench"
REDIS_URL = "redis://127.0.0.1:6379/10"
PLATFORM_APP = "config.asgi:application"
TRIVIAL_APP = "benchmarks.asgi_servers:trivial_app"

GRANIAN = [str(BIN / "granian"), "--interface", "asgi", "--http", "1", "--host", "127.0.0.1"]
QUIET = "--no-access-log"


def deployed(behind_proxy: bool) -> list[str]:
    """The web server's command as the platform starts it, without its app (each variant
    names the app it serves)."""
    command = deployed_web_server(behind_proxy)
    return [*(word for word in command if word != PLATFORM_APP), "--host", "127.0.0.1"]


#: Behind nginx (docker-compose.yml): uvicorn's httptools protocol.
COMPOSE = deployed(behind_proxy=True)
#: With no proxy in front (platform/Procfile, so ``make run``): uvicorn's h11 protocol.
MAKE_RUN = deployed(behind_proxy=False)

# name → (command without the port and the app, the app). The first variant of each app is
# the baseline of that app's ratios.
VARIANTS: dict[str, tuple[list[str], str]] = {
    "compose web": ([*COMPOSE, QUIET], PLATFORM_APP),
    "make run web": ([*MAKE_RUN, QUIET], PLATFORM_APP),
    # uvicorn's access log on (at info level, into a file here): off in both deployments.
    "compose web, access log": (COMPOSE, PLATFORM_APP),
    "granian": ([*GRANIAN, "--loop", "uvloop", QUIET], PLATFORM_APP),
    "trivial: compose web": ([*COMPOSE, QUIET], TRIVIAL_APP),
    "trivial: make run web": ([*MAKE_RUN, QUIET], TRIVIAL_APP),
    "trivial: asyncio loop": ([*COMPOSE, QUIET, "--loop", "asyncio"], TRIVIAL_APP),
    "trivial: granian": ([*GRANIAN, "--loop", "uvloop", QUIET], TRIVIAL_APP),
    "trivial: granian rust": (
        [*GRANIAN, "--loop", "uvloop", "--task-impl", "rust", QUIET],
        TRIVIAL_APP,
    ),
}


async def trivial_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The least an ASGI app can answer: what is left of a request's cost is the server's."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    headers = [(b"content-type", b"application/json"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"{}"})


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    url: str
    # path → per round: (CPU seconds, requests, requests/s, p99 ms, context switches)
    runs: dict[str, list[tuple[float, int, float, float, int]]] = field(default_factory=dict)

    def _processes(self) -> dict[int, float]:
        """CPU seconds so far of the server's processes (it and its children), by pid."""
        root = self.process.pid
        return processes_cpu(lambda pid, ppid, _name: root in (pid, ppid))

    def cpu_seconds(self) -> float:
        return sum(self._processes().values())

    def context_switches(self) -> int:
        """The server's threads' context switches so far (those of threads that ended are
        lost: take it across a phase in which the server's threads stay up)."""
        return sum(_context_switches(pid) for pid in self._processes())


def _context_switches(pid: int) -> int:
    """Voluntary and involuntary context switches of the live threads of process ``pid``."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # the thread ended meanwhile
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:
                    total += int(line.split()[1])
    return total


def start_server(name: str, env: dict[str, str]) -> Server:
    command, app = VARIANTS[name]
    port = free_port()
    log_name = "bench-server-" + re.sub(r"\W+", "-", name) + ".log"
    log = open(ROOT / "var" / log_name, "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [*command, "--port", str(port), app],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited: see var/{log_name}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=5):
                return Server(name, process, url)
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{name} did not start")


def register(url: str) -> str:
    import orjson

    body = orjson.dumps({"username": "server-bench", "password": "bench-password-1"})
    request = urllib.request.Request(
        url + "/api/v1/accounts/register",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        return str(orjson.loads(response.read())["token"])


def wrk(url: str, seconds: int, connections: int, headers: list[str]) -> tuple[int, float, float]:
    """(requests completed, requests/s, p99 ms) of one wrk run; every answer must be a 2xx."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    for header in headers:
        command += ["-H", header]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out or "Socket errors" in out:
        raise RuntimeError(f"wrk saw failures on {url}:\n{out}")
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p99, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
    return requests, rate, float(p99) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def measure(
    servers: list[Server], paths: dict[str, list[str]], rounds: int, seconds: int, conns: int
) -> None:
    for index in range(rounds):
        order = servers[index % len(servers) :] + servers[: index % len(servers)]
        for path, headers in paths.items():
            for server in order:
                wrk(server.url + path, 1, conns, headers)  # warm: connections, caches
                before, switched = server.cpu_seconds(), server.context_switches()
                requests, rate, p99 = wrk(server.url + path, seconds, conns, headers)
                cpu = server.cpu_seconds() - before
                switches = server.context_switches() - switched
                server.runs.setdefault(path, []).append((cpu, requests, rate, p99, switches))
        print(f"round {index + 1}/{rounds} done", file=sys.stderr)


def baselines(names: list[str]) -> dict[str, str]:
    """Each app's baseline: the first variant named in VARIANTS that serves it."""
    first: dict[str, str] = {}
    for name, (_, app) in VARIANTS.items():
        first.setdefault(app, name)
    return {name: first[VARIANTS[name][1]] for name in names}


def cpu_per_request(runs: list[tuple[float, int, float, float, int]]) -> float:
    return sum(r[0] for r in runs) / sum(r[1] for r in runs)


def report(servers: list[Server], paths: list[str], describe: Callable[[str], str]) -> None:
    by_name = {server.name: server for server in servers}
    baseline_of = baselines(list(by_name))
    for path in paths:
        print(f"\nGET {path} ({describe(path)})")
        print(
            f"{'variant':<28}{'CPU µs/req':>11}{'ratio':>7}  {'per round':<20}"
            f"{'req/s (median)':>15}{'p99 ms (median)':>16}{'switches/req':>13}"
        )
        for server in servers:
            runs = server.runs[path]
            pooled = cpu_per_request(runs)
            base = cpu_per_request(by_name[baseline_of[server.name]].runs[path])
            per_round = ", ".join(f"{r[0] / r[1] * 1e6:.0f}" for r in runs)
            rates = sorted(r[2] for r in runs)
            p99s = sorted(r[3] for r in runs)
            switches = sum(r[4] for r in runs) / sum(r[1] for r in runs)
            print(
                f"{server.name:<28}{pooled * 1e6:>11.0f}{pooled / base:>7.2f}  {per_round:<20}"
                f"{rates[len(rates) // 2]:>15.0f}{p99s[len(p99s) // 2]:>16.1f}{switches:>13.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5, help="of each wrk run")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--variants", nargs="*", default=list(VARIANTS), help=f"among: {', '.join(VARIANTS)}"
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install wrk")
    names = [n for n in args.variants if "granian" not in n or (BIN / "granian").exists()]
    names += [b for b in set(baselines(names).values()) if b not in names]
    names.sort(key=list(VARIANTS).index)
    settings = {"RATE_LIMIT_PER_MINUTE": "100000000"}
    with service_platform(DB_NAME, REDIS_URL, worker_concurrency=1, settings=settings) as env:
        servers: list[Server] = []
        try:
            for name in names:
                servers.append(start_server(name, env))
            token = register(servers[0].url)
            paths = {"/api/v1/me": [f"Authorization: Token {token}"], "/healthz": []}
            measure(servers, paths, args.rounds, args.seconds, args.connections)
        finally:
            for server in servers:
                stop(server.process)
    print(
        f"wrk: 1 thread, {args.connections} connections, {args.seconds} s a run, "
        f"{args.rounds} interleaved rounds; one worker process per server; service mode "
        f"(PostgreSQL, Redis); CPU of the server's processes from /proc; "
        f"ratios against the first variant of the same app; {os.cpu_count()} cores, shared"
    )
    report(
        servers,
        list(paths),
        lambda path: "a token's account" if "me" in path else "the checks; no token",
    )


if __name__ == "__main__":
    main()
