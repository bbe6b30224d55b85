"""The lobby: open tables to join, and the form that creates one."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.selectors import own_bot_names
from core.errors import DomainError
from games import selectors as games
from games import tables
from games.engine import PRESETS
from quickplay import selectors as quickplay
from web.forms import TableForm, add_domain_errors
from web.people import signed_in
from web.views.quickplay import quick_play_form

LOBBY_LENGTH = 100


def _after_seating(table_id: int) -> HttpResponse:
    """The game's page once the table's game has started, else the lobby at the table."""
    table = games.table(table_id)
    if table.game_pk:
        return HttpResponseRedirect(f"/games/{table.game_pk}")
    return HttpResponseRedirect(f"/lobby#table-{table_id}")


@require_http_methods(["GET", "POST"])
def lobby(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    own_bots = own_bot_names(person) if person else []
    seat_counts = {name: rules.players for name, rules in PRESETS.items()}
    form = TableForm(request.POST or None, presets=seat_counts, own_bots=own_bots)
    if request.method == "POST":
        if person is None:
            return HttpResponseRedirect("/login?next=/lobby")
        if form.is_valid():
            try:
                table = tables.set_up_table(
                    person,
                    rules=form.rules(),
                    rated=form.cleaned_data["rated"],
                    move_seconds=form.cleaned_data["move_seconds"],
                    seat=form.seat(),
                    bots=form.bots(),
                )
            except DomainError as error:
                fields = error.details.get("fields")
                if error.code in ("invalid_rules",):
                    fields = {"preset": [error.message]}
                add_domain_errors(form, fields, error.message)
            else:
                return _after_seating(table.pk)
    open_tables = [games.table_data(t) for t in games.tables("open")[:LOBBY_LENGTH]]
    context = {
        "form": form,
        "open_tables": open_tables,
        "person": person,
        "playing": games.games_in_play(20),
        "quick_form": quick_play_form(),
        "open_seeks": quickplay.open_seeks(person) if person else [],
    }
    return render(request, "web/lobby/lobby.html", context, status=400 if form.errors else 200)


def _seat_action(request: HttpRequest, table_id: int, act: str) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    seat_text = request.POST.get("seat", "")
    seat = int(seat_text) if seat_text.isdigit() else None
    try:
        if act == "join":
            tables.join_table(person, table_id=table_id, seat=seat)
        elif act == "leave":
            tables.leave_table(person, table_id=table_id)
        elif act == "cancel":
            tables.cancel_table(person, table_id=table_id)
            return HttpResponseRedirect("/lobby")
        else:
            tables.seat_bot(person, table_id=table_id, bot=request.POST.get("bot", ""), seat=seat)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(f"/lobby#table-{table_id}")
    return _after_seating(table_id)


@login_required
@require_POST
def join(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(request, table_id, "join")


@login_required
@require_POST
def leave(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(request, table_id, "leave")


@login_required
@require_POST
def cancel(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(request, table_id, "cancel")


@login_required
@require_POST
def seat_bot(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(request, table_id, "bot")
