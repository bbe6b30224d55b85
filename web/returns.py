"""Where a form sends the person once it is done: the page they came from, when it is one of
this site's (a log-in's ``?next=``, the notification bell's forms)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.models import Player
from core.errors import DomainError
from web.people import signed_in


def return_path(request: HttpRequest, fallback: str) -> str:
    """The request's ``next`` (the form's, else the query's) when it is an address of this
    site, never another site's (nor a scheme-relative ``//host``); else ``fallback``."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return fallback


def act_and_return(
    request: HttpRequest, action: Callable[[Player], object], done: str, fallback: str
) -> HttpResponse:
    """Run one service for the signed-in person, say what happened (``done``, or the
    service's refusal), then go back (:func:`return_path`)."""
    person = signed_in(request)
    assert person is not None  # login_required
    try:
        action(person)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done)
    return HttpResponseRedirect(return_path(request, fallback))
