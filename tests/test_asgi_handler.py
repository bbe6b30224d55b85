"""The ASGI server's API handler (server/handlers.py): one thread crossing a request, and each
request's objects freed as it ends, not at a cycle collector's pass.

The collector's full passes over what requests had left paused a server worker under load,
and each crossing to a request's thread cost CPU; these run requests through the server's
own ASGI application, in a process of their own, as uvicorn calls it. Pages and API
responses alike carry the time the server spent on them (``Server-Timing``).
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from tests.conftest import ROOT, VENV_BIN, suite_process_env

pytestmark = pytest.mark.django_db(transaction=True)

REQUESTS = """
import asyncio, gc, json
from concurrent.futures import ThreadPoolExecutor

from config.asgi import application  # first: it sets Django up
from server.handlers import RequestThread

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from rest_framework.request import Request
from rest_framework.views import APIView


crossings = [0]  # work handed to a thread (asgiref's sync_to_async submits it to one)


def counted(cls, name):
    handed = getattr(cls, name)

    def counting(self, *args, **kwargs):
        crossings[0] += 1
        return handed(self, *args, **kwargs)

    setattr(cls, name, counting)


counted(ThreadPoolExecutor, "submit")
counted(RequestThread, "submit")
counted(RequestThread, "run")


async def call(method, path, body=None, token=None):
    payload = json.dumps(body).encode() if body else b""
    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    inbox = asyncio.Queue()
    inbox.put_nowait({"type": "http.request", "body": payload})
    sent = []

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            inbox.put_nowait({"type": "http.disconnect"})  # as uvicorn, once the response is out

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "http",
        "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    crossings[0] = 0
    await application(scope, inbox.get, send)
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    return sent[0]["status"], body, crossings[0]


async def requests():
    account = {"username": "cycles0", "password": "correct horse battery"}
    registered = await call("POST", "/api/v1/accounts/register", account)
    token = registered[1]["token"]
    return [
        registered,
        await call("GET", "/api/v1/me", token=token),
        await call("POST", "/api/v1/tables", {"rules": "classic"}, token),
        await call("POST", "/api/v1/tables", {"rules": "nonsense"}, token),
        await call("GET", "/api/v1/no-such-path", token=token),
        await call("GET", "/api/v1/games/999999/events", token=token),  # an async view
    ]


gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage, to be named
answers = asyncio.run(requests())
gc.collect()
of_requests = (HttpRequest, HttpResponseBase, Request, APIView)
left = sorted({type(o).__qualname__ for o in gc.garbage if isinstance(o, of_requests)})
print(json.dumps({
    "statuses": [status for status, _, _ in answers],
    "codes": [body.get("error", {}).get("code") for _, body, _ in answers],
    "crossings": [crossed for _, _, crossed in answers],
    "left_to_the_collector": left,
}))
"""


def run_script(script: str, django_db_blocker: Any) -> Any:
    """What ``script`` printed last (JSON), run in a process of its own on the suite's
    database, as uvicorn's worker would import the application."""
    process = subprocess.run(
        [str(VENV_BIN / "python"), "-c", script],
        cwd=ROOT,
        env=suite_process_env(django_db_blocker),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout.splitlines()[-1])


def test_it_leaves_no_request_object_to_the_cycle_collector(django_db_blocker: Any) -> None:
    result = run_script(REQUESTS, django_db_blocker)

    assert result["statuses"] == [201, 200, 201, 400, 404, 404]
    assert result["left_to_the_collector"] == []


def test_it_crosses_to_a_sync_views_thread_once(django_db_blocker: Any) -> None:
    result = run_script(REQUESTS, django_db_blocker)

    # Django's own handler crosses four times: request_started, the view, the rendering
    # and the closing. The async view (events) crosses for its own database work.
    assert result["statuses"] == [201, 200, 201, 400, 404, 404]
    assert result["codes"] == [None, None, None, "invalid_rules", "not_found", "not_found"]
    assert result["crossings"][:5] == [1, 1, 1, 1, 1]
    assert result["crossings"][5] > 1


