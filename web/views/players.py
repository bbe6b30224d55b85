"""The leaderboard of a rating pool and a player's profile: ratings per pool with a chart of
the rating over time, and the match history with its filters and pages."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.errors import Invalid, NotFound
from games import selectors as games
from ratings import selectors as ratings
from ratings.display import NEWCOMER_DISPLAY, display_text
from ratings.pools import DEFAULT_POOL, POOL_PRESETS
from ratings.skill import PROVISIONAL_GAMES
from web.charts import LineChart, Point, line_chart
from web.player_forms import HistoryFilterForm, pool_choices

#: As the API's lists (docs/api.md): a page of the leaderboard costs what a page of the API does.
LEADERBOARD_PAGE_SIZE = 50
HISTORY_PAGE_SIZE = 25


def query(params: QueryDict, **changes: Any) -> str:
    """``params`` with ``changes`` (None drops a key), as a query string for a link."""
    copy = params.copy()
    for key, value in changes.items():
        copy.pop(key, None)
        if value not in (None, ""):
            copy[key] = str(value)
    for key in [k for k, v in copy.items() if v == ""]:
        copy.pop(key)
    encoded = copy.urlencode()
    return f"?{encoded}" if encoded else "?"


def rating_shown(entry: dict[str, Any]) -> dict[str, Any]:
    """A rating entry (``display_rating``, ``provisional``, ``mu``, ``sigma``) with its
    numbers as the pages show them (formatted here once: the template's number filters cost
    more than the rest of the page)."""
    return {
        **entry,
        "rating": display_text(entry["display_rating"], entry.get("provisional", False)),
        "mu_shown": f"{entry['mu']:.2f}",
        "sigma_shown": f"{entry['sigma']:.2f}",
    }


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    asked = request.GET.get("pool") or DEFAULT_POOL
    context: dict[str, Any] = {"pools": pool_choices(), "pool": asked}
    try:
        pool = ratings.valid_pool(asked)
    except Invalid as error:
        context["unknown_pool"] = error.message
        return render(request, "web/players/leaderboard.html", context, status=404)
    # The ranking (established players), then the players whose rating is still provisional.
    lists = ratings.leaderboards(pool)
    rows = [rating_shown(row) for row in lists["ranked"] + lists["provisional"]]
    page = Paginator(rows, LEADERBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    context.update(
        {
            "presets": POOL_PRESETS[pool],
            "page": page,
            "ranked_count": sum(not row["provisional"] for row in rows),
            "provisional_count": sum(row["provisional"] for row in rows),
            "provisional_games": PROVISIONAL_GAMES,
            "previous_query": query(request.GET, page=page.number - 1)
            if page.has_previous()
            else "",
            "next_query": query(request.GET, page=page.number + 1) if page.has_next() else "",
        }
    )
    return render(request, "web/players/leaderboard.html", context)


def rating_chart(username: str, pool: str) -> tuple[LineChart | None, list[dict[str, Any]]]:
    """The chart of the player's display rating after each rated game of ``pool``, the
    newcomer's rating marked."""
    points = ratings.history_points(username, pool=pool)
    if not points:
        return None, points
    chart = line_chart(
        [
            Point(
                value=point["display_rating"],
                label=point["at"].strftime("%-d %b %Y"),
                title=(
                    f"Game #{point['game']}, {point['at']:%-d %b %Y %H:%M}: "
                    f"{point['display_rating']} ({point['display_rating_change']:+d})"
                ),
                key=str(point["game"]),
            )
            for point in points
        ],
        mark=NEWCOMER_DISPLAY,
    )
    return chart, points


@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    try:
        found = games.player_profile(username)
    except NotFound as error:
        raise Http404(error.message) from error
    rated_pools = list(found.get("ratings", {}))
    asked_pool = request.GET.get("pool")
    if asked_pool in rated_pools:
        pool = asked_pool
    elif rated_pools:
        pool = DEFAULT_POOL if DEFAULT_POOL in rated_pools else rated_pools[0]
    else:
        pool = None
    chart, points = rating_chart(username, pool) if pool else (None, [])

    form = HistoryFilterForm(request.GET)
    entries: list[dict[str, Any]] = []
    page = None
    if form.is_valid():
        rows = games.player_history(username, preset=form.preset(), result=form.outcome())
        page = Paginator(rows, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
        entries = games.history_entries(list(page.object_list))
    last = points[-1] if points else None
    context = {
        "profile": found,
        "chart_title": f"Rating of {username} in the {pool} pool",
        "chart_description": (
            f"{len(points)} rated game{'s' if len(points) != 1 else ''} from "
            f"{points[0]['at']:%-d %b %Y} to {last['at']:%-d %b %Y}; rating now "
            f"{last['display_rating']}"
        )
        if last
        else "",
        "ratings": found.get("ratings", {}),
        "chart_pool": pool,
        "chart": chart,
        "points": points,
        "form": form,
        "filtered": bool(form.is_valid() and (form.preset() or form.outcome())),
        "page": page,
        "entries": entries,
        "previous_query": query(request.GET, page=page.number - 1)
        if page and page.has_previous()
        else "",
        "next_query": query(request.GET, page=page.number + 1) if page and page.has_next() else "",
    }
    return render(request, "web/players/profile.html", context, status=400 if form.errors else 200)
