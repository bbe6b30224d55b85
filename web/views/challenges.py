"""Challenges: the person's pending challenges, in and out, with their answers; the form
that challenges players; the rematch button of a finished game."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from challenges import selectors, services
from challenges.models import Challenge
from core.errors import DomainError
from games.engine import PRESETS
from web.forms import ChallengeForm, add_domain_errors
from web.people import signed_in

LIST_LENGTH = 100


def _after(challenge: Challenge) -> HttpResponse:
    """The game once the challenge has started it, else the challenges page."""
    if challenge.game_id:
        return HttpResponseRedirect(f"/games/{challenge.game_id}")
    return HttpResponseRedirect(f"/challenges#challenge-{challenge.pk}")


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
            return _after(challenge)
    pending = selectors.challenges_data(selectors.pending_challenges(person)[:LIST_LENGTH])
    context = {
        "form": form,
        "incoming": [c for c in pending if c["from"] != person.username],
        "outgoing": [c for c in pending if c["from"] == person.username],
        "person": person,
    }
    status = 400 if form.errors else 200
    return render(request, "web/challenges/challenges.html", context, status=status)


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
        return HttpResponseRedirect("/challenges")
    return _after(challenge)


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
    return _after(challenge)
