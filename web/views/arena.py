"""The arena page: a pool's bot arena as ``GET /api/v1/arena?pool=`` gives it -- who is in,
the games being played (with links to their pages), and the leaderboard."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from arena import selectors
from core.errors import Invalid
from ratings import selectors as ratings
from ratings.pools import DEFAULT_POOL
from web.player_forms import pool_choices
from web.views.players import rating_shown


@require_safe
def arena_page(request: HttpRequest) -> HttpResponse:
    asked = request.GET.get("pool") or DEFAULT_POOL
    context: dict[str, Any] = {"pools": pool_choices(), "pool": asked}
    try:
        pool = ratings.valid_pool(asked)
    except Invalid as error:
        context["unknown_pool"] = error.message
        return render(request, "web/arena.html", context, status=404)
    data = selectors.arena_data(pool)
    context.update(
        {
            "arena": data,
            # The bot's own fields over its rating's: "games" is its arena games, not
            # every rated game of the pool.
            "bots": [
                {**rating_shown(bot["rating"]), **{k: v for k, v in bot.items() if k != "rating"}}
                for bot in data["bots"]
            ],
            "leaderboard": [rating_shown(row) for row in data["leaderboard"]],
        }
    )
    return render(request, "web/arena.html", context)
