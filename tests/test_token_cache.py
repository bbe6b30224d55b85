"""Each web process keeps the live tokens it authenticated (accounts/token_cache.py): a token
that stops working, or whose account changes, is forgotten by every web process at once;
nothing a lookup read before a revocation is kept after it; nothing is trusted while the
process may miss announcements (its Redis subscription down, or no Redis at all)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import auth
from accounts.auth import authenticate_header, hash_key, issue_token
from accounts.models import ApiToken, Player
from accounts.services import revoke_token
from accounts.token_cache import Entry, TokenCache, bump_versions, tokens
from core.errors import NotAuthenticated
from realtime import hub
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, serving_api
from tests.support import free_port, wait_until
from tests.test_api_errors import assert_rate_limited, fresh_rate_limit
from tests.test_token_revocation import END_WITHIN_SECONDS, StreamReader

pytestmark = pytest.mark.django_db(transaction=True)


def service_mode_only() -> None:
    if not settings.REDIS_URL:
        pytest.skip("web processes keep tokens in service mode only")


@pytest.fixture(scope="module")
def keeping_server(django_db_setup: Any, django_db_blocker: Any) -> Iterator[LiveServer]:
    """A second web process that would trust what it keeps for five minutes: what it
    answers at once after a change is the announcement's doing, not an entry's end."""
    service_mode_only()
    with serving_api(django_db_blocker, "uvicorn-keeping.log", TOKEN_CACHE_SECONDS="300") as s:
        yield s


def kept(client: Client) -> Client:
    """``client``, once its server keeps its token: a change that announces nothing (a bulk
    update) then goes unseen there."""

    def keeps() -> bool:
        client.ok("GET", "/me")
        email = f"{uuid.uuid4().hex[:8]}@example.com"
        Player.objects.filter(username=client.username).update(email=email)
        return bool(client.ok("GET", "/me")["email"] != email)

    wait_until(keeps, timeout=20, what="the server to keep the token")
    return client


def token_id_of(client: Client) -> int:
    return int(ApiToken.objects.get(key_hash=hash_key(client.token or "")).pk)


def test_it_refuses_a_token_revoked_through_another_web_process_at_once(
    api_server: LiveServer, keeping_server: LiveServer
) -> None:
    on_keeper = kept(register(keeping_server.url, "kcrev"))
    elsewhere = Client(api_server.url, token=on_keeper.token, username=on_keeper.username)

    elsewhere.ok("DELETE", f"/me/tokens/{token_id_of(on_keeper)}", 204)

    error_of(on_keeper.get("/me"), 401, "invalid_token")


def test_it_refuses_a_deactivated_account_at_once_and_ends_its_streams(
    keeping_server: LiveServer,
) -> None:
    gone = kept(register(keeping_server.url, "kcgone"))
    staying = kept(register(keeping_server.url, "kcstay"))
    reader = StreamReader(keeping_server.url, gone.token or "")
    wait_until(lambda: reader.status == 200, timeout=10, what="the stream to open")
    time.sleep(0.5)  # the stream waits now (its first look done)

    player = Player.objects.get(username="kcgone")
    player.is_active = False
    player.save()  # as the admin does
    deactivated_at = time.monotonic()

    error_of(gone.get("/me"), 401, "invalid_token")
    assert staying.ok("GET", "/me")["username"] == "kcstay"
    ended = reader.wait_for_end(10)
    assert ended is not None, "the stream stayed open after its account was deactivated"
    assert ended - deactivated_at < END_WITHIN_SECONDS, ended - deactivated_at


def test_it_shows_an_account_saved_elsewhere_at_once(keeping_server: LiveServer) -> None:
    client = kept(register(keeping_server.url, "kcedit"))

    player = Player.objects.get(username="kcedit")
    player.email = "edited@example.com"
    player.save()

    assert client.ok("GET", "/me")["email"] == "edited@example.com"


@pytest.fixture
def subscribed(settings: Any) -> None:
    """This process hears every change made elsewhere, and would keep an entry five
    minutes (so that none ends during a test)."""
    service_mode_only()
    settings.TOKEN_CACHE_SECONDS = 300
    hub.start_hearing_changes_elsewhere()
    wait_until(hub.hears_changes_elsewhere, timeout=10, what="the subscription")


def test_it_authenticates_a_kept_token_without_a_query(subscribed: None) -> None:
    player = Player.objects.create_user("kcquery", password="correct horse battery")
    token, key = issue_token(player, ["play"])

    with CaptureQueriesContext(connection) as first:
        authenticate_header(f"Token {key}")
    with CaptureQueriesContext(connection) as later:
        found = [authenticate_header(f"Token {key}") for _ in range(3)]

    assert len(first) == 2  # the lookup, and last_used_at written
    assert len(later) == 0
    assert all(p.username == "kcquery" and t.pk == token.pk for p, t in found)
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_it_looks_again_once_a_change_moved_the_version_before_its_wake_up(
    subscribed: None,
) -> None:
    """Another process's change reaches this one as a wake-up a little after that change's
    answer; the token's version in Redis moved on before it: a request in between already
    looks the token up again."""
    player = Player.objects.create_user("kcversion", password="correct horse battery")
    token, key = issue_token(player, ["play"])
    assert authenticates(key)
    with CaptureQueriesContext(connection) as kept_one:
        assert authenticates(key)
    assert len(kept_one) == 0

    # As the other process does it, without the wake-up: a change nothing announced here,
    # then the version moved on.
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    bump_versions([token.pk])

    assert not authenticates(key)


def redis_round_trips_of(act: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times ``act`` writes to Redis and waits (a pipeline's commands go in one)."""
    trips = 0
    send = redis.connection.AbstractConnection.send_packed_command

    def record(connection: Any, *args: Any, **options: Any) -> Any:
        nonlocal trips
        if threading.current_thread().name != "pubsub-listener":
            trips += 1
        return send(connection, *args, **options)

    with monkeypatch.context() as patched:
        patched.setattr(redis.connection.AbstractConnection, "send_packed_command", record)
        act()
    return trips


