"""The web server's workers each listen on a socket of their own (server/serve.py).

uvicorn's workers share one listening socket, and a worker that wakes first accepts every
connection waiting at that moment: a burst of connections could all land on one worker and
stay there while the other idled. ``python -m server.serve`` gives each worker its own
socket of the port (``SO_REUSEPORT``), and the kernel spreads the connections over them.
Served here as platform/Procfile serves the platform, with ``WEB_CONCURRENCY=2``.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import pytest

from benchmarks.common import ESTABLISHED, LISTENING, tcp_sockets
from tests.conftest import LiveServer, serving_api, suite_process_env
from tests.support import WEB_SERVER, start_process, stop_process_group, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

BURST = 40


@pytest.fixture(scope="module")
def two_workers(django_db_setup: Any, django_db_blocker: Any) -> Iterator[LiveServer]:
    # Kept-alive connections closed after 5 s idle would leave the burst's count short.
    workers = {"WEB_CONCURRENCY": "2", "UVICORN_TIMEOUT_KEEP_ALIVE": "60"}
    with serving_api(django_db_blocker, "uvicorn-two-workers.log", **workers) as s:
        # It answers once one worker does; the other may still be loading the app.
        port = urlsplit(s.url).port
        assert port is not None
        wait_until(
            lambda: len(tcp_sockets(port, LISTENING)) >= 2,
            timeout=60,
            what="a listening socket for each of the two workers",
        )
        yield s


def holders(wanted: set[str]) -> dict[int, set[str]]:
    """Which processes hold which of the ``wanted`` sockets, by pid."""
    held: dict[int, set[str]] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            links = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        except OSError:  # it ended meanwhile, or is not ours to read
            continue
        if links & wanted:
            held[int(pid)] = links & wanted
    return held


def test_it_gives_each_worker_a_listening_socket_of_its_own(two_workers: LiveServer) -> None:
    port = urlsplit(two_workers.url).port
    assert port is not None
    listening = tcp_sockets(port, LISTENING)
    by_process = holders(listening)

    assert len(listening) == 2, "one listening socket a worker, not one shared by both"
    assert len(by_process) == 2
    assert all(len(held) == 1 for held in by_process.values())


def test_it_spreads_a_burst_of_connections_over_the_workers(two_workers: LiveServer) -> None:
    """BURST connections opened at once, each answered: every worker holds a share (with one
    shared socket, a burst often went all to one worker)."""
    address = urlsplit(two_workers.url)
    assert address.hostname is not None and address.port is not None

    def connect_and_ask(_: int) -> socket.socket:
        sock = socket.create_connection((address.hostname, address.port), timeout=20)
        sock.sendall(b"GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(12).startswith(b"HTTP/1.1 ")  # a worker accepted it and answered
        return sock

    with ThreadPoolExecutor(BURST) as pool:
        connections = list(pool.map(connect_and_ask, range(BURST)))
    try:
        by_process = holders(tcp_sockets(address.port, ESTABLISHED))
        shares = Counter({pid: len(held) for pid, held in by_process.items()})
    finally:
        for sock in connections:
            sock.close()

    assert sum(shares.values()) == BURST
    assert len(shares) == 2, f"every connection on one worker: {shares}"
    # A fair coin's 40 tosses come out 5-35 or better but for 2 in 10 million.
    assert min(shares.values()) >= 5, shares


def test_it_refuses_a_port_another_server_listens_on(
    two_workers: LiveServer, django_db_blocker: Any, tmp_path: Any
) -> None:
    """SO_REUSEPORT would let a second server of the same user join the port and take half
    of its connections; like uvicorn, the second server fails to start instead."""
    port = urlsplit(two_workers.url).port
    assert port is not None
    env = {**suite_process_env(django_db_blocker), "WEB_CONCURRENCY": "2"}
    log = tmp_path / "second.log"
    second = start_process([*WEB_SERVER, "--port", str(port)], env, log)
    try:
        returncode = second.wait(timeout=60)
    except subprocess.TimeoutExpired:
        returncode = None
    finally:
        stop_process_group(second)

    assert returncode == 3, log.read_text()  # uvicorn's STARTUP_FAILURE
    assert "Address already in use" in log.read_text()
    assert len(tcp_sockets(port, LISTENING)) == 2, "the first server's two, no more"
