"""Edge cases found by review: seating errors, NUL characters, long emails, 401 headers,
unknown hosts."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from api.middleware import ApiGuardMiddleware
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_answers_table_full_and_seat_taken_once_every_seat_is_taken(
    api_server: LiveServer,
) -> None:
    ann, bob, cat, dan = (register(api_server.url, f"full{i}") for i in range(4))
    table = ann.ok("POST", "/tables", 201, json={"rules": "classic"})
    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    cat.ok("POST", f"/tables/{table['id']}/join", json={})

    anywhere = dan.post(f"/tables/{table['id']}/join", json={})
    seat_zero = dan.post(f"/tables/{table['id']}/join", json={"seat": 0})

    assert anywhere.status_code == 409
    assert anywhere.json()["error"]["code"] == "table_full"
    assert seat_zero.status_code == 409
    assert seat_zero.json()["error"]["code"] == "seat_taken"


@pytest.mark.parametrize(
    "path",
    ["/players/a%00b", "/players/a%00b/games", "/players/full0/games?rules=a%00b"],
)
def test_it_refuses_nul_characters_in_paths_and_queries(api_server: LiveServer, path: str) -> None:
    client = register(api_server.url, "nul0")

    response = client.get(path)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_it_refuses_nul_characters_in_json_bodies(api_server: LiveServer) -> None:
    client = register(api_server.url, "nul1")

    response = client.post("/tables", json={"rules": "classic\u0000"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_it_refuses_an_email_longer_than_the_column(api_server: LiveServer) -> None:
    response = register(api_server.url, "mail0").http.post(
        "/api/v1/accounts/register",
        json={
            "username": "mail1",
            "password": "correct horse battery",
            "email": "a" * 300 + "@example.org",
        },
    )

    assert response.status_code == 400
    assert "email" in response.json()["error"]["fields"]


def test_it_names_the_token_scheme_on_401(api_server: LiveServer) -> None:
    client = register(api_server.url, "auth0")
    client.token = "smk_not-a-real-token"

    for path in ("/me", "/stream"):
        response = client.get(path)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == "Token"


def test_it_paginates_the_token_list(api_server: LiveServer) -> None:
    client = register(api_server.url, "tok0")

    body = client.ok("GET", "/me/tokens")

    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 1


def test_it_reports_the_time_spent_in_django_in_server_timing(api_server: LiveServer) -> None:
    client = register(api_server.url, "timing0")

    started = time.perf_counter()
    response = client.get("/me")
    measured_ms = (time.perf_counter() - started) * 1000

    name, _, duration = response.headers["Server-Timing"].partition(";dur=")
    assert name == "app"
    assert 0 < float(duration) <= measured_ms


def test_it_refuses_an_unknown_host_on_api_paths_in_the_error_shape(api_server: LiveServer) -> None:
    anyone = Client(api_server.url)
    elsewhere = {"Host": "elsewhere.example"}

    read = anyone.get("/tables", headers=elsewhere)
    write = anyone.post(
        "/accounts/token", json={"username": "a", "password": "b"}, headers=elsewhere
    )
    page = httpx.get(api_server.url + "/", headers=elsewhere)

    error = error_of(read, 400, "invalid_host")
    assert "elsewhere.example" in error["message"]
    error_of(write, 400, "invalid_host")
    # The pages keep Django's own answer.
    assert page.status_code == 400
    assert page.headers["content-type"].startswith("text/html")


def test_it_refuses_an_unknown_host_under_the_whole_middleware_too() -> None:
    # The pages' handler (and the test client) run the API's guard among Django's middleware.
    guard = ApiGuardMiddleware(lambda request: HttpResponse("the view"))
    request = RequestFactory().get("/api/v1/me", HTTP_HOST="elsewhere.example")

    response = guard(request)

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["error"]["code"] == "invalid_host"