def test_it_reads_a_kept_tokens_version_in_the_rate_limits_round_trip(
    subscribed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = Player.objects.create_user("kctrip", password="correct horse battery")
    _, key = issue_token(player, ["play"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me").status_code == 200  # kept from now on

    def me() -> None:
        assert client.get("/api/v1/me").status_code == 200

    assert redis_round_trips_of(me, monkeypatch) == 1


@pytest.mark.parametrize("moved", [False, True], ids=["kept", "version-moved"])
def test_it_counts_a_request_with_a_kept_token_once(
    subscribed: None, settings: Any, moved: bool
) -> None:
    settings.RATE_LIMIT_PER_MINUTE = 3
    player = Player.objects.create_user(f"kconce{int(moved)}", password="correct horse battery")
    token, key = issue_token(player, ["play"])
    fresh_rate_limit(f"token:{token.pk}")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert client.get("/api/v1/me").status_code == 200
    if moved:  # the next request finds its kept entry out of date and looks it up again
        bump_versions([token.pk])
    assert client.get("/api/v1/me").status_code == 200
    assert client.get("/api/v1/me").status_code == 200

    assert_rate_limited(client.get("/api/v1/me"))


def authenticates(key: str) -> bool:
    """Whether a request with ``key`` gets in (from a kept entry when there is one)."""
    try:
        return authenticate_header(f"Token {key}") is not None
    except NotAuthenticated:
        return False


def revoke_in_thread(player: Player, token_id: int) -> None:
    def revoke() -> None:
        try:
            revoke_token(player, token_id=token_id)
        finally:
            connection.close()  # this thread's own connection

    worker = threading.Thread(target=revoke)
    worker.start()
    worker.join(10)


def test_it_keeps_nothing_a_lookup_read_before_a_revocation_it_overlapped(
    subscribed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = Player.objects.create_user("kcrace", password="correct horse battery")
    token, key = issue_token(player, ["play"])
    look_up = auth._live_token_where

    def revoked_meanwhile(column: str, value: object) -> ApiToken | None:
        found = look_up(column, value)  # read live...
        revoke_in_thread(player, token.pk)  # ...and revoked, and forgotten, before it is kept
        return found

    monkeypatch.setattr(auth, "_live_token_where", revoked_meanwhile)
    assert authenticates(key)  # the request in flight had found it live
    monkeypatch.setattr(auth, "_live_token_where", look_up)

    assert not authenticates(key)


def test_it_trusts_nothing_kept_while_its_subscription_is_down(
    subscribed: None, settings: Any
) -> None:
    player = Player.objects.create_user("kcdown", password="correct horse battery")
    token, key = issue_token(player, ["play"])
    assert authenticates(key)
    assert tokens.get(hash_key(key)) is not None
    working_url = settings.REDIS_URL
    admin = redis.Redis.from_url(working_url)
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # where it would subscribe again
    for listener in [c for c in admin.client_list() if c["name"] == hub.listener_name()]:
        admin.client_kill_filter(_id=listener["id"])
    wait_until(lambda: not hub.hears_changes_elsewhere(), timeout=10, what="the drop")

    # Revoked without an announcement: only the database knows.
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert not authenticates(key)
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=None)
    assert authenticates(key)  # looked up, not kept
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())

    settings.REDIS_URL = working_url
    wait_until(hub.hears_changes_elsewhere, timeout=10, what="the subscription again")
    # What was kept before the drop was forgotten when it came back.
    assert not authenticates(key)


def test_it_keeps_no_token_without_redis(api_server: LiveServer) -> None:
    """The embedded default: a change made by any process (here, one announcing nothing)
    is refused at once, as every request looks its token up."""
    if settings.REDIS_URL:
        pytest.skip("the embedded default only")
    client = register(api_server.url, "kcembed")
    client.ok("GET", "/me")
    player = Player.objects.get(username="kcembed")
    _, key = issue_token(player, ["play"])
    assert authenticates(key) and authenticates(key)

    assert len(tokens) == 0
    Player.objects.filter(pk=player.pk).update(is_active=False)
    error_of(client.get("/me"), 401, "invalid_token")


def test_it_keeps_at_most_its_bound_least_recently_used_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("accounts.token_cache.MAX_TOKENS", 3)
    cache = TokenCache()
    cache.is_current = lambda: True

    def entry(token_id: int) -> Entry:
        return Entry(token_id, [], [], time.monotonic() + 60, 0.0, None)

    for number in range(3):
        cache.put(f"h{number}", entry(number), cache.generation)
    assert cache.get("h0") is not None  # used: now the most recent
    cache.put("h3", entry(3), cache.generation)
    cache.put("h4", entry(4), cache.generation)

    assert len(cache) == 3
    assert [cache.get(f"h{n}") is not None for n in range(5)] == [True, False, False, True, True]
    cache.forget([3])
    assert cache.get("h3") is None and len(cache) == 2
