"""Tournaments: the list, the organiser's form, a tournament's page (live while it runs) and
the small forms of its entrants and organisers, each calling one service of the
tournaments app (the API's; docs/tournaments.md) and coming back to the page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
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
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import Player
from accounts.services import HOUSE_BOTS
from clubs.selectors import clubs_run_by
from core.errors import DomainError
from tournaments import selectors
from tournaments.models import Invitation, Tournament
from tournaments.serializers import (
    ForbiddenPairInputSerializer,
    OrganiserSerializer,
    UsernameSerializer,
)
from tournaments.services import entries, running, setup
from web.chat_panel import tournament_chat
from web.people import signed_in
from web.returns import act_and_return
from web.tournament_pages import (
    TournamentForm,
    flat_messages,
    live_version,
    meeting_matrix,
    round_grid,
    rounds_for_page,
    seating_sheet,
    table_of,
)

LIST_LENGTH = 50
FINISHED_PAGE = 20
#: How often the page's script asks whether the live part changed, by status.
POLL_SECONDS = {"registering": 10, "running": 4}


# --- The list and the organiser's form -----------------------------------------------------


@require_safe
def tournament_list(request: HttpRequest) -> HttpResponse:
    def summaries(status: str) -> list[dict[str, Any]]:
        shown = selectors.tournaments(status)[:LIST_LENGTH]
        return [selectors.tournament_summary(t) for t in shown]

    finished = Paginator(selectors.tournaments("finished"), FINISHED_PAGE)
    page = finished.get_page(request.GET.get("page"))
    context = {
        "running": summaries("running"),
        "upcoming": summaries("registering"),
        "finished": [selectors.tournament_summary(t) for t in page.object_list],
        "finished_page": page,
    }
    return render(request, "web/tournaments/list.html", context)


def club_choices(person: Player) -> list[tuple[str, str]]:
    """The clubs the person may name on a tournament, as the form's choices."""
    return [(club.slug, club.name) for club in clubs_run_by(person)]


@login_required
@require_http_methods(["GET", "POST"])
def tournament_new(request: HttpRequest) -> HttpResponse:
    """The organiser's form; ``?club=SLUG`` chooses that club (a club page's link)."""
    person = signed_in(request)
    assert person is not None
    initial = {"club": request.GET.get("club", "")}
    form = TournamentForm(request.POST or None, initial=initial, clubs=club_choices(person))
    if request.method == "POST":
        values = form.validated()
        if values is not None:
            try:
                tournament = setup.create_tournament(person, values=values)
            except DomainError as error:
                form.place_domain_error(error.code, error.message)
            else:
                messages.success(request, "Created. Add entrants, then start it.")
                return HttpResponseRedirect(f"/tournaments/{tournament.pk}")
    status = 400 if form.errors else 200
    return render(request, "web/tournaments/new.html", {"form": form}, status=status)


# --- A tournament's page -------------------------------------------------------------------


def _live_context(detail: dict[str, Any], person: Player | None, organiser: bool) -> dict[str, Any]:
    """What the live part (``_live.html``) shows of ``detail`` to ``person``."""
    rounds = rounds_for_page(detail)
    overdue = [r["number"] for r in rounds if r["overdue"]] if organiser else []
    viewer = person.username if person else None
    return {
        "t": detail,
        "person": person,
        "organiser": organiser,
        "entrants": {e["username"]: e for e in detail["players"]},
        "registering": detail["status"] == "registering",
        "rounds": rounds,
        "finished_rounds": sum(1 for r in rounds if r["status"] == "finished"),
        "grid": round_grid(detail),
        "matrix": meeting_matrix(detail),
        "knockout": detail["format"] == "knockout",
        "byes": detail["odd_count"] == "byes",
        "in_person": detail.get("venue") == "in_person",
        "poll_seconds": POLL_SECONDS.get(detail["status"]),
        "version": live_version(detail, viewer, [organiser, overdue]),
    }


def live_fragment(detail: dict[str, Any]) -> str:
    """The live part as anyone sees it, made from the tournament's detail without a viewer:
    what a tournament's live feed sends to every page (tournaments.live.FRAGMENTS). It
    carries nothing of one viewer (no organiser's controls, no CSRF token): the page marks
    its viewer's own rows itself, and an organiser's page asks for its own part."""
    return render_to_string("web/tournaments/_live.html", _live_context(detail, None, False))


