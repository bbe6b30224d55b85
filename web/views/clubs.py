"""Clubs: the list with the form that founds one, a club's page (members, tournaments,
leagues, leaderboard; joining and leaving; for its admins, requests, invitations, roles and
settings) and a league's page. Each small form calls one service of the clubs or leagues
app (the API's; docs/clubs.md) and comes back to the page with what happened."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import Player
from clubs import selectors as club_selectors
from clubs import services as club_services
from clubs.models import Club, JoinRequest, Membership
from clubs.selectors import ADMIN_ROLES
from core.errors import DomainError, Invalid, NotFound
from leagues import selectors as league_selectors
from leagues import services as league_services
from ratings.pools import DEFAULT_POOL, IN_PERSON_POOL
from tournaments.models import Tournament
from web.forms import ClubForm, ClubSettingsForm, LeagueForm, add_domain_errors
from web.people import signed_in
from web.player_forms import pool_choices
from web.returns import act_and_return, return_path
from web.views.players import rating_shown

#: What the pool chooser says of the in-person pool (no preset rates in it).
IN_PERSON_NOTE = "games at real tables, their results entered"
#: The most digits a tournament's id has (a 64-bit key).
TOURNAMENT_ID_DIGITS = 18


# --- The list and the form that founds a club ------------------------------------------------


@require_http_methods(["GET", "POST"])
def club_list(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    form = ClubForm(request.POST or None) if person else None
    if request.method == "POST":
        if person is None or form is None:
            return HttpResponseRedirect("/login?next=/clubs")
        if form.is_valid():
            values = form.cleaned_data
            try:
                found = club_services.create_club(
                    person,
                    name=values["name"],
                    joining=values["joining"],
                    slug=values["slug"] or None,
                    description=values["description"],
                )
            except DomainError as error:
                fields = error.details.get("fields")
                add_domain_errors(form, fields or _slug_problem(error), error.message)
            else:
                messages.success(request, f"{found.name} is founded: you are its owner.")
                return HttpResponseRedirect(f"/clubs/{found.slug}")
    rows = club_selectors.clubs_shown(list(club_selectors.clubs()))
    status = 400 if form is not None and form.errors else 200
    return render(request, "web/clubs/list.html", {"clubs": rows, "form": form}, status=status)


def _slug_problem(error: DomainError) -> dict[str, list[str]] | None:
    """A taken slug said next to the slug field."""
    return {"slug": [error.message]} if error.code == "slug_taken" else None


# --- A club's page ---------------------------------------------------------------------------


def _club(slug: str) -> Club:
    """The club, or the site's page for an unknown path."""
    try:
        return club_selectors.club(slug)
    except NotFound as error:
        raise Http404(error.message) from error


def _leaderboard(found: Club, pool: str) -> dict[str, Any]:
    """The club's leaderboard of ``pool``: the ranked members, then the provisional ones."""
    try:
        ranked = league_selectors.club_leaderboard(found, pool=pool, which="ranked")
        provisional = league_selectors.club_leaderboard(found, pool=pool, which="provisional")
    except Invalid as error:
        return {"rows": [], "problem": error.message}
    return {"rows": [rating_shown(row) for row in ranked + provisional], "problem": None}


def _club_context(request: HttpRequest, slug: str) -> dict[str, Any]:
    person = signed_in(request)
    found = _club(slug)
    role = club_selectors.role_of(found, person) if person else None
    admin = role in ADMIN_ROLES
    tournaments = list(league_selectors.club_tournaments(found))
    # A club that plays at real tables is shown its room's leaderboard first.
    at_tables = any(t.venue == Tournament.Venue.IN_PERSON for t in tournaments)
    pool = request.GET.get("pool") or (IN_PERSON_POOL if at_tables else DEFAULT_POOL)
    context: dict[str, Any] = {
        "club": club_selectors.club_data(found),
        "person": person,
        "role": role or "",
        "admin": admin,
        "owner": role == "owner",
        "invited": person is not None and club_selectors.invited(found, person),
        "requested": person is not None and club_selectors.requested(found, person),
        "members": club_selectors.members_shown(club_selectors.members_of(found)),
        "tournaments": league_selectors.tournaments_shown(tournaments),
        "leagues": league_selectors.leagues_shown(list(league_selectors.leagues_of(found))),
        "pools": [*pool_choices(), (IN_PERSON_POOL, IN_PERSON_NOTE)],
        "pool": pool,
        "leaderboard": _leaderboard(found, pool),
        "roles": Membership.Role.values,
    }
    if admin:
        pending = club_selectors.pending_requests(found)
        context["requests"] = club_selectors.requests_shown(list(pending))
        context["settings_form"] = ClubSettingsForm(initial=context["club"], auto_id="settings-%s")
        context["league_form"] = LeagueForm(auto_id="league-%s")
    return context


@require_safe
@never_cache
def club_page(request: HttpRequest, slug: str) -> HttpResponse:
    return render(request, "web/clubs/page.html", _club_context(request, slug))


# --- Its small forms -------------------------------------------------------------------------


def _act(
    request: HttpRequest, slug: str, action: Callable[[Player], object], done: str
) -> HttpResponse:
    """Run one service for the person, then back to the club's page (or the page the form
    came from: the notification bell's forms)."""
    return act_and_return(request, action, done, f"/clubs/{slug}")


