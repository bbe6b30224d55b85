"""The room pages of an in-person night: a table's result page, made for a phone (its players
enter or confirm the game's scores through the same services as the API), and the screen,
made for a projector (the round's tables, which results are in, then the standings), which
follows the tournament's live stream by itself (docs/web.md "The room pages")."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    HttpResponseRedirect,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import Player
from api.errors import STATUS_BY_KIND
from core.errors import DomainError, NotFound
from tournaments import selectors
from tournaments.services import table_results
from web.people import signed_in
from web.tournament_pages import RESULT_LABELS, rounds_for_page

#: What the screen says of a table's result, by its status.
SCREEN_STATES = {
    "missing": "waiting",
    "pending": "entered",
    "disputed": "disputed",
    "final": "final",
}


#: What the page says once an entry went through, by the result's status then.
RESULT_SAID = {
    "pending": "Entered: another player of the table confirms it.",
    "disputed": "That differs from the entry before: an organiser settles it.",
    "final": "The result stands.",
}


# --- A table's result page -------------------------------------------------------------------


def _scores_posted(request: HttpRequest) -> list[Any]:
    """The scores of the form's fields ``score0``, ``score1``... in seat order: whole numbers
    as numbers, anything else as typed (the service says what is wrong with it)."""
    scores: list[Any] = []
    while f"score{len(scores)}" in request.POST:
        typed = request.POST[f"score{len(scores)}"].strip()
        scores.append(int(typed) if typed.lstrip("-").isdigit() else typed)
    return scores


def _room(tournament_id: int, code: str, person: Player | None) -> dict[str, Any]:
    try:
        return selectors.table_room(tournament_id, code, person)
    except NotFound as error:
        raise Http404(error.message) from error


@never_cache
@require_http_methods(["GET", "POST"])
def table_room(request: HttpRequest, tournament_id: int, code: str) -> HttpResponse:
    """GET: the table and its result as the viewer may act on it. POST ``action=enter`` with
    the scores, or ``action=confirm``: one service, then back here; a refusal is shown on
    the page, next to the form, with nothing changed."""
    person = signed_in(request)
    path = f"/tournaments/{tournament_id}/tables/{code}"
    error: DomainError | None = None
    typed: list[Any] = []
    if request.method == "POST":
        if person is None:
            return HttpResponseRedirect("/login?" + urlencode({"next": path}))
        room = _room(tournament_id, code, person)
        number = room["round"]["number"]
        try:
            if request.POST.get("action") == "confirm":
                table_results.confirm_result(
                    person, tournament_id=tournament_id, round_number=number, code=code
                )
                done = "Confirmed: this table's result stands."
            else:
                typed = _scores_posted(request)
                table = table_results.enter_result(
                    person,
                    tournament_id=tournament_id,
                    round_number=number,
                    code=code,
                    scores=typed,
                )
                done = RESULT_SAID.get(table.result_status, "Entered.")
        except DomainError as refused:
            error = refused
        else:
            messages.success(request, done)
            return HttpResponseRedirect(path)
    room = _room(tournament_id, code, person)
    context = {
        **room,
        "person": person,
        "path": path,
        "error": error,
        "typed": typed,
        "status_label": RESULT_LABELS.get(room["table"]["result"]["status"], ""),
        "login": "/login?" + urlencode({"next": path}),
    }
    status = STATUS_BY_KIND.get(type(error), 400) if error is not None else 200
    return render(request, "web/tournaments/table_room.html", context, status=status)


# --- The screen ------------------------------------------------------------------------------


def _screen_context(detail: dict[str, Any]) -> dict[str, Any]:
    """What the screen shows of the tournament's ``detail`` as anyone sees it: the current
    round's tables (their result's status only, and the scores once final) and the
    standings."""
    rounds = rounds_for_page(detail)
    current = rounds[0] if rounds else None
    tables = []
    for table in current["tables"] if current else []:
        result = table.get("result")
        if result is not None:
            status = result["status"]
        else:  # a table played online: over or not
            status = "final" if table["status"] == "finished" else "missing"
        tables.append({**table, "state": status, "state_label": SCREEN_STATES[status]})
    return {
        "t": detail,
        "round": current,
        "tables": tables,
        "final_count": sum(1 for table in tables if table["state"] == "final"),
        "standings": detail["standings"],
        "byes": detail["odd_count"] == "byes",
    }


def screen_fragment(detail: dict[str, Any]) -> str:
    """The screen's ``<main>`` made from the tournament's detail as anyone sees it: what the
    tournament's live feed sends to every screen (tournaments.live.FRAGMENTS "screen"),
    rendered once per change per web process."""
    return render_to_string("web/tournaments/_screen.html", _screen_context(detail))


@require_safe
@never_cache
def tournament_screen(request: HttpRequest, tournament_id: int) -> HttpResponse:
    detail = selectors.tournament_detail(tournament_id, audit=False)
    context = {**_screen_context(detail), "screen": screen_fragment(detail)}
    return render(request, "web/tournaments/screen.html", context)


@require_safe
@never_cache
def tournament_screen_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The screen's ``<main>`` alone, for its script where the stream cannot be followed:
    304 while the tournament's version is the one shown (``If-None-Match``)."""
    version = selectors.versions([tournament_id]).get(tournament_id)
    if version is None:
        raise Http404("No such tournament.")
    etag = f'"{version}"'
    if request.headers.get("If-None-Match") == etag:
        response: HttpResponse = HttpResponseNotModified()
    else:
        detail = selectors.tournament_detail(tournament_id, audit=False)
        response = HttpResponse(screen_fragment(detail))
        etag = f'"{detail["version"]}"'
    response["ETag"] = etag
    return response
