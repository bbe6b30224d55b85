"""Limits on a request's head (server/http_protocol.py), against the suite's live server:
a huge header, many headers and a long URL are refused at once, in the API's error shape,
and the server goes on serving."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from urllib.parse import urlsplit

import httpx
import pytest

from server.http_protocol import MAX_HEAD_BYTES, MAX_HEADERS, MAX_URL_BYTES
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def answer_to(server: LiveServer, head: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (a request line and headers, unfinished or not) and read the answer:
    its status, headers and body. The sending goes on in a thread, as a client that does
    not wait for the server would."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:

        def send() -> None:
            with contextlib.suppress(OSError):  # the server closed: it has answered
                sock.sendall(head)

        sender = threading.Thread(target=send)
        sender.start()
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        sender.join(timeout=10)
    status_line, _, rest = received.partition(b"\r\n")
    header_block, _, body = rest.partition(b"\r\n\r\n")
    headers = {}
    for line in header_block.split(b"\r\n"):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def assert_refused(answer: tuple[int, dict[str, str], bytes], status: int, code: str) -> None:
    found, headers, body = answer
    assert found == status, (found, body[:300])
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    error = json.loads(body)["error"]
    assert error["code"] == code and error["message"], error


def assert_still_serving(server: LiveServer) -> None:
    assert httpx.get(server.url + "/api/v1/tables", timeout=10).status_code == 200


def test_it_refuses_a_header_of_a_megabyte(api_server: LiveServer) -> None:
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 2**20 + b"\r\n\r\n"

    assert_refused(answer_to(api_server, head), 431, "headers_too_large")
    assert_still_serving(api_server)


def test_it_refuses_a_whole_head_over_the_limit_that_came_in_one_read(
    api_server: LiveServer,
) -> None:
    # Complete, and small enough for one read of the server: the head's own size refuses it.
    big = b"X-Big: " + b"a" * (MAX_HEAD_BYTES + 30_000) + b"\r\n"
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + b"\r\n"

    assert_refused(answer_to(api_server, head), 431, "headers_too_large")
    assert_still_serving(api_server)


def test_it_refuses_ten_thousand_headers(api_server: LiveServer) -> None:
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(10_000))
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n"

    assert_refused(answer_to(api_server, head), 431, "headers_too_large")
    assert_still_serving(api_server)


def test_it_refuses_a_url_of_a_hundred_kilobytes(api_server: LiveServer) -> None:
    head = b"GET /api/v1/tables?q=" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    assert_refused(answer_to(api_server, head), 414, "url_too_long")
    assert_still_serving(api_server)


def test_it_refuses_a_head_that_never_ends(api_server: LiveServer) -> None:
    # No end of headers ever comes: the size alone refuses it.
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: " + b"b" * 300_000

    assert_refused(answer_to(api_server, head), 431, "headers_too_large")


def test_it_refuses_a_long_url_before_its_head_ends(api_server: LiveServer) -> None:
    # Under the head's byte limit, with no end of headers: the URL's own limit refuses it.
    head = b"GET /api/v1/tables?q=" + b"a" * (2 * MAX_URL_BYTES) + b" HTTP/1.1\r\nHost: x\r\n"

    assert_refused(answer_to(api_server, head), 414, "url_too_long")


def test_it_refuses_many_small_headers_before_their_head_ends(api_server: LiveServer) -> None:
    # A few kilobytes, far under the byte limit, and no end of headers: the count refuses it.
    many = b"".join(b"X-%d: v\r\n" % i for i in range(2 * MAX_HEADERS))
    head = b"GET /api/v1/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many

    assert_refused(answer_to(api_server, head), 431, "headers_too_large")


def test_it_serves_requests_at_the_limits(api_server: LiveServer) -> None:
    path = "/api/v1/tables?q=" + "a" * (MAX_URL_BYTES - 100)
    headers = {f"X-H{i}": "v" for i in range(MAX_HEADERS - 10)}
    headers["X-Big"] = "b" * (MAX_HEAD_BYTES - 10_000)

    response = httpx.get(api_server.url + path, headers=headers, timeout=10)

    assert response.status_code == 200, response.text[:300]


def test_it_keeps_a_connection_serving_request_after_request(api_server: LiveServer) -> None:
    # The head's count starts again with each request of a kept-alive connection.
    with httpx.Client(base_url=api_server.url, timeout=10) as client:
        for _ in range(40):
            response = client.get("/api/v1/tables", headers={"X-Pad": "p" * 4000})
            assert response.status_code == 200
