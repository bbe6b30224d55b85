"""Tournaments read players' ratings from the ratings app: entry ranges and seeding."""

from __future__ import annotations

import pytest
from django.utils import timezone

from core.errors import DomainError
from ratings.models import Rating
from tests.tournament_helpers import players
from tournaments import selectors
from tournaments.services import entries, running, setup

pytestmark = pytest.mark.django_db


def test_it_admits_by_rating_range_in_the_tournament_pool() -> None:
    organiser, strong, weak, newcomer = players("ranged", 4)
    now = timezone.now()
    Rating.objects.create(
        player=strong, pool="classic", mu=30, sigma=2, games=40, last_played_at=now
    )
    Rating.objects.create(player=weak, pool="classic", mu=20, sigma=2, games=40, last_played_at=now)
    # A rating in another pool says nothing about this tournament's rules.
    Rating.objects.create(
        player=newcomer, pool="race", mu=40, sigma=1, games=90, last_played_at=now
    )
    tournament = setup.create_tournament(
        organiser,
        values={
            "name": "Top table",
            "rules": "classic",
            "format": "swiss",
            "rounds": 2,
            "min_rating": 20,
        },
    )

    entries.register(strong, tournament_id=tournament.pk)  # ordinal 30 - 3*2 = 24
    for refused in (weak, newcomer):  # ordinal 14; unrated in classic
        with pytest.raises(DomainError) as error:
            entries.register(refused, tournament_id=tournament.pk)
        assert error.value.code == "rating_out_of_range"
    assert selectors.ratings_of([strong, weak, newcomer], {"preset": "classic"}) == {
        strong.pk: pytest.approx(24.0),
        weak.pk: pytest.approx(14.0),
    }


def test_it_shows_entrants_seeding_ratings_as_display_ratings() -> None:
    # The ratings app's display rating, registered by the wiring; none for the unrated.
    assert selectors.display_rating(24.0) == 1500 + 25 * 24
    assert selectors.display_rating(None) is None


def test_it_seeds_and_admits_an_in_person_night_by_in_person_ratings() -> None:
    organiser, table_star, screen_star, newcomer = players("venue", 4)
    now = timezone.now()
    for player, online, in_person in ((table_star, 20, 32), (screen_star, 32, 20)):
        Rating.objects.create(
            player=player, pool="classic", mu=online, sigma=2, games=40, last_played_at=now
        )
        Rating.objects.create(
            player=player, pool="in_person", mu=in_person, sigma=2, games=40, last_played_at=now
        )
    night = setup.create_tournament(
        organiser,
        values={
            "name": "At the Crown",
            "rules": "classic",
            "format": "swiss",
            "rounds": 1,
            "venue": "in_person",
            "min_rating": 20,
        },
    )

    entries.register(table_star, tournament_id=night.pk)  # 32 - 3*2 = 26 at real tables
    for refused in (screen_star, newcomer):  # 14 at real tables; unrated there
        with pytest.raises(DomainError) as error:
            entries.register(refused, tournament_id=night.pk)
        assert error.value.code == "rating_out_of_range"
    night = setup.update_tournament(organiser, tournament_id=night.pk, changes={"min_rating": None})
    for player in (screen_star, newcomer, organiser):
        entries.register(player, tournament_id=night.pk)
    running.start(organiser, tournament_id=night.pk)

    seeded = {e.player_id: (e.seed, e.rating) for e in night.entrants.all()}
    assert seeded[table_star.pk] == (1, pytest.approx(26.0))
    assert seeded[screen_star.pk] == (2, pytest.approx(14.0))
    assert seeded[newcomer.pk][1] is None
