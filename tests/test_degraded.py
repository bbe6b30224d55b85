"""Losing a dependency degrades the platform, never breaks it (issue #31): without Redis the
API still answers (rate limits fail open, /healthz says ``degraded``) and the move clocks
stop; without the database every request is a 503 to retry, with ``Retry-After``.

Redis is taken away by pointing this process's client at a port nobody listens on; the
database, by serving the platform with a database address nobody listens on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import ratelimit
from accounts.services import house_bot, register_player
from bots.services import STALLED_TURN_SECONDS, stalled_house_turns
from core import redis_client
from games.models import Game, GameEvent
from games.timekeeper import RETRY_SECONDS, MoveTimer
from tests.api_client import error_of
from tests.service_games import seated_game
from tests.support import (
    WEB_SERVER,
    clean_env,
    free_port,
    start_process,
    stop_process_group,
    wait_until,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[str]:
    """This process's Redis clients pointed at a port nobody listens on (service mode); yields
    the working URL, to put back."""
    if not settings.REDIS_URL:
        pytest.skip("only service mode uses Redis")
    working = settings.REDIS_URL
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    monkeypatch.setattr(redis_client, "_down_until", 0.0)
    yield working


@pytest.mark.django_db(transaction=True)  # the waiting view reads from another thread
def test_it_serves_the_api_with_rate_limits_open_while_redis_is_down(
    redis_down: str, settings: Any
) -> None:
    settings.RATE_LIMIT_PER_MINUTE = 3
    _, key = register_player("unlimited", password="correct horse battery")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    statuses = [client.get("/api/v1/me").status_code for _ in range(8)]
    table = client.post("/api/v1/tables", {"rules": "classic"}, format="json")
    events = client.get("/api/v1/games/999999/events")

    assert statuses == [200] * 8  # three over the limit, uncounted: the limit fails open
    assert table.status_code == 201, table.content
    error_of(events, 404, "not_found")


def test_it_counts_again_once_redis_is_back(redis_down: str, settings: Any) -> None:
    key = "token:degraded-test"
    assert [ratelimit.hit(key, 1, 60) for _ in range(3)] == [None, None, None]

    settings.REDIS_URL = redis_down  # back (the fixture's settings restore it too)
    redis_client._down_until = 0.0
    ratelimit.reset(key)

    assert ratelimit.hit(key, 1, 60) is None
    assert ratelimit.hit(key, 1, 60) is not None


def test_healthz_says_degraded_with_200_while_redis_is_down(redis_down: str) -> None:
    response = APIClient().get("/healthz")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "degraded"
    assert "redis" in body["failing"] and "database" not in body["failing"]
    assert body["checks"]["redis"]["ok"] is False
    assert body["checks"]["redis"]["error"].startswith("ConnectionError")
    assert body["checks"]["database"]["ok"] is True


def overdue_game(seconds_late: float) -> Game:
    game, _ = seated_game("classic")
    Game.objects.filter(pk=game.pk).update(
        deadline=timezone.now() - timedelta(seconds=seconds_late)
    )
    game.refresh_from_db()
    return game


def timeouts_of(game: Game) -> int:
    return GameEvent.objects.filter(game=game, type="timeout").count()


def test_the_move_timer_charges_no_timeout_while_redis_is_down_and_gives_the_outage_back(
    redis_down: str, settings: Any
) -> None:
    game = overdue_game(seconds_late=2)
    timer = MoveTimer()
    timer.last_up = time.time() - 30  # its last look that found everything up

    assert timer.look() == RETRY_SECONDS  # Redis down: nothing charged
    assert timeouts_of(game) == 0
    deadline_before = Game.objects.get(pk=game.pk).deadline

    settings.REDIS_URL = redis_down
    timer.look()

    deadline_after = Game.objects.get(pk=game.pk).deadline
    assert timeouts_of(game) == 0  # 2 s late when the outage began 30 s ago: 58 s left
    # The outage's 30 s, and as long again to reconnect.
    assert deadline_after - deadline_before >= timedelta(seconds=60)
    assert timer.outage_since is None


def test_the_move_timer_charges_a_timeout_when_nothing_was_down(db: None) -> None:
    game = overdue_game(seconds_late=2)
    timer = MoveTimer()
    timer.last_up = time.time() - 30

    timer.look()

    assert timeouts_of(game) == 1


# --- The database down: a platform served with a database nobody listens on ----------------


@pytest.fixture(scope="module")
def server_without_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("no-database")
    port = free_port()
    env = clean_env(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATA_DIR=str(tmp),
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nothing",
        DB_POOL_TIMEOUT="0.5",  # the 503 comes when the pool gives up: sooner than the 5 s
    )
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    server = start_process(
        [*WEB_SERVER, "--port", str(port)],
        env,
        Path(tmp) / "uvicorn.log",
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: httpx.get(url + "/healthz", timeout=20), timeout=60, what="uvicorn")
        yield url
    finally:
        stop_process_group(server)


TOKEN = {"Authorization": "Token smk_" + "x" * 40}


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/api/v1/tables", {}),
        ("GET", "/api/v1/me", TOKEN),
        ("POST", "/api/v1/accounts/register", {}),
        ("GET", "/api/v1/games/1/events?wait=1", TOKEN),
        ("GET", "/api/v1/stream", TOKEN),
    ],
)
def test_it_answers_503_with_retry_after_while_the_database_is_down(
    server_without_database: str, method: str, path: str, headers: dict[str, str]
) -> None:
    body = {"username": "someone", "password": "correct horse battery"}
    response = httpx.request(
        method,
        server_without_database + path,
        headers=headers,
        json=body if method == "POST" else None,
        timeout=30,
    )

    error = error_of(response, 503, "service_unavailable")
    assert error["retry_after"] == 2
    assert response.headers["Retry-After"] == "2"


def test_a_page_answers_an_html_503_while_the_database_is_down(
    server_without_database: str,
) -> None:
    response = httpx.get(server_without_database + "/", timeout=30)

    assert response.status_code == 503
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["Retry-After"] == "2"
    assert "Back in a moment" in response.text


def test_healthz_says_fail_with_503_while_the_database_is_down(
    server_without_database: str,
) -> None:
    response = httpx.get(server_without_database + "/healthz", timeout=30)

    assert response.status_code == 503
    assert response.json()["status"] == "fail"
    assert "database" in response.json()["failing"]


# --- House-bot turns lost with a killed worker or a broker that was down ---------------------


def waiting_on_house_bot(prefix: str, turn_started_seconds_ago: float) -> Game:
    """A game whose seat to act is played by a house bot, its turn started that long ago
    (and no task sent for it)."""
    game, _ = seated_game("classic", (f"{prefix}a", f"{prefix}b", f"{prefix}c"))
    seat = game.to_act[0]
    game.hand_over_seat(seat, house_bot("house:random"))
    game.deadline = timezone.now() + timedelta(seconds=game.move_seconds - turn_started_seconds_ago)
    game.save(update_fields=["seats", "deadline"])
    return game


def test_it_finds_the_house_bot_turns_that_waited_too_long() -> None:
    stalled = waiting_on_house_bot("old", turn_started_seconds_ago=STALLED_TURN_SECONDS + 2)
    waiting_on_house_bot("new", turn_started_seconds_ago=0.5)  # its task may still be on its way

    assert stalled_house_turns() == [
        (stalled.pk, stalled.to_act[0], stalled.version, "house:random")
    ]
