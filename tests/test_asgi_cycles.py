"""The ASGI server frees each request's objects as it ends, not at a cycle collector's pass.

The collector's full passes over what requests had left paused a server worker for 60-270 ms
under load (see config/asgi.py); these run requests through the server's own ASGI
application, in a process of their own, as uvicorn calls it.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.conftest import ROOT, VENV_BIN, suite_process_env

pytestmark = pytest.mark.django_db(transaction=True)

REQUESTS = """
import asyncio, gc, json

from config.asgi import application  # first: it sets Django up

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from rest_framework.request import Request
from rest_framework.views import APIView


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
    await application(scope, inbox.get, send)
    return sent[0]["status"], json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


async def requests():
    account = {"username": "cycles0", "password": "correct horse battery"}
    registered, body = await call("POST", "/api/v1/accounts/register", account)
    me, _ = await call("GET", "/api/v1/me", token=body["token"])
    table, _ = await call("POST", "/api/v1/tables", {"rules": "classic"}, body["token"])
    refused, _ = await call("POST", "/api/v1/tables", {"rules": "nonsense"}, body["token"])
    return [registered, me, table, refused]


gc.collect()
gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept in gc.garbage, to be named
statuses = asyncio.run(requests())
gc.collect()
of_requests = (HttpRequest, HttpResponseBase, Request, APIView)
left = sorted({type(o).__qualname__ for o in gc.garbage if isinstance(o, of_requests)})
print(json.dumps({"statuses": statuses, "left_to_the_collector": left}))
"""


def run_requests(env: dict[str, str]) -> dict[str, Any]:
    process = subprocess.run(
        [str(VENV_BIN / "python"), "-c", REQUESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 0, process.stderr
    result: dict[str, Any] = json.loads(process.stdout.splitlines()[-1])
    return result


def test_it_leaves_no_request_object_to_the_cycle_collector(django_db_blocker: Any) -> None:
    result = run_requests(suite_process_env(django_db_blocker))

    assert result["statuses"] == [201, 200, 201, 400]
    assert result["left_to_the_collector"] == []
