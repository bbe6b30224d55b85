"""The lean views (api/lean.py) answer as the REST framework views they replace did: its
headers, its negotiation and body parsing past the common case, and the methods they do
not serve answered by their documentation class."""

from __future__ import annotations

import pytest

from tests.api_client import error_of, register
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_answers_with_the_rest_frameworks_headers_and_negotiation(
    api_server: LiveServer,
) -> None:
    client = register(api_server.url, "lean0")

    me = client.get("/me")
    indented = client.get("/me", headers={"Accept": "application/json; indent=2"})
    as_html = client.get("/me", headers={"Accept": "text/html"})
    # (The REST framework's 404 for a format it has not, which the schema leaves out.)
    other_format = client.http.get("/api/v1/me?format=xml", headers=client.headers())

    assert me.status_code == 200
    assert me.headers["content-type"] == "application/json"
    assert me.headers["allow"] == "GET, HEAD, OPTIONS"
    assert indented.json() == me.json() and b'\n  "username"' in indented.content
    assert error_of(as_html, 406, "not_acceptable")
    assert other_format.status_code == 404


def test_it_leaves_the_methods_it_does_not_serve_to_the_documentation_class(
    api_server: LiveServer,
) -> None:
    client = register(api_server.url, "lean1")

    options = client.request("OPTIONS", "/me")
    put = client.request("PUT", "/me")
    anonymous_put = client.http.request("PUT", "/api/v1/games/1/actions")

    assert options.status_code == 200 and options.json()["name"] == "Me"
    assert error_of(put, 405, "method_not_allowed")
    assert put.headers["allow"] == "GET, HEAD, OPTIONS"
    # As before: the framework authenticates before it looks at the method.
    assert error_of(anonymous_put, 401, "not_authenticated")
    assert anonymous_put.headers["www-authenticate"] == "Token"


def test_it_parses_a_body_by_the_rest_frameworks_rules(api_server: LiveServer) -> None:
    client = register(api_server.url, "lean2")
    path = "/games/999999/actions"

    empty = client.request("POST", path, content=b"")
    latin1 = client.request(
        "POST",
        path,
        content=b'{"type": "pass"}',
        headers={"Content-Type": "application/json; charset=latin-1"},
    )
    not_json = client.request(
        "POST", path, content=b"type=pass", headers={"Content-Type": "text/plain"}
    )
    malformed = client.request(
        "POST", path, content=b'{"type":', headers={"Content-Type": "application/json"}
    )

    # An empty body is {}: an action without its type.
    assert error_of(empty, 400, "illegal_action")["fields"]["type"][0].startswith("Must be one")
    assert error_of(latin1, 404, "not_found")  # decoded, then the game is looked up
    assert error_of(not_json, 415, "unsupported_media_type")
    assert error_of(malformed, 400, "malformed_json")
