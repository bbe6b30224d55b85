"""My bots (docs/web.md "Leaderboard, profiles and bots"): a person's own bot accounts, and
the form that creates one through the service of ``POST /api/v1/bots``. The new bot's token
is shown once, on the answer to the form, and works against the API at once."""

from __future__ import annotations

import html
import re
import tomllib

import pytest
import sergeant_sdk
from django.test import Client

from accounts.models import Player
from accounts.services import create_person
from bots.models import BotAccount
from bots.services import create_bot_account
from ratings import services as ratings
from tests.rating_helpers import finished_game
from tests.support import ROOT

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def person(username: str) -> Player:
    return create_person(username, password=PASSWORD)


def signed_in(who: Player) -> Client:
    client = Client(REMOTE_ADDR="198.51.100.32")
    client.force_login(who)
    return client


def token_on(page: str) -> str:
    (token,) = re.findall(r'<input id="bot-token"[^>]*value="([^"]+)"', page)
    return html.unescape(token)


def listed_bots(page: str) -> list[str]:
    return [html.unescape(name) for name in re.findall(r'data-bot="([^"]+)"', page)]


def test_it_sends_a_visitor_to_the_login_page_and_back() -> None:
    response = Client().get("/bots")

    assert response.status_code == 302
    assert response["Location"] == "/login?next=/bots"
    assert Client().post("/bots", {"username": "sneaky", "mode": "poll"}).status_code == 302
    assert not Player.objects.filter(username="sneaky").exists()


def test_it_creates_a_bot_and_shows_its_token_once() -> None:
    owner = person("maker")
    client = signed_in(owner)

    response = client.post("/bots", {"username": "maker-bot", "mode": "poll", "webhook_url": ""})

    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-created-bot="maker-bot"' in page
    token = token_on(page)
    assert "no-store" in response["Cache-Control"]
    assert "data-webhook-secret" not in page
    bot = Player.objects.get(username="maker-bot")
    assert (bot.is_bot, bot.owner) == (True, owner)
    assert BotAccount.objects.get(player=bot).mode == "poll"
    assert "maker-bot" in listed_bots(page)

    me = Client().get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {token}")
    assert me.status_code == 200, me.content
    assert (me.json()["username"], me.json()["is_bot"], me.json()["owner"]) == (
        "maker-bot",
        True,
        "maker",
    )

    again = client.get("/bots")
    assert again.status_code == 200
    later = again.content.decode()
    assert token not in later
    assert "bot-token" not in later
    assert listed_bots(later) == ["maker-bot"]
    assert token not in str(dict(client.session))


def next_steps_on(page: str) -> str:
    found = re.search(r'<section class="next-steps".*?</section>', page, re.S)
    assert found is not None, "no next steps on the page"
    return found.group(0)


def code_block(section: str, name: str) -> str:
    (code,) = re.findall(rf"<code {name}>(.*?)</code>", section, re.S)
    return html.unescape(code)


def test_it_shows_the_next_steps_with_a_new_bots_token() -> None:
    client = signed_in(person("stepper"))

    page = client.post("/bots", {"username": "stepper-bot", "mode": "poll"}).content.decode()

    steps = next_steps_on(page)
    token = token_on(page)
    # The SDK's install line names its real package and where it is.
    sdk = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())["project"]["name"]
    install = code_block(steps, "data-sdk-install")
    assert "pip install ./sdk" in install and f"{sdk} @ git+" in install
    # A complete bot: valid Python, short, calling only what the SDK has.
    bot = code_block(steps, "data-first-bot")
    compile(bot, "mybot.py", "exec")
    assert len(bot.strip().splitlines()) < 40
    (imported,) = re.findall(r"^from sergeant_sdk import (.+)$", bot, re.M)
    assert all(hasattr(sergeant_sdk, name.strip()) for name in imported.split(","))
    calls = set(re.findall(r"\bclient\.(\w+)\(", bot))
    assert {"arena_join", "stream", "act"} <= calls
    assert all(callable(getattr(sergeant_sdk.Client, name, None)) for name in calls)
    # How to run it, with this bot's token and this site's address.
    assert code_block(steps, "data-run-bot") == f"python mybot.py http://testserver {token}"
    # The arena, the lobby, the API reference and the rules: each link answers.
    links = dict(re.findall(r'<a href="([^"]+)" data-link="([\w-]+)"', steps))
    assert sorted(links.values()) == ["api-docs", "arena", "lobby", "rules"]
    assert "docs/bots.md" in steps and "sdk/README.md" in steps
    for href in links:
        assert client.get(html.unescape(href)).status_code == 200, href