TIMINGS = """
import asyncio, json

from config.asgi import application  # first: it sets Django up


async def headers_of(path):
    inbox = asyncio.Queue()
    inbox.put_nowait({"type": "http.request", "body": b""})
    sent = []

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            inbox.put_nowait({"type": "http.disconnect"})

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "http",
        "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"accept", b"*/*")],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80),
    }
    await application(scope, inbox.get, send)
    return [sent[0]["status"], [v.decode() for k, v in sent[0]["headers"] if k == b"server-timing"]]


async def main():
    return {path: await headers_of(path) for path in ("/", "/no-such-page", "/api/v1/tables")}


print(json.dumps(asyncio.run(main())))
"""


def test_it_times_pages_and_api_responses_alike(django_db_blocker: Any) -> None:
    answers = run_script(TIMINGS, django_db_blocker)

    # One Server-Timing header each (benchmarks/page_load.py compares a page with the API
    # calls that return the same data by it), on the pages as on the API.
    assert {path: status for path, (status, _) in answers.items()} == {
        "/": 200,
        "/no-such-page": 404,
        "/api/v1/tables": 200,
    }
    for _, timings in answers.values():
        assert len(timings) == 1
        assert re.fullmatch(r"app;dur=\d+\.\d", timings[0])


STREAM = """
import asyncio, gc, json

from config.asgi import application  # first: it sets Django up

from django.http import HttpRequest


def scope_of(method, path, token=None, body=b""):
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "http",
        "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


async def main():
    inbox = asyncio.Queue()
    account = json.dumps({"username": "streamer0", "password": "correct horse battery"}).encode()
    inbox.put_nowait({"type": "http.request", "body": account})
    sent = []

    async def send(message):
        sent.append(message)

    await application(scope_of("POST", "/api/v1/accounts/register", body=account), inbox.get, send)
    token = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))["token"]
    sent.clear()
    inbox.put_nowait({"type": "http.request", "body": b""})
    streaming = asyncio.ensure_future(
        application(scope_of("GET", "/api/v1/stream", token), inbox.get, send)
    )
    for _ in range(200):  # its head and its first line
        if len(sent) > 1:
            break
        await asyncio.sleep(0.05)
    gc.collect()
    requests_held = sum(isinstance(o, HttpRequest) for o in gc.get_objects())
    inbox.put_nowait({"type": "http.disconnect"})
    try:
        await asyncio.wait_for(streaming, 5)
        ended = True
    except asyncio.TimeoutError:
        ended = False
    return {
        "status": sent[0]["status"],
        "requests_held_while_streaming": requests_held,
        "ended_when_the_client_left": ended,
    }


print(json.dumps(asyncio.run(main())))
"""


def test_it_lets_a_stream_go_of_its_request_and_ends_it_when_the_client_leaves(
    django_db_blocker: Any,
) -> None:
    result = run_script(STREAM, django_db_blocker)

    # A stream may stay open for hours: what it keeps is what its connection costs.
    assert result == {
        "status": 200,
        "requests_held_while_streaming": 0,
        "ended_when_the_client_left": True,
    }


WAITERS = """
import asyncio, json, threading

from config.asgi import application  # first: it sets Django up


def scope_of(path):
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "http",
        "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"accept", b"text/event-stream")],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80),
    }


async def main():
    threads_before = threading.active_count()
    inboxes, answers, waiting = [], [], []
    for _ in range(40):  # the home page's list of games being played, in 40 tabs
        inbox = asyncio.Queue()
        inbox.put_nowait({"type": "http.request", "body": b""})
        sent = []

        async def send(message, sent=sent):
            sent.append(message)

        waiting.append(asyncio.ensure_future(application(scope_of("/games/live"), inbox.get, send)))
        inboxes.append(inbox)
        answers.append(sent)
    for _ in range(100):
        if all(len(sent) > 1 for sent in answers):
            break
        await asyncio.sleep(0.05)
    threads_open = threading.active_count()
    for inbox in inboxes:
        inbox.put_nowait({"type": "http.disconnect"})
    await asyncio.wait(waiting, timeout=5)
    return {
        "statuses": sorted({sent[0]["status"] for sent in answers}),
        "threads_more_while_open": threads_open - threads_before,
    }


print(json.dumps(asyncio.run(main())))
"""


def test_it_holds_no_thread_for_a_pages_stream(django_db_blocker: Any) -> None:
    result = run_script(WAITERS, django_db_blocker)

    # The feed's reads, the database pool's and the Redis subscription's threads are
    # shared: a few threads in all, not one a stream (a sync-only middleware in the
    # stream's way held one each).
    assert result["statuses"] == [200]
    assert result["threads_more_while_open"] <= 15, result
