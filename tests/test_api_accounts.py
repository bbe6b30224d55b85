"""Accounts, tokens, scopes and bot accounts over HTTP against the live server (docs/api.md)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.utils import timezone

from accounts.auth import issue_token, token_for_key
from accounts.models import ApiToken, Player
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer
from tests.game_helpers import start_table

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"


def with_token(api_server: LiveServer, token: str) -> Client:
    return Client(api_server.url, token=token)


def tokens_of(client: Client) -> list[dict[str, Any]]:
    """GET /me/tokens, whether it answers a bare list or a page."""
    listed = client.ok("GET", "/me/tokens")
    return list(listed["results"] if isinstance(listed, dict) else listed)


# --- Registration ---------------------------------------------------------------------------


def test_it_registers_a_human_account_with_a_working_token(api_server: LiveServer) -> None:
    anonymous = Client(api_server.url)

    response = anonymous.post(
        "/accounts/register",
        json={"username": "ann", "password": PASSWORD, "email": "ann@example.org"},
    )

    assert response.status_code == 201, response.text
    body = response.json()
    assert body["username"] == "ann"
    assert isinstance(body["token"], str) and len(body["token"]) >= 32
    me = with_token(api_server, body["token"]).ok("GET", "/me")
    assert me["username"] == "ann"
    assert me["is_bot"] is False
    assert me["owner"] is None
    assert me["email"] == "ann@example.org"
    assert sorted(me["scopes"]) == ["organise", "play"]


def test_it_registers_without_an_email(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    assert ann.ok("GET", "/me")["username"] == "ann"


@pytest.mark.parametrize("taken_as", ["ann", "ANN", "Ann"])
def test_it_refuses_a_taken_username_whatever_the_letter_case(
    api_server: LiveServer, taken_as: str
) -> None:
    register(api_server.url, "ann")

    response = Client(api_server.url).post(
        "/accounts/register", json={"username": taken_as, "password": PASSWORD}
    )

    error_of(response, 409, "username_taken")


@pytest.mark.parametrize(
    "password",
    ["short", "1234567", "12345678901234", "password", "annabelle-x"],
    ids=["too-short", "seven-digits", "all-digits", "common", "like-the-username"],
)
def test_it_refuses_a_weak_password_naming_the_field(api_server: LiveServer, password: str) -> None:
    response = Client(api_server.url).post(
        "/accounts/register", json={"username": "annabelle", "password": password}
    )

    error = error_of(response, 400, "invalid")
    assert "password" in error["fields"], error
    assert Client(api_server.url).get("/players/annabelle").status_code == 404


@pytest.mark.parametrize(
    "username",
    ["ab", "has space", "-dash-first", "x" * 31, "house:random", "ann@home", "", None],
    ids=["too-short", "space", "dash-first", "too-long", "house-bot", "at-sign", "empty", "null"],
)
def test_it_refuses_a_bad_username_naming_the_field(api_server: LiveServer, username: Any) -> None:
    response = Client(api_server.url).post(
        "/accounts/register", json={"username": username, "password": PASSWORD}
    )

    error = error_of(response, 400, "invalid")
    assert "username" in error["fields"], error


def test_it_refuses_a_registration_without_a_password(api_server: LiveServer) -> None:
    response = Client(api_server.url).post("/accounts/register", json={"username": "ann"})

    error = error_of(response, 400, "invalid")
    assert "password" in error["fields"], error


# --- Logging in -----------------------------------------------------------------------------


def test_it_logs_in_with_the_right_password_and_returns_a_new_token(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")

    response = Client(api_server.url).post(
        "/accounts/token", json={"username": "ann", "password": PASSWORD}
    )

    assert response.status_code == 200, response.text
    token = response.json()["token"]
    assert token != ann.token
    me = with_token(api_server, token).ok("GET", "/me")
    assert me["username"] == "ann"
    assert sorted(me["scopes"]) == ["organise", "play"]


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "ann", "password": "not the password"},
        {"username": "nobody", "password": PASSWORD},
    ],
    ids=["wrong-password", "unknown-user"],
)
def test_it_refuses_a_login_with_wrong_credentials(
    api_server: LiveServer, credentials: dict[str, str]
) -> None:
    register(api_server.url, "ann")

    response = Client(api_server.url).post("/accounts/token", json=credentials)

    error_of(response, 401, "invalid_credentials")


def test_it_issues_a_login_token_with_only_the_requested_scopes(api_server: LiveServer) -> None:
    register(api_server.url, "ann")
    anonymous = Client(api_server.url)

    token = anonymous.ok(
        "POST",
        "/accounts/token",
        json={"username": "ann", "password": PASSWORD, "scopes": ["organise"]},
    )["token"]

    assert with_token(api_server, token).ok("GET", "/me")["scopes"] == ["organise"]


@pytest.mark.parametrize(
    "scopes", [["bot"], ["play", "bot"], ["admin"], []], ids=["bot", "play-bot", "unknown", "none"]
)
def test_it_refuses_login_scopes_a_human_cannot_have(
    api_server: LiveServer, scopes: list[str]
) -> None:
    register(api_server.url, "ann")

    response = Client(api_server.url).post(
        "/accounts/token", json={"username": "ann", "password": PASSWORD, "scopes": scopes}
    )

    error = error_of(response, 400, "invalid")
    assert "scopes" in error["fields"], error


# --- GET /me and the Authorization header ---------------------------------------------------


def test_it_needs_a_token_for_me(api_server: LiveServer) -> None:
    error_of(Client(api_server.url).get("/me"), 401, "not_authenticated")


def test_it_refuses_an_unknown_token(api_server: LiveServer) -> None:
    register(api_server.url, "ann")

    response = with_token(api_server, "smk_" + "x" * 40).get("/me")

    error_of(response, 401, "invalid_token")


@pytest.mark.parametrize(
    "header",
    ["Bearer {key}", "{key}", "Token", "Token {key} extra", "Basic YW5uOnBhc3N3b3Jk"],
    ids=["bearer", "bare-key", "no-key", "three-parts", "basic"],
)
def test_it_refuses_an_authorization_header_not_of_the_form_token_key(
    api_server: LiveServer, header: str
) -> None:
    ann = register(api_server.url, "ann")

    response = Client(api_server.url).get(
        "/me", headers={"Authorization": header.format(key=ann.token)}
    )

    assert response.status_code == 401, response.text
    assert response.json()["error"]["code"] in ("not_authenticated", "invalid_token")


# --- Several tokens, listing, revocation, storage -------------------------------------------


def test_it_gives_an_account_several_working_tokens(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    created = ann.ok("POST", "/me/tokens", 201, json={"scopes": ["play"], "name": "laptop"})

    laptop = with_token(api_server, created["token"])
    assert created["token"] != ann.token
    assert laptop.ok("GET", "/me")["scopes"] == ["play"]
    assert sorted(ann.ok("GET", "/me")["scopes"]) == ["organise", "play"]


@pytest.mark.parametrize(
    "body",
    [{"scopes": ["bot"]}, {"scopes": []}, {"scopes": ["admin"]}, {}],
    ids=["bot", "empty", "unknown", "missing"],
)
def test_it_refuses_a_new_token_with_scopes_a_human_cannot_have(
    api_server: LiveServer, body: dict[str, Any]
) -> None:
    ann = register(api_server.url, "ann")

    error = error_of(ann.post("/me/tokens", json=body), 400, "invalid")

    assert "scopes" in error["fields"], error


def test_it_lists_tokens_by_prefix_without_showing_any_key(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    second = ann.ok("POST", "/me/tokens", 201, json={"scopes": ["play"], "name": "laptop"})

    response = ann.get("/me/tokens")

    assert response.status_code == 200, response.text
    assert ann.token is not None
    assert ann.token not in response.text
    assert second["token"] not in response.text
    listed = response.json()
    entries = listed["results"] if isinstance(listed, dict) else listed
    assert len(entries) == 2
    for entry in entries:
        assert {"id", "name", "key_prefix", "scopes", "created_at"} <= set(entry)
        assert not {"key", "token", "key_hash"} & set(entry), entry
        assert len(entry["key_prefix"]) < len(ann.token)
    by_name = {entry["name"]: entry for entry in entries}
    assert second["token"].startswith(by_name["laptop"]["key_prefix"])
    assert by_name["laptop"]["scopes"] == ["play"]
    assert any(ann.token.startswith(e["key_prefix"]) for e in entries if e["name"] != "laptop")


def test_it_revokes_one_token_and_keeps_the_others(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    laptop = with_token(
        api_server,
        ann.ok("POST", "/me/tokens", 201, json={"scopes": ["play"], "name": "laptop"})["token"],
    )
    (entry,) = [e for e in tokens_of(ann) if e["name"] == "laptop"]

    response = ann.request("DELETE", f"/me/tokens/{entry['id']}")

    assert response.status_code == 204, response.text
    error_of(laptop.get("/me"), 401, "invalid_token")
    assert ann.ok("GET", "/me")["username"] == "ann"
    assert [e["name"] for e in tokens_of(ann)] == ["registration"]
    error_of(ann.request("DELETE", f"/me/tokens/{entry['id']}"), 404, "not_found")


def test_it_revokes_the_token_in_use(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    (entry,) = tokens_of(ann)

    assert ann.request("DELETE", f"/me/tokens/{entry['id']}").status_code == 204

    error_of(ann.get("/me"), 401, "invalid_token")


def test_it_does_not_let_one_account_revoke_another_accounts_token(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    bob = register(api_server.url, "bob")
    (bobs,) = tokens_of(bob)

    error_of(ann.request("DELETE", f"/me/tokens/{bobs['id']}"), 404, "not_found")

    assert bob.ok("GET", "/me")["username"] == "bob"


def test_it_stores_only_the_sha256_of_a_key(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    key = ann.token
    assert key is not None

    (row,) = ApiToken.objects.filter(player__username="ann")

    assert row.key_hash != key
    assert row.key_hash == hashlib.sha256(key.encode()).hexdigest()
    for field in ApiToken._meta.concrete_fields:
        assert key not in str(getattr(row, field.attname)), field.name


# --- Scopes ---------------------------------------------------------------------------------


def test_it_refuses_play_with_an_organise_only_token(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    organiser = with_token(
        api_server,
        Client(api_server.url).ok(
            "POST",
            "/accounts/token",
            json={"username": "cat", "password": PASSWORD, "scopes": ["organise"]},
        )["token"],
    )
    table = ann.ok("POST", "/tables", 201, json={"rules": "classic", "move_seconds": 600})

    error = error_of(
        organiser.post("/tables", json={"rules": "classic"}), 403, "insufficient_scope"
    )
    assert error["required_scope"] == "play"
    error_of(organiser.post(f"/tables/{table['id']}/join", json={}), 403, "insufficient_scope")

    bob.ok("POST", f"/tables/{table['id']}/join", json={})
    game_id = cat.ok("POST", f"/tables/{table['id']}/join", json={})["game"]
    view = cat.ok("GET", f"/games/{game_id}")
    assert view["your_seat"] == 2
    action = dict(view["legal_actions"][0]) if view["legal_actions"] else {"type": "pass"}
    before = view["version"]

    response = organiser.post(f"/games/{game_id}/actions", json=action)

    error_of(response, 403, "insufficient_scope")
    assert cat.ok("GET", f"/games/{game_id}")["version"] == before
    assert organiser.ok("GET", "/me")["scopes"] == ["organise"]


# --- Bot accounts ---------------------------------------------------------------------------


def test_it_creates_a_poll_bot_owned_by_its_creator(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    created = ann.ok("POST", "/bots", 201, json={"username": "annbot", "mode": "poll"})

    assert created["username"] == "annbot"
    assert isinstance(created["token"], str) and created["token"] != ann.token
    assert "webhook_secret" not in created
    bot = with_token(api_server, created["token"])
    me = bot.ok("GET", "/me")
    assert me["username"] == "annbot"
    assert me["is_bot"] is True
    assert me["owner"] == "ann"
    assert sorted(me["scopes"]) == ["bot", "play"]
    assert ann.ok("GET", "/me")["bots"] == ["annbot"]
    profile = Client(api_server.url).ok("GET", "/players/annbot")
    assert profile["is_bot"] is True
    assert profile["owner"] == "ann"


def test_it_creates_a_webhook_bot_with_a_secret(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    created = ann.ok(
        "POST",
        "/bots",
        201,
        json={"username": "hookbot", "mode": "webhook", "webhook_url": "https://example.org/hook"},
    )

    assert created["username"] == "hookbot"
    assert isinstance(created["webhook_secret"], str) and len(created["webhook_secret"]) >= 16
    me = with_token(api_server, created["token"]).ok("GET", "/me")
    assert me["is_bot"] is True
    assert me["owner"] == "ann"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"username": "hookbot", "mode": "webhook"}, "webhook_url"),
        ({"username": "hookbot", "mode": "webhook", "webhook_url": ""}, "webhook_url"),
        ({"username": "hookbot", "mode": "webhook", "webhook_url": "not a url"}, "webhook_url"),
        ({"username": "hookbot", "mode": "carrier-pigeon"}, "mode"),
        ({"username": "h", "mode": "poll"}, "username"),
    ],
    ids=["no-url", "blank-url", "bad-url", "bad-mode", "bad-username"],
)
def test_it_refuses_a_bot_with_bad_fields(
    api_server: LiveServer, body: dict[str, Any], field: str
) -> None:
    ann = register(api_server.url, "ann")

    error = error_of(ann.post("/bots", json=body), 400, "invalid")

    assert field in error["fields"], error
    assert Client(api_server.url).get(f"/players/{body['username']}").status_code == 404


def test_it_refuses_a_bot_username_taken_by_a_human_in_another_case(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    register(api_server.url, "bob")

    error_of(ann.post("/bots", json={"username": "BOB", "mode": "poll"}), 409, "username_taken")


def test_it_does_not_let_a_bot_create_bots(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    bot = with_token(api_server, ann.ok("POST", "/bots", 201, json={"username": "annbot"})["token"])

    response = bot.post("/bots", json={"username": "botbot", "mode": "poll"})

    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] in ("bots_cannot_own_bots", "insufficient_scope")
    assert Client(api_server.url).get("/players/botbot").status_code == 404


def test_it_needs_a_token_to_create_a_bot(api_server: LiveServer) -> None:
    response = Client(api_server.url).post("/bots", json={"username": "annbot"})

    error_of(response, 401, "not_authenticated")


def test_it_does_not_let_a_bot_log_in_with_a_password(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    ann.ok("POST", "/bots", 201, json={"username": "annbot"})

    response = Client(api_server.url).post(
        "/accounts/token", json={"username": "annbot", "password": PASSWORD}
    )

    error_of(response, 401, "invalid_credentials")


def test_it_does_not_give_a_bot_token_the_organise_scope(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    bot = with_token(api_server, ann.ok("POST", "/bots", 201, json={"username": "annbot"})["token"])

    error_of(bot.post("/me/tokens", json={"scopes": ["organise"]}), 400, "invalid")

    spare = bot.ok("POST", "/me/tokens", 201, json={"scopes": ["play", "bot"]})["token"]
    assert with_token(api_server, spare).ok("GET", "/me")["username"] == "annbot"


def test_it_lets_a_bot_token_sit_at_a_table(api_server: LiveServer) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    bot = with_token(api_server, ann.ok("POST", "/bots", 201, json={"username": "annbot"})["token"])
    game_id = start_table(ann, [bob, bot])

    view = bot.ok("GET", f"/games/{game_id}")

    assert view["your_seat"] == 2
    assert view["seats"][2] == {"seat": 2, "username": "annbot", "is_bot": True}


def test_it_refuses_the_tokens_of_a_deactivated_account(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    bob = register(api_server.url, "bob")
    Player.objects.filter(username="ann").update(is_active=False)

    error_of(ann.get("/me"), 401, "invalid_token")
    assert bob.ok("GET", "/me")["username"] == "bob"


def test_it_finds_a_live_token_with_its_player_and_no_other() -> None:
    ann = Player.objects.create_user("ann", password=PASSWORD)
    bob = Player.objects.create_user("bob", password=PASSWORD)
    token, key = issue_token(ann, ["play"])
    _, bobs_key = issue_token(bob, ["play"])

    found = token_for_key(key)

    assert found is not None and found.pk == token.pk
    assert found.player.username == "ann" and found.scopes == ["play"]
    assert token_for_key(bobs_key).player.username == "bob"  # type: ignore[union-attr]
    assert token_for_key(key + "x") is None
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert token_for_key(key) is None
