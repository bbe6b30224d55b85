"""Display ratings in a browser (docs/web.md "Leaderboard, profiles and bots"): the
leaderboard's rows and a profile's pools carry ``data-rating`` (the display rating, as the
API gives it), with ``?`` after the rating while provisional; both pages screenshot at a
desktop and a phone width."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import BrowserContext

from ratings import services as ratings
from ratings.models import Rating
from tests.api_client import Client
from tests.browser import new_page, screenshots
from tests.rating_helpers import finished_game, new_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

#: Established players of the classic pool: (mu, sigma, games).
ESTABLISHED = [(33.5, 1.6, 212), (29.0, 1.9, 96), (26.2, 2.4, 61), (22.8, 2.1, 80), (17.5, 2.6, 45)]


def test_it_shows_display_ratings_with_a_question_mark_while_provisional(
    api_server: Any, context: BrowserContext
) -> None:
    site = api_server.url
    people = new_players("rated", 3)
    for seed in range(4):
        ratings.rate_game(finished_game(people, seed).pk)
    ratings.rate_game(finished_game(people, 9, rules={"preset": "9-5-2", "max_hands": 1}).pk)
    yesterday = timezone.now() - timedelta(days=1)
    Rating.objects.bulk_create(
        Rating(player=p, pool="classic", mu=mu, sigma=sigma, games=n, last_played_at=yesterday)
        for p, (mu, sigma, n) in zip(new_players("settled", 5), ESTABLISHED, strict=True)
    )
    anyone = Client(api_server.url)
    entries = anyone.ok("GET", "/ratings?pool=classic")["results"]
    entries += anyone.ok("GET", "/ratings?pool=classic&list=provisional")["results"]
    page = new_page(context)

    page.goto(f"{site}/leaderboard?pool=classic")
    rows = page.locator("table.leaderboard tr[data-username]")
    assert rows.count() == len(entries) == 8
    for i, entry in enumerate(entries):
        row = rows.nth(i)
        assert row.get_attribute("data-username") == entry["username"]
        assert row.get_attribute("data-rating") == str(entry["display_rating"])
        shown = row.locator("td.rating").inner_text().strip()
        mark = "?" if entry["provisional"] else ""
        assert shown == f"{entry['display_rating']}{mark}"
    assert sum(e["provisional"] for e in entries) == 3
    screenshots(page, "ratings-leaderboard")

    person = people[0].username
    profile = anyone.ok("GET", f"/players/{person}")["ratings"]
    page.goto(f"{site}/players/{person}")
    pools = page.locator("table.ratings tr[data-pool]")
    assert pools.count() == len(profile) == 2
    for i in range(pools.count()):
        row = pools.nth(i)
        shown = profile[str(row.get_attribute("data-pool"))]
        assert row.get_attribute("data-rating") == str(shown["display_rating"])
        assert row.locator("td.rating").inner_text().strip() == f"{shown['display_rating']}?"
        assert "μ" in row.locator(".rating-details").inner_text()
    assert page.errors == []  # type: ignore[attr-defined]
    screenshots(page, "ratings-profile")
