"""A finished game step by step (``/games/{id}/replay?step=N``): the record, played through
the rules engine up to the step asked for (web/replay.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.errors import Conflict
from games import selectors as games
from web.replay import replay_step, step_number


@require_safe
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        record = games.game_record(game_id)  # a 404 page for an unknown game
    except Conflict:  # still being played: no card may show
        context = {"game_id": game_id}
        return render(request, "web/replay/in_progress.html", context, status=409)
    step = step_number(request.GET.get("step"), len(record["actions"]))
    return render(request, "web/replay/replay.html", {"r": replay_step(record, step)})
