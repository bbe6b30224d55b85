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
from ratings import selectors as ratings
from tournaments import selectors as tournaments
from web.chat_panel import game_chat
from web.people import signed_in
from web.table import table_context


def _rating(view: dict[str, Any], player_id: int | None) -> dict[str, Any] | None:
    """What a finished rated game did to its seated viewer's rating, once rated."""
    if view["status"] != Game.Status.FINISHED or not view.get("rated") or player_id is None:
        return None
    if not isinstance(view.get("your_seat"), int):
        return None
    return ratings.game_result_rating(int(view["id"]), player_id)


def _context(request: HttpRequest, game_id: int) -> dict[str, object]:
    viewer = signed_in(request)
    view = games.game_view_for(game_id, viewer)
    rating = _rating(view, viewer.pk if viewer else None)
    return table_context(view, tournaments.game_place(game_id), rating)


def table_fragment(game: Game, view: dict[str, Any]) -> str:
    """The table alone, made from a seat's (or a spectator's) view: what a game's live feed
    sends to every page of that audience (games.live.FRAGMENTS). Made without a request, it
    carries nothing of one viewer (no CSRF token): the page asks for its own table
    (:func:`table_part`) once the game has ended, for the forms shown then."""
    seat = view.get("your_seat")
    player_id = next((s["player_id"] for s in game.seats if s["seat"] == seat), None)
    context = table_context(view, tournaments.game_place(game.pk), _rating(view, player_id))
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


@require_safe
@never_cache
def result_part(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game's result box alone, for the viewer: what the page asks for until the
    rating change of a rated game, made by the worker after the end, is known."""
    try:
        context = _context(request, game_id)
    except Conflict:
        return _embargoed(request, game_id)
    return render(request, "web/game/_result.html", context)
