"""Quick play from the pages: the lobby's form makes a seek; its page waits (refreshing
itself, no script needed) until the seek is seated, then goes to the game, or back to the
lobby if the seek's time ran out."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError
from games.engine import PRESETS
from quickplay import selectors, services
from quickplay.models import Seek
from web.forms import QuickPlayForm
from web.people import signed_in

#: How often the waiting page looks again (seconds).
REFRESH_SECONDS = 1


def quick_play_form(data: object = None) -> QuickPlayForm:
    return QuickPlayForm(data, presets=list(PRESETS))


@login_required
@require_POST
def seek(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    form = quick_play_form(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            "Quick play: "
            + " ".join(f"{name}: {' '.join(problems)}" for name, problems in form.errors.items()),
        )
        return HttpResponseRedirect("/lobby#quick-play")
    data = form.cleaned_data
    try:
        made = services.create_seek(
            person,
            rules=data["preset"],
            rated=data["rated"],
            move_seconds=data["move_seconds"],
            house_bots_after=data["house_bots_after"],
        )
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect("/lobby#quick-play")
    return HttpResponseRedirect(f"/quickplay/{made.pk}")


@login_required
@require_GET
def waiting(request: HttpRequest, seek_id: int) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    try:
        found = selectors.own_seek(person, seek_id)
    except DomainError as error:
        raise Http404(error.message) from error
    if found.status == Seek.Status.SEATED and found.game_id is not None:
        return HttpResponseRedirect(f"/games/{found.game_id}")
    if found.status == Seek.Status.CANCELED:
        return HttpResponseRedirect("/lobby")
    shown = selectors.seek_data(found)
    if shown["status"] == Seek.Status.EXPIRED:
        messages.info(request, "Quick play: nobody was found in time, so you left the queue.")
        return HttpResponseRedirect("/lobby#quick-play")
    context = {"seek": shown, "refresh": REFRESH_SECONDS}
    return render(request, "web/lobby/quickplay.html", context)


@login_required
@require_POST
def cancel(request: HttpRequest, seek_id: int) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    try:
        services.cancel_seek(person, seek_id=seek_id)
    except DomainError as error:
        messages.error(request, error.message)
        return HttpResponseRedirect(f"/quickplay/{seek_id}")
    return HttpResponseRedirect("/lobby")