@login_required
@require_POST
def join(request: HttpRequest, slug: str) -> HttpResponse:
    """Join an open club, accept an invitation, or ask to join a club taking requests: the
    person, or a bot account of theirs (``player``: the bell's answer for a bot)."""
    person = signed_in(request)
    assert person is not None
    bot = request.POST.get("player") or None
    try:
        joined = club_services.join(person, slug=slug, username=bot)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        who = bot or "You"
        if isinstance(joined, JoinRequest):
            messages.success(request, f"{who}: asked to join; an admin answers.")
        else:
            messages.success(request, f"{who}: now a member.")
    return HttpResponseRedirect(return_path(request, f"/clubs/{slug}"))


@login_required
@require_POST
def leave(request: HttpRequest, slug: str) -> HttpResponse:
    return _act(
        request, slug, lambda person: club_services.leave(person, slug=slug), "You have left."
    )


@login_required
@require_POST
def decline_invitation(request: HttpRequest, slug: str) -> HttpResponse:
    bot = request.POST.get("player") or None
    return _act(
        request,
        slug,
        lambda person: club_services.decline_invitation(person, slug=slug, username=bot),
        "Invitation declined.",
    )


@login_required
@require_POST
def approve_request(request: HttpRequest, slug: str, username: str) -> HttpResponse:
    return _act(
        request,
        slug,
        lambda person: club_services.approve_request(person, slug=slug, username=username),
        f"{username} is a member.",
    )


@login_required
@require_POST
def decline_request(request: HttpRequest, slug: str, username: str) -> HttpResponse:
    return _act(
        request,
        slug,
        lambda person: club_services.decline_request(person, slug=slug, username=username),
        f"The request of {username} is declined.",
    )


@login_required
@require_POST
def invite(request: HttpRequest, slug: str) -> HttpResponse:
    username = request.POST.get("username", "").strip()
    if not username:
        messages.error(request, "Whom to invite: a username.")
        return HttpResponseRedirect(f"/clubs/{slug}")
    return _act(
        request,
        slug,
        lambda person: club_services.invite(person, slug=slug, username=username),
        f"{username} is invited.",
    )


@login_required
@require_POST
def set_role(request: HttpRequest, slug: str, username: str) -> HttpResponse:
    role = request.POST.get("role", "")
    if role not in Membership.Role.values:
        messages.error(request, "A role is owner, admin or member.")
        return HttpResponseRedirect(f"/clubs/{slug}")
    return _act(
        request,
        slug,
        lambda person: club_services.set_role(person, slug=slug, username=username, role=role),
        f"{username} is now {role}.",
    )


@login_required
@require_POST
def remove_member(request: HttpRequest, slug: str, username: str) -> HttpResponse:
    return _act(
        request,
        slug,
        lambda person: club_services.remove_member(person, slug=slug, username=username),
        f"{username} is no longer a member.",
    )


def _said(request: HttpRequest, form: Any) -> None:
    """A form's mistakes, said as messages on the page it comes back to."""
    for field, problems in form.errors.items():
        where = "" if field == "__all__" else f"{field}: "
        messages.error(request, where + " ".join(problems))


@login_required
@require_POST
def update_settings(request: HttpRequest, slug: str) -> HttpResponse:
    form = ClubSettingsForm(request.POST)
    if not form.is_valid():
        _said(request, form)
        return HttpResponseRedirect(f"/clubs/{slug}")
    return _act(
        request,
        slug,
        lambda person: club_services.update_club(person, slug=slug, changes=form.cleaned_data),
        "Settings saved.",
    )


# --- Leagues ---------------------------------------------------------------------------------


@login_required
@require_POST
def league_new(request: HttpRequest, slug: str) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    form = LeagueForm(request.POST)
    if not form.is_valid():
        _said(request, form)
        return HttpResponseRedirect(f"/clubs/{slug}#leagues")
    values = form.cleaned_data
    try:
        created = league_services.create_league(
            person, slug=slug, name=values["name"], scoring=values["scoring"], best=values["best"]
        )
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(f"/clubs/{slug}#leagues")
    messages.success(request, f"{created.name} is started: add its nights.")
    return HttpResponseRedirect(f"/clubs/{slug}/leagues/{created.pk}")


@require_safe
@never_cache
def league_page(request: HttpRequest, slug: str, league_id: int) -> HttpResponse:
    person = signed_in(request)
    found = _club(slug)
    try:
        league = league_selectors.league(found, league_id)
    except NotFound as error:
        raise Http404(error.message) from error
    detail = league_selectors.league_detail(league)
    admin = person is not None and club_selectors.is_admin(found, person)
    context: dict[str, Any] = {"club": club_selectors.club_data(found), "league": detail}
    context["admin"] = admin
    if admin:
        counted = {night["tournament"] for night in detail["nights"]}
        club_tournaments = league_selectors.club_tournaments(found).exclude(pk__in=counted)
        context["candidates"] = league_selectors.tournaments_shown(list(club_tournaments))
    return render(request, "web/clubs/league.html", context)


@login_required
@require_POST
def add_night(request: HttpRequest, slug: str, league_id: int) -> HttpResponse:
    back = f"/clubs/{slug}/leagues/{league_id}"
    chosen = request.POST.get("tournament", "")
    if not chosen.isdigit() or len(chosen) > TOURNAMENT_ID_DIGITS:
        messages.error(request, "Choose one of the club's tournaments.")
        return HttpResponseRedirect(back)
    person = signed_in(request)
    assert person is not None
    try:
        league_services.add_night(person, slug=slug, league_id=league_id, tournament_id=int(chosen))
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "The night counts in the league.")
    return HttpResponseRedirect(back)
