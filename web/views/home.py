"""The start page: what the site is, your games waiting on you, open tables, games being
played, the top of the leaderboard, tournaments running and upcoming."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from games import selectors as games
from ratings import selectors as ratings
from tournaments import selectors as tournaments
from web.people import signed_in

HOME_LIST_LENGTH = 8


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    context = {
        "waiting": games.games_waiting_on(person) if person else [],
        "my_games": games.games_of(person, HOME_LIST_LENGTH) if person else [],
        "open_tables": [games.table_data(t) for t in games.tables("open")[:HOME_LIST_LENGTH]],
        "playing": games.games_in_play(HOME_LIST_LENGTH),
        "leaders": ratings.leaderboard("classic")[:HOME_LIST_LENGTH],
        "tournaments": [
            tournaments.tournament_summary(t)
            for status in ("running", "registering")
            for t in tournaments.tournaments(status)[:HOME_LIST_LENGTH]
        ],
    }
    return render(request, "web/home.html", context)
