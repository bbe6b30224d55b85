"""Challenges: the person's pending challenges, in and out, with their answers (kept current
by the page's script from :func:`challenges_live`); the form that challenges players; the
rematch button of a finished game."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from challenges import live, services
from challenges.models import Challenge
from core.errors import DomainError
from games.engine import PRESETS
from web.forms import ChallengeForm, add_domain_errors
from web.live_lists import own_list_live
from web.people import signed_in
from web.returns import return_path


def _after(challenge: Challenge, request: HttpRequest) -> HttpResponse:
    """The game once the challenge has started it, else the challenges page (or the page
    the form came from: the notification bell's forms)."""
    if challenge.game_id:
        return HttpResponseRedirect(f"/games/{challenge.game_id}")
    return HttpResponseRedirect(return_path(request, f"/challenges#challenge-{challenge.pk}"))


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def challenges(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    form = ChallengeForm(request.POST or None, presets=list(PRESETS))
    if request.method == "POST" and form.is_valid():
        try:
            challenge = services.create_challenge(
                person,
                to=form.to(),
                rules=form.rules(),
                rated=form.cleaned_data["rated"],
                move_seconds=form.cleaned_data["move_seconds"],
                expires_in=form.cleaned_data["expires_in"],
            )
        except DomainError as error:
            fields = error.details.get("fields")
            if fields and "to" in fields:
                fields = {"opponent_1": fields["to"]}
            add_domain_errors(form, fields, error.message)
        else:
            return _after(challenge, request)
    pending, version = live.shown(person)
    context = {"form": form, **_lists_context(person.username, pending, version)}
    status = 400 if form.errors else 200
    return render(request, "web/challenges/challenges.html", context, status=status)


def _lists_context(me: str, pending: list[dict[str, Any]], version: int) -> dict[str, Any]:
    return {
        "incoming": [c for c in pending if c["from"] != me],
        "outgoing": [c for c in pending if c["from"] == me],
        "me": me,
        "version": version,
    }


def lists_fragment(me: str, pending: list[dict[str, Any]], version: int) -> str:
    """The page's two lists as the person ``me`` sees them: what their challenges feed sends
    to each of their pages (challenges.live.FRAGMENTS). Rendered without a request, so its
    forms carry no CSRF token: the page's script gives them the page's own."""
    return render_to_string("web/challenges/_lists.html", _lists_context(me, pending, version))


@require_GET
async def challenges_live(request: HttpRequest) -> HttpResponse:
    """``GET /challenges/live``: the signed-in person's challenges as Server-Sent Events, a
    message each time their list changes; one feed for all their pages (challenges.live)."""
    return await own_list_live(request, live.SOURCE, refusal="Log in to follow your challenges.")


def _answer(request: HttpRequest, challenge_id: int, act: str) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    answer = {
        "accept": services.accept_challenge,
        "decline": services.decline_challenge,
        "cancel": services.cancel_challenge,
    }[act]
    try:
        challenge = answer(person, challenge_id=challenge_id)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(return_path(request, "/challenges"))
    return _after(challenge, request)


@login_required
@require_POST
def accept(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return _answer(request, challenge_id, "accept")


@login_required
@require_POST
def decline(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return _answer(request, challenge_id, "decline")


@login_required
@require_POST
def cancel(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return _answer(request, challenge_id, "cancel")


@login_required
@require_POST
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Challenge the seats of a finished game again (its page's Rematch button)."""
    person = signed_in(request)
    assert person is not None
    try:
        challenge = services.create_rematch(person, game_id=game_id)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(f"/games/{game_id}")
    return _after(challenge, request)
