"""Limits on a request's head and body where the platform faces the network, each as it is
deployed: the web server alone as platform/Procfile starts it (``make run``, the container
image: uvicorn's h11 protocol and server/head_limits.py), and nginx with platform/nginx.conf
in front of the web server as docker-compose.yml starts it. A huge
header, many headers and a long URL are refused at once, and the server goes on serving."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import LiveServer, serving_api
from tests.nginx import serving_nginx

pytestmark = pytest.mark.django_db(transaction=True)

#: An answer's status, headers and body.
Answer = tuple[int, dict[str, str], bytes]


@dataclass(frozen=True)
class Front:
    """What a client reaches: its URL and how it refuses a head or body over a limit."""

    url: str
    behind_nginx: bool

    def assert_refused(self, answer: Answer | None, limit: str) -> None:
        if answer is None or answer[0] == 400:
            # uvicorn's h11 protocol refused a head still incomplete past its limit: a 400,
            # then a close at once which, with the client's bytes still coming, resets the
            # connection (the client may lose the answer to it). nginx reads the rest first.
            assert not self.behind_nginx, answer
            return
        status, headers, body = answer
        assert headers["connection"] == "close"
        expected = {
            "url": (414, "url_too_long"),
            "headers": (431, "headers_too_large"),
        }[limit]
        assert (status, headers["content-type"]) == (expected[0], "application/json"), body[:300]
        error = json.loads(body)["error"]
        assert error["code"] == expected[1] and error["message"], error


@pytest.fixture(scope="module", params=["alone", "behind nginx"])
def front(
    request: pytest.FixtureRequest,
    django_db_setup: Any,
    django_db_blocker: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Front]:
    if request.param == "alone":
        server: LiveServer = request.getfixturevalue("api_server")
        yield Front(server.url, behind_nginx=False)
        return
    if shutil.which("nginx") is None:
        pytest.skip("nginx is not installed")
    tmp: Path = tmp_path_factory.mktemp("nginx")
    with (
        serving_api(django_db_blocker, "limits-behind-nginx.log", behind_proxy=True) as server,
        serving_nginx(tmp, [int(server.url.rsplit(":", 1)[1])]) as url,
    ):
        yield Front(url, behind_nginx=True)


def answer_to(front: Front, request: bytes) -> Answer | None:
    """Send ``request`` (a head, finished or not, perhaps a body) and read the answer: its
    status, headers and body, or None if the server reset the connection. The sending goes on
    in a thread, as a client that does not wait for the server would."""
    address = urlsplit(front.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:

        def send() -> None:
            with contextlib.suppress(OSError):  # the server closed: it has answered
                sock.sendall(request)

        sender = threading.Thread(target=send)
        sender.start()
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            return None
        finally:
            sender.join(timeout=10)
    status_line, _, rest = received.partition(b"\r\n")
    header_block, _, body = rest.partition(b"\r\n\r\n")
    headers = {}
    for line in header_block.split(b"\r\n"):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body = dechunked(body)
    return int(status_line.split()[1]), headers, body


def dechunked(body: bytes) -> bytes:
    whole = b""
    while True:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return whole
        whole, body = whole + body[:size], body[size + 2 :]


def assert_still_serving(front: Front) -> None:
    assert httpx.get(front.url + "/api/v1/tables", timeout=10).status_code == 200


def test_it_refuses_a_header_of_a_megabyte(front: Front) -> None:
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 2**20 + b"\r\n\r\n"

    front.assert_refused(answer_to(front, head), "headers")
    assert_still_serving(front)


def test_it_refuses_ten_thousand_headers(front: Front) -> None:
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(10_000))
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n"

    front.assert_refused(answer_to(front, head), "headers")
    assert_still_serving(front)


def test_it_refuses_a_url_of_sixty_kilobytes(front: Front) -> None:
    head = b"GET /api/v1/tables?q=" + b"a" * 60_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    front.assert_refused(answer_to(front, head), "url")
    assert_still_serving(front)


def test_it_refuses_a_head_that_never_ends(front: Front) -> None:
    # No end of headers ever comes: the size alone refuses it.
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: " + b"b" * 300_000

    front.assert_refused(answer_to(front, head), "headers")


def test_it_refuses_a_body_over_the_limit(front: Front) -> None:
    body = b'{"username": "' + b"a" * 100_000 + b'"}'
    request = (
        b"POST /api/v1/accounts/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    ) + body

    answer = answer_to(front, request)

    # The API itself refuses it when no proxy does.
    assert answer is not None and answer[0] == 413, answer
    assert json.loads(answer[2])["error"]["code"] == "body_too_large"
    assert_still_serving(front)


def test_it_serves_a_request_with_a_head_of_twelve_kilobytes(front: Front) -> None:
    path = "/api/v1/tables?q=" + "a" * 4000
    headers = {f"X-H{i}": "v" for i in range(50)}
    headers["X-Big"] = "b" * 7000

    response = httpx.get(front.url + path, headers=headers, timeout=10)

    assert response.status_code == 200, response.text[:300]


def test_it_keeps_a_connection_serving_request_after_request(front: Front) -> None:
    # The limit applies to each request's head of a kept-alive connection, not to their sum.
    with httpx.Client(base_url=front.url, timeout=10) as client:
        for _ in range(40):
            response = client.get("/api/v1/tables", headers={"X-Pad": "p" * 4000})
            assert response.status_code == 200
