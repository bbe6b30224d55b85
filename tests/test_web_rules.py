"""The rules page (docs/web.md "The rules"): the rules for people at ``/rules``, an anchor
for every preset of the engine, linked from the top navigation and from every form that
chooses a preset (the lobby's quick play too); and the create-table form, where a bot can never
take the person's seat."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils.html import escape

from accounts.models import Player
from accounts.services import create_person
from games.engine import PRESETS
from games.models import Table
from quickplay.models import Seek
from tests.service_games import seated_game
from web.presets import PRESET_LABELS, PRESET_SUMMARIES
from web.tournament_pages import three_seat_presets

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"
NAV_LINK = '<a href="/rules" data-nav="rules">Rules</a>'


def signed_in(who: Player) -> Client:
    client = Client()
    client.force_login(who)
    return client


def preset_items(page: str) -> dict[str, str]:
    """Each preset choice of a form: its code name -> the HTML of its line."""
    return dict(re.findall(r'<li data-preset="([^"]+)">(.*?)</li>', page, re.S))


def test_it_shows_the_rules_to_a_visitor_with_an_anchor_for_every_preset() -> None:
    response = Client().get("/rules")

    page = response.content.decode()
    assert response.status_code == 200
    for name in PRESETS:
        assert f'id="preset-{name}"' in page, name
        assert f'href="#preset-{name}"' in page, name
        assert escape(PRESET_SUMMARIES[name]) in page, name
    for step in ("deal", "targets", "trumps", "kitty", "tricks", "scoring", "exchange", "end"):
        assert f'id="{step}"' in page, step
    # Facts read from the engine's presets, cards drawn as the table draws them.
    assert "51 (2♣ out), 17 each" in page and "dealer 5, eldest 4, the next 2, the last 2" in page
    assert 'data-card="2H"' in page


def test_it_describes_every_preset_in_one_short_line() -> None:
    assert set(PRESET_SUMMARIES) == set(PRESETS) == set(PRESET_LABELS)
    for name, summary in PRESET_SUMMARIES.items():
        assert "\n" not in summary and len(summary) <= 110, name
    assert len(set(PRESET_LABELS.values())) == len(PRESETS)


def test_it_links_the_rules_from_the_navigation_of_every_page() -> None:
    game, people = seated_game("classic")
    visitor, player = Client(), signed_in(people[0])

    pages = {
        "home": visitor.get("/"),
        "lobby": visitor.get("/lobby"),
        "lobby signed in": player.get("/lobby"),
        "table": player.get(f"/games/{game.pk}"),
        "table watched": visitor.get(f"/games/{game.pk}"),
        "rules": visitor.get("/rules"),
    }

    for name, response in pages.items():
        assert response.status_code == 200, name
        assert NAV_LINK in response.content.decode(), name


def form_of(page: str, form_id: str) -> str:
    (found,) = re.findall(rf'<form [^>]*id="{form_id}"[^>]*>(.*?)</form>', page, re.S)
    return str(found)


def test_it_links_each_preset_choice_of_the_lobby_forms_to_its_rules() -> None:
    client = signed_in(create_person("ann", password=PASSWORD))

    page = client.get("/lobby").content.decode()

    # The create-table form's list, and the same list in quick play's form.
    for form_id, field in (("create-table", "preset"), ("quick-play-form", "quick-preset")):
        items = preset_items(form_of(page, form_id))
        assert list(items) == list(PRESETS), form_id
        for name, item in items.items():
            assert f'type="radio" name="{field}" value="{name}"' in item, name
            assert f'href="/rules#preset-{name}"' in item, name
            assert escape(PRESET_LABELS[name]) in item and escape(PRESET_SUMMARIES[name]) in item
        assert re.search(r'value="classic"[^>]*checked', items["classic"]), form_id


def test_it_seeks_a_quick_play_game_of_the_preset_chosen() -> None:
    ann = create_person("ann", password=PASSWORD)
    form = {"quick-preset": "woburn", "quick-move_seconds": "90", "quick-rated": "on"}

    response = signed_in(ann).post("/quickplay", form)

    seek = Seek.objects.get(player=ann)
    assert response.status_code == 302 and response["Location"] == f"/quickplay/{seek.pk}"
    assert seek.rules["preset"] == "woburn" and seek.move_seconds == 90


def test_it_links_each_preset_choice_of_the_challenge_and_tournament_forms() -> None:
    client = signed_in(create_person("ann", password=PASSWORD))

    challenge = preset_items(client.get("/challenges").content.decode())
    tournament = preset_items(client.get("/tournaments/new").content.decode())

    assert list(challenge) == list(PRESETS)
    assert list(tournament) == three_seat_presets() and "four-handed" not in tournament
    for items in (challenge, tournament):
        for name, item in items.items():
            assert f'href="/rules#preset-{name}"' in item, name
            assert escape(PRESET_SUMMARIES[name]) in item, name


def test_it_refuses_a_bot_in_the_seat_the_creator_chose_for_themself() -> None:
    client = signed_in(create_person("ann", password=PASSWORD))

    response = client.post(
        "/lobby",
        {
            "preset": "classic",
            "move_seconds": "60",
            "my_seat": "2",
            "seat_0": "house:random",
            "seat_1": "house:random",
            "seat_2": "house:strong",
        },
    )

    page = response.content.decode()
    assert response.status_code == 400
    error = re.search(r'<p class="error"[^>]*data-error-for="seat_2">([^<]*)</p>', page)
    assert error is not None
    assert "You sit in seat 2, so a bot cannot sit there too" in error.group(1)
    assert not Table.objects.exists()
    # The same seats with the person elsewhere are taken.
    taken = client.post(
        "/lobby",
        {
            "preset": "classic",
            "move_seconds": "60",
            "my_seat": "2",
            "seat_0": "house:random",
            "seat_1": "house:strong",
        },
    )
    assert taken.status_code == 302
