"""A small HTTP client for the suite's API tests, with a leak scanner for hidden cards."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.schema_check import check_response

CARD = re.compile(r"^[2-9TJQKA][CDHS]$")


def cards_in(data: Any) -> set[str]:
    """Every card string anywhere in a JSON value."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if CARD.match(item):
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error object of an API error response, after checking its status and shape."""
    assert response.status_code == status, response.content
    assert response.headers["content-type"].startswith("application/json")
    body = json.loads(response.content)
    assert list(body) == ["error"], body
    error = body["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"], error
    return dict(error)


@dataclass
class Client:
    """One API user: an httpx client with its token; remembers every JSON body it received."""

    base_url: str
    token: str | None = None
    username: str = ""
    received: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.base_url, timeout=30)

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = self.headers(kwargs.pop("headers", None))
        response = self.http.request(method, "/api/v1" + path, headers=headers, **kwargs)
        content_type = response.headers.get("content-type", "")
        check_response(
            method, response.url.path, response.status_code, content_type, response.content
        )
        if content_type.startswith("application/json"):
            self.received.append(response.json())
        return response

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, json=json, **kwargs)

    def ok(self, method: str, path: str, expected: int = 200, **kwargs: Any) -> Any:
        response = self.request(method, path, **kwargs)
        assert response.status_code == expected, (method, path, response.text)
        return response.json() if response.content else None

    def stream_lines(self) -> Iterator[str]:
        with self.http.stream("GET", "/api/v1/stream", headers=self.headers()) as response:
            assert response.status_code == 200
            yield from response.iter_lines()

    def close(self) -> None:
        self.http.close()


def register(base_url: str, username: str, password: str = "correct horse battery") -> Client:
    client = Client(base_url)
    body = client.ok(
        "POST", "/accounts/register", 201, json={"username": username, "password": password}
    )
    client.token = body["token"]
    client.username = username
    return client