def test_it_shows_no_next_steps_without_a_new_bot() -> None:
    page = signed_in(person("idle")).get("/bots").content.decode()

    assert 'class="next-steps"' not in page


def test_it_shows_a_webhook_bots_secret_once_too() -> None:
    client = signed_in(person("hooker"))

    page = client.post(
        "/bots",
        {"username": "hook-bot", "mode": "webhook", "webhook_url": "https://127.0.0.1:9/turn"},
    ).content.decode()

    account = BotAccount.objects.get(player__username="hook-bot")
    assert account.mode == "webhook" and account.webhook_url == "https://127.0.0.1:9/turn"
    (secret,) = re.findall(r'<input id="bot-secret"[^>]*value="([^"]+)"', page)
    assert html.unescape(secret) == account.webhook_secret
    assert account.webhook_secret not in client.get("/bots").content.decode()


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"username": "x", "mode": "poll"}, "username"),
        ({"username": "has space", "mode": "poll"}, "username"),
        ({"username": "no-url-bot", "mode": "webhook", "webhook_url": ""}, "webhook_url"),
        ({"username": "bad-url-bot", "mode": "webhook", "webhook_url": "not a url"}, "webhook_url"),
        ({"username": "odd-mode-bot", "mode": "telepathy"}, "mode"),
    ],
)
def test_it_shows_a_refusal_next_to_the_field(form: dict[str, str], field: str) -> None:
    client = signed_in(person("careful"))

    response = client.post("/bots", form)

    assert response.status_code == 400
    page = response.content.decode()
    assert f'data-error-for="{field}"' in page
    assert "bot-token" not in page
    assert not Player.objects.filter(is_bot=True, owner__username="careful").exists()


def test_it_refuses_a_taken_name_next_to_the_username() -> None:
    person("taken-name")
    client = signed_in(person("latecomer"))

    response = client.post("/bots", {"username": "Taken-Name", "mode": "poll"})

    assert response.status_code == 400
    assert 'data-error-for="username"' in response.content.decode()


def test_it_lists_only_the_persons_own_bots_with_ratings_and_recent_games() -> None:
    ann, bob = person("owner-ann"), person("owner-bob")
    ann_bot, _ = create_bot_account(ann, username="ann-bot", mode="poll", webhook_url="")
    create_bot_account(bob, username="bob-bot", mode="poll", webhook_url="")
    game = finished_game([ann, bob, ann_bot.player], seed=1)
    ratings.rate_game(game.pk)

    page = signed_in(ann).get("/bots").content.decode()

    assert listed_bots(page) == ["ann-bot"]
    assert "bob-bot" not in page
    card = re.search(r'data-bot="ann-bot".*?</article>', page, re.S)
    assert card is not None
    assert 'href="/players/ann-bot"' in card.group(0)
    assert re.search(r'<tr data-pool="classic" data-rating="\d+">', card.group(0))
    assert f'data-game-id="{game.pk}"' in card.group(0)
    assert f'href="/games/{game.pk}"' in card.group(0)
    assert listed_bots(signed_in(bob).get("/bots").content.decode()) == ["bob-bot"]


def test_it_refuses_a_form_without_the_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(person("guarded"))

    response = client.post("/bots", {"username": "forged-bot", "mode": "poll"})

    assert response.status_code == 403
    assert not Player.objects.filter(username="forged-bot").exists()
