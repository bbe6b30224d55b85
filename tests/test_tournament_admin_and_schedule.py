"""Tournaments in the admin, and the beat sweep that starts them at their start time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib import admin
from django.test import Client
from django.utils import timezone

from tests.tournament_helpers import new_tournament, players
from tournaments.models import Tournament
from tournaments.services import entries, running

pytestmark = pytest.mark.django_db


def test_it_shows_a_running_tournament_in_the_admin(admin_client: Client) -> None:
    club = players("adm", 4)
    tournament = new_tournament(club[0], club)
    running.start(club[0], tournament_id=tournament.pk)
    round_id = tournament.round_set.get().pk

    for url in (
        "/admin/tournaments/tournament/",
        f"/admin/tournaments/tournament/{tournament.pk}/change/",
        f"/admin/tournaments/round/{round_id}/change/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
    assert b"Club night" in admin_client.get("/admin/tournaments/tournament/").content


def test_it_moves_the_version_on_with_an_edit_in_the_admin() -> None:
    club = players("admv", 3)
    tournament = new_tournament(club[0], club)
    model_admin = admin.site._registry[Tournament]
    loaded = Tournament.objects.get(pk=tournament.pk)
    entries.register(players("admw", 1)[0], tournament_id=tournament.pk)  # meanwhile
    moved = Tournament.objects.get(pk=tournament.pk).version
    loaded.name = "Renamed"

    model_admin.save_model(None, loaded, None, True)

    saved = Tournament.objects.get(pk=tournament.pk)
    assert saved.name == "Renamed" and saved.version == moved + 1


def test_it_starts_tournaments_whose_start_time_has_come() -> None:
    club = players("due", 3)
    now = timezone.now()
    due = new_tournament(club[0], club, starts_at=now - timedelta(minutes=1))
    later = new_tournament(club[0], club, starts_at=now + timedelta(hours=1))
    empty = new_tournament(club[0], club[:2], starts_at=now - timedelta(minutes=1))

    started = running.start_due_tournaments(now=now)

    assert started == [due.pk]
    assert Tournament.objects.get(pk=due.pk).status == "running"
    assert Tournament.objects.get(pk=later.pk).status == "registering"
    assert Tournament.objects.get(pk=empty.pk).status == "registering"
    assert list(due.audit.values_list("actor", "action"))[-1] == (None, "started")
