"""A game's page: the live table for its players, the public view for anyone else, the
whole record after the end."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from core.errors import Conflict
from games import selectors as games
from games.models import Game
from tournaments import selectors as tournaments
from web.chat_panel import game_chat
from web.people import signed_in
from web.table import table_context


def _context(request: HttpRequest, game_id: int) -> dict[str, object]:
    view = games.game_view_for(game_id, signed_in(request))
    return table_context(view, tournaments.game_place(game_id))


def table_fragment(game: Game, view: dict[str, object]) -> str:
    """The table alone, made from a seat's (or a spectator's) view: what a game's live feed
    sends to every page of that audience (games.live.FRAGMENTS). Made without a request, it
    carries nothing of one viewer (no CSRF token): the page asks for its own table
    (:func:`table_part`) once the game has ended, for the forms shown then."""
    context = table_context(view, tournaments.game_place(game.pk))
    return render_to_string("web/game/table.html", context)


def _embargoed(request: HttpRequest, game_id: int) -> HttpResponse:
    """The page of a game under a duplicate round's embargo, for anyone but its players."""
    return render(request, "web/game/embargoed.html", {"game_id": game_id}, status=409)


@require_safe
@never_cache
def table(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        context = _context(request, game_id)
    except Conflict:  # deals_embargoed: other tables still play these cards
        return _embargoed(request, game_id)
    context["chat"] = game_chat(signed_in(request), game_id)
    view: dict[str, Any] = context["view"]  # type: ignore[assignment]
    if view.get("your_seat") is not None and view["status"] == "playing":
        # A person's first games: hints beside the table (they may switch them off).
        hints = games.wants_hints(signed_in(request))
        if hints is not None:
            context["hints"] = hints
            return render(request, "web/game/hinted.html", context)
    return render(request, "web/game/page.html", context)


@require_safe
@never_cache
def table_part(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table alone (its ``<main>`` element): what the page's script puts in place of the
    one it shows when the game has moved on."""
    try:
        return render(request, "web/game/table.html", _context(request, game_id))
    except Conflict:
        return _embargoed(request, game_id)
