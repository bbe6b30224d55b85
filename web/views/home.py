"""The start page: what the site is, your games waiting on you, open tables, games being
played (kept current by the page's script from :func:`games_in_play_live`), the top of the
leaderboard, tournaments running and upcoming."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_safe

from games import in_play
from games import selectors as games
from ratings import selectors as ratings
from tournaments import selectors as tournaments
from web.people import first_welcome, signed_in

HOME_LIST_LENGTH = 8


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    playing, playing_version = in_play.shown()
    context = {
        "new_person": person is not None and first_welcome(request),
        "waiting": games.games_waiting_on(person) if person else [],
        "my_games": games.games_of(person, HOME_LIST_LENGTH) if person else [],
        "open_tables": [games.table_data(t) for t in games.tables("open")[:HOME_LIST_LENGTH]],
        "playing": playing,
        "playing_version": playing_version,
        "leaders": ratings.leaderboard("classic")[:HOME_LIST_LENGTH],
        "tournaments": [
            tournaments.tournament_summary(t)
            for status in ("running", "registering")
            for t in tournaments.tournaments(status)[:HOME_LIST_LENGTH]
        ],
    }
    return render(request, "web/home.html", context)


def in_play_fragment(playing: list[dict[str, Any]], version: int) -> str:
    """The list of the games being played, as the home page shows it to anyone: what the
    list's live feed sends to every home page (games.in_play.FRAGMENTS)."""
    context = {"playing": playing, "playing_version": version}
    return render_to_string("web/_in_play.html", context)


def list_resume_point(request: HttpRequest) -> int | None:
    """The list's mark the page shows (``Last-Event-ID``, else ``after``); anything else
    counts as none: the page is sent the list. For the live lists of the pages (this one's,
    the challenges page's), whose marks are fingerprints."""
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after") or ""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 10 else None


@require_GET
async def games_in_play_live(request: HttpRequest) -> HttpResponse:
    """``GET /games/live``: the home page's list of the games being played, as Server-Sent
    Events, a message each time it changes; one feed for all the pages (games.in_play)."""
    subscriber = await in_play.follow(list_resume_point(request))
    response = StreamingHttpResponse(in_play.sse(subscriber), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response
