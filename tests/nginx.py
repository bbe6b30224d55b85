"""nginx run with the project's own configuration (platform/nginx.conf), in front of web
processes the test started."""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support import ROOT, free_port, stop_process_group, wait_until


def nginx_config(listen: int, upstreams: list[int]) -> str:
    """platform/nginx.conf listening on ``listen``, its upstream these loopback ports."""
    text = (ROOT / "platform" / "nginx.conf").read_text()
    servers = "\n".join(f"        server 127.0.0.1:{port};" for port in upstreams)
    text, count = re.subn(r"        server web:8000;", servers, text)
    assert count == 1
    text, count = re.subn(r"listen \d+;", f"listen {listen};", text)
    assert count == 1
    return text


@contextlib.contextmanager
def serving_nginx(tmp: Path, upstreams: list[int]) -> Iterator[str]:
    """nginx in front of the web processes on ``upstreams``; yields its URL."""
    port = free_port()
    (tmp / "logs").mkdir()
    config = tmp / "nginx.conf"
    config.write_text(nginx_config(port, upstreams))
    process = subprocess.Popen(
        [
            "nginx",
            "-p",
            str(tmp),
            "-c",
            str(config),
            "-g",
            f"daemon off; pid {tmp}/nginx.pid; error_log {tmp}/logs/error.log;",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"nginx exited: {(tmp / 'logs' / 'error.log').read_text()}")
        try:
            return httpx.get(url + "/healthz", timeout=5).status_code in (200, 503)
        except httpx.TransportError:
            return False

    try:
        wait_until(up, timeout=20, interval=0.1, what="nginx to serve")
        yield url
    finally:
        stop_process_group(process)


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])
