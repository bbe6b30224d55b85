"""The Challenges page (docs/web.md "Challenges"): a person's pending challenges in and out
with Accept, Decline and Cancel, the form that challenges players, and the Rematch button of
a finished game, all through the services of the challenges API."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from playwright.sync_api import BrowserContext

from accounts.models import Player
from accounts.services import create_person
from challenges import services
from challenges.models import Challenge
from tests.browser import new_page, screenshots, sign_up
from tests.rating_helpers import finished_game

PASSWORD = "correct horse battery"


def person(username: str) -> Player:
    return create_person(username, password=PASSWORD)


def signed_in(who: Player) -> Client:
    client = Client(REMOTE_ADDR="198.51.100.39")
    client.force_login(who)
    return client


def challenge_ids(page: str) -> list[int]:
    return [int(found) for found in re.findall(r'data-challenge-id="(\d+)"', page)]


@pytest.mark.django_db
def test_it_sends_a_visitor_to_the_login_page() -> None:
    response = Client().get("/challenges")

    assert response.status_code == 302
    assert response["Location"] == "/login?next=/challenges"


@pytest.mark.django_db
def test_it_lists_challenges_in_and_out_and_answers_them() -> None:
    ann, bob, cat = person("wann"), person("wbob"), person("wcat")
    mine = services.create_challenge(ann, to=["wbob", "house:random"], move_seconds=600)
    theirs = services.create_challenge(cat, to=["wann", "wbob"], move_seconds=600)
    page = signed_in(ann)

    shown = page.get("/challenges").content.decode()
    declined = page.post(f"/challenges/{theirs.pk}/decline")
    canceled = page.post(f"/challenges/{mine.pk}/cancel")
    refused = signed_in(bob).post(f"/challenges/{mine.pk}/accept", follow=True)

    assert challenge_ids(shown) == [theirs.pk, mine.pk]
    assert 'data-action="accept"' in shown and 'data-action="cancel"' in shown
    assert declined.status_code == canceled.status_code == 302
    assert Challenge.objects.get(pk=theirs.pk).status == "declined"
    assert Challenge.objects.get(pk=mine.pk).status == "canceled"
    assert "The challenge is canceled." in refused.content.decode()
    assert challenge_ids(page.get("/challenges").content.decode()) == []


@pytest.mark.django_db
def test_it_shows_a_refusal_next_to_the_form() -> None:
    page = signed_in(person("wdan"))

    response = page.post(
        "/challenges",
        {
            "opponent_1": "nobody-at-all",
            "opponent_2": "house:random",
            "preset": "classic",
            "move_seconds": "60",
            "expires_in": "300",
        },
    )

    assert response.status_code == 400
    assert "No player &#x27;nobody-at-all&#x27;." in response.content.decode()
    assert not Challenge.objects.exists()


@pytest.mark.django_db
def test_it_offers_a_rematch_to_the_players_of_a_finished_game_only() -> None:
    ann, bob = person("rmann"), person("rmbob")
    game = finished_game([ann, bob, "house:random"], seed=39)
    olga = person("rmolga")

    seen_by_ann = signed_in(ann).get(f"/games/{game.pk}").content.decode()
    seen_by_olga = signed_in(olga).get(f"/games/{game.pk}").content.decode()
    asked = signed_in(ann).post(f"/challenges/rematch/{game.pk}")

    assert 'data-action="rematch"' in seen_by_ann
    assert 'data-action="rematch"' not in seen_by_olga
    rematch = Challenge.objects.get(rematch_of=game)
    assert asked["Location"] == f"/challenges#challenge-{rematch.pk}"
    seats = [s.player.username for s in rematch.seats.order_by("seat")]
    assert seats == ["rmann", "rmbob", "house:random"]
    refused = signed_in(olga).post(f"/challenges/rematch/{game.pk}", follow=True)
    assert "Only a player of the game asks for a rematch." in refused.content.decode()


@pytest.mark.django_db(transaction=True)
def test_it_challenges_and_accepts_from_the_pages_in_a_browser(
    api_server: Any, celery_worker: Any, context: BrowserContext
) -> None:
    site = str(api_server.url)
    ann = new_page(context)
    sign_up(ann, site, "pwann")
    browser = context.browser
    assert browser is not None
    bobs_context = browser.new_context()
    try:
        bob = new_page(bobs_context)
        sign_up(bob, site, "pwbob")

        ann.goto(f"{site}/challenges")
        ann.fill("input[name=opponent_1]", "pwbob")
        ann.fill("input[name=opponent_2]", "house:heuristic")
        ann.fill("input[name=max_hands]", "1")
        ann.fill("input[name=move_seconds]", "600")
        ann.click("[data-action=challenge]")
        ann.wait_for_url(re.compile(r"/challenges#challenge-\d+$"))
        challenge_id = int(ann.url.rsplit("-", 1)[1])
        row = ann.locator(f"#challenge-{challenge_id}")
        assert row.locator("[data-answer=pending]").inner_text().startswith("pwbob")
        screenshots(ann, "challenges")

        bob.goto(f"{site}/challenges")
        bob.locator(f"#challenge-{challenge_id} [data-action=accept]").click()
        bob.wait_for_url(re.compile(r"/games/\d+$"))
        game_id = int(bob.url.rsplit("/", 1)[1])

        assert bob.locator("main[data-game-id]").get_attribute("data-your-seat") == "1"
        assert Challenge.objects.get(pk=challenge_id).game_id == game_id
        ann.goto(f"{site}/challenges")
        assert ann.locator(f"#challenge-{challenge_id}").count() == 0
        assert not ann.errors and not bob.errors  # type: ignore[attr-defined]
    finally:
        bobs_context.close()


@pytest.mark.django_db
def test_it_shows_challenges_read_only_in_the_admin(admin_client: Client) -> None:
    ann, _ = person("adann"), person("adbob")
    made = services.create_challenge(ann, to=["adbob", "house:random"])

    listed = admin_client.get("/admin/challenges/challenge/")
    shown = admin_client.get(f"/admin/challenges/challenge/{made.pk}/change/")

    assert listed.status_code == shown.status_code == 200
    assert "adbob" in shown.content.decode()
    assert admin_client.get("/admin/challenges/challenge/add/").status_code == 403