def _page_context(
    request: HttpRequest, tournament_id: int, settings_form: TournamentForm | None = None
) -> dict[str, Any]:
    person = signed_in(request)
    detail = selectors.tournament_detail(tournament_id, person)
    # The organisers as the API lists them: the people selectors.is_organiser lets act.
    organiser = person is not None and person.username in detail["organisers"]
    context = _live_context(detail, person, organiser)
    mine = context["entrants"].get(person.username) if person else None
    if organiser and context["registering"] and settings_form is None:
        assert person is not None
        settings_form = TournamentForm.of(detail, clubs=club_choices(person))
    viewer = person.username if person else None
    # The invitations the person answers (their own, their bots'); an organiser sees all.
    answering = [i for i in detail["invitations"] if i["owner"] == viewer]
    return {
        **context,
        "mine": mine,
        "answering": answering,
        "invited": any(i["player"] == viewer for i in answering),
        "my_table": table_of(detail, viewer) if mine and viewer else None,
        "settings_form": settings_form,
        "house_bots": HOUSE_BOTS,
        "chat": tournament_chat(person, tournament_id),
    }


@require_safe
@never_cache
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return render(request, "web/tournaments/page.html", _page_context(request, tournament_id))


@require_safe
@never_cache
def tournament_print(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The printable seating sheet of an in-person tournament's newest round, with a score
    sheet per table; each table's QR code holds its result page's address as this request
    reached the site (behind the proxy too: its Host and forwarded scheme)."""
    detail = selectors.tournament_detail(tournament_id, audit=False)
    if detail["venue"] != Tournament.Venue.IN_PERSON:
        raise Http404("Only a tournament at real tables has a seating sheet.")

    def result_url(code: str) -> str:
        return request.build_absolute_uri(f"/tournaments/{tournament_id}/tables/{code}")

    context = {"t": detail, "sheet": seating_sheet(detail, result_url)}
    return render(request, "web/tournaments/print.html", context)


@require_safe
@never_cache
def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The live part of the page alone, for the page's script: 304 while it is unchanged
    (``If-None-Match`` with the ETag of the part shown)."""
    context = _page_context(request, tournament_id)
    etag = f'"{context["version"]}"'
    if request.headers.get("If-None-Match") == etag:
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = render(request, "web/tournaments/_live.html", context)
    response["ETag"] = etag
    return response


# --- Entrants' and organisers' forms -------------------------------------------------------


def _act(
    request: HttpRequest,
    tournament_id: int,
    action: Callable[[Player], object],
    done: str,
    anchor: str = "",
) -> HttpResponse:
    """Run one service for the person, then back to the tournament's page (or the page the
    form came from: the notification bell's forms)."""
    return act_and_return(request, action, done, f"/tournaments/{tournament_id}{anchor}")


def _posted(request: HttpRequest, serializer_class: type[Any], data: Any) -> dict[str, Any] | None:
    """The form's values checked by the API's serializer, or None with a message said."""
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    for field, problems in serializer.errors.items():
        messages.error(request, f"{field}: {' '.join(flat_messages(problems))}")
    return None


def _back(tournament_id: int, anchor: str = "") -> HttpResponse:
    return HttpResponseRedirect(f"/tournaments/{tournament_id}{anchor}")


@login_required
@require_POST
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Enter, or accept an invitation (the person's own, or one of their bot's: ``player``)."""
    bot = request.POST.get("player") or None
    return _act(
        request,
        tournament_id,
        lambda person: entries.register(person, tournament_id=tournament_id, username=bot),
        f"{bot} is entered." if bot else "You are entered.",
    )


@login_required
@require_POST
def decline(request: HttpRequest, tournament_id: int) -> HttpResponse:
    bot = request.POST.get("player") or None
    return _act(
        request,
        tournament_id,
        lambda person: entries.decline(person, tournament_id=tournament_id, username=bot),
        "Invitation declined.",
    )


@login_required
@require_POST
def withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        lambda person: entries.withdraw(person, tournament_id=tournament_id),
        "You have withdrawn.",
    )


@login_required
@require_POST
def add_entrant(request: HttpRequest, tournament_id: int) -> HttpResponse:
    data = _posted(request, UsernameSerializer, {"player": request.POST.get("player", "")})
    if data is None:
        return _back(tournament_id, "#organise")
    person = signed_in(request)
    assert person is not None  # login_required
    try:
        added = entries.add_entrant(person, tournament_id=tournament_id, username=data["player"])
    except DomainError as error:
        messages.error(request, error.message)
    else:
        if isinstance(added, Invitation):
            messages.success(
                request, f"Invited {data['player']}: entered once they accept (before the start)."
            )
        else:
            messages.success(request, f"Entered {data['player']}.")
    return _back(tournament_id, "#organise")


@login_required
@require_POST
def remove_entrant(request: HttpRequest, tournament_id: int) -> HttpResponse:
    name = request.POST.get("name", "")
    return _act(
        request,
        tournament_id,
        lambda person: entries.remove_entrant(person, tournament_id=tournament_id, name=name),
        f"Removed {name}.",
        "#entrants",
    )


@login_required
@require_POST
def start(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        lambda person: running.start(person, tournament_id=tournament_id),
        "Started: round 1 is being played.",
    )


@login_required
@require_POST
def adjudicate(request: HttpRequest, tournament_id: int, number: int, table: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        lambda person: running.adjudicate(
            person, tournament_id=tournament_id, round_number=number, table_number=table
        ),
        f"Round {number}, table {table}: adjudicated by the current scores.",
        f"#round-{number}",
    )


@login_required
@require_POST
def add_forbidden_pair(request: HttpRequest, tournament_id: int) -> HttpResponse:
    players = [request.POST.get("first", ""), request.POST.get("second", "")]
    data = _posted(request, ForbiddenPairInputSerializer, {"players": players})
    if data is None:
        return _back(tournament_id, "#organise")
    first, second = data["players"]
    return _act(
        request,
        tournament_id,
        lambda person: entries.add_forbidden_pair(
            person, tournament_id=tournament_id, first=first, second=second
        ),
        f"{first} and {second} will be kept apart.",
        "#organise",
    )


@login_required
@require_POST
def remove_forbidden_pair(request: HttpRequest, tournament_id: int, pair_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        lambda person: entries.remove_forbidden_pair(
            person, tournament_id=tournament_id, pair_id=pair_id
        ),
        "The pair may meet again.",
        "#organise",
    )


@login_required
@require_POST
def add_organiser(request: HttpRequest, tournament_id: int) -> HttpResponse:
    data = _posted(request, OrganiserSerializer, {"username": request.POST.get("username", "")})
    if data is None:
        return _back(tournament_id, "#organise")
    return _act(
        request,
        tournament_id,
        lambda person: setup.add_co_organiser(
            person, tournament_id=tournament_id, username=data["username"]
        ),
        f"{data['username']} is a co-organiser.",
        "#organise",
    )


@login_required
@require_POST
def remove_organiser(request: HttpRequest, tournament_id: int) -> HttpResponse:
    username = request.POST.get("username", "")
    return _act(
        request,
        tournament_id,
        lambda person: setup.remove_co_organiser(
            person, tournament_id=tournament_id, username=username
        ),
        f"{username} is no longer a co-organiser.",
        "#organise",
    )


@login_required
@require_POST
def update_settings(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The settings form: only what the person changed goes to the service (the audit log
    records those). Errors are shown next to the fields, on the page."""
    person = signed_in(request)
    assert person is not None
    found = selectors.tournament(tournament_id)
    if not selectors.is_organiser(found, person):
        messages.error(request, "Only the tournament's organisers may change its settings.")
        return _back(tournament_id)
    summary = selectors.tournament_summary(found)
    form = TournamentForm.of(summary, request.POST, clubs=club_choices(person))
    changes = form.validated(changed_only=True)
    if changes is not None:
        if not changes:
            messages.info(request, "Nothing was changed.")
            return _back(tournament_id, "#settings")
        try:
            setup.update_tournament(person, tournament_id=tournament_id, changes=changes)
        except DomainError as error:
            if not form.places(error):
                messages.error(request, error.message)
                return _back(tournament_id)
        else:
            messages.success(request, "Settings saved.")
            return _back(tournament_id, "#settings")
    context = _page_context(request, tournament_id, settings_form=form)
    return render(request, "web/tournaments/page.html", context, status=400)
