"""Hints on the table during a person's first games, which they may switch off (stored on
the person); none after those games, and none for spectators (server-rendered pages)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from accounts.models import Player
from accounts.services import create_person
from games import tables
from tests.rating_helpers import play_out
from web.views.welcome import LESSON_RULES

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"
COACH = 'data-testid="coach" data-mode="hints"'


def member(name: str) -> tuple[Client, Player]:
    person = create_person(name, password=PASSWORD)
    client = Client()
    assert client.login(username=name, password=PASSWORD)
    return client, person


def test_a_newcomer_gets_hints_and_may_switch_them_off_and_on() -> None:
    client, person = member("newbie")
    game = tables.start_computer_game(person)

    page = client.get(f"/games/{game.pk}").content.decode()
    assert COACH in page and "web/learn.js" in page
    assert 'data-action="hints" aria-pressed="true"' in page
    # A spectator sees none.
    assert COACH not in Client().get(f"/games/{game.pk}").content.decode()

    off = client.post("/hints", {"on": "0", "next": f"/games/{game.pk}"})
    assert off.status_code == 302 and off["Location"] == f"/games/{game.pk}"
    assert Player.objects.get(pk=person.pk).hints is False
    page = client.get(f"/games/{game.pk}").content.decode()
    assert COACH not in page and "web/learn.js" not in page
    assert 'data-action="hints" aria-pressed="false"' in page

    client.post("/hints", {"on": "1", "next": "https://elsewhere.example/"})
    assert Player.objects.get(pk=person.pk).hints is True


def test_hints_stop_after_the_first_games(settings: Any) -> None:
    settings.HINT_GAMES = 2
    client, person = member("regular")
    for seed in range(2):
        finished = tables.start_computer_game(person, rules=LESSON_RULES)
        play_out(finished.pk, random.Random(seed))
    game = tables.start_computer_game(person)

    page = client.get(f"/games/{game.pk}").content.decode()

    assert COACH not in page and 'data-action="hints"' not in page


def test_switching_hints_needs_a_person() -> None:
    response = Client().post("/hints", {"on": "0"})
    assert response.status_code == 302 and response["Location"].startswith("/login")
