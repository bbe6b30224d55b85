"""Where a form sends the person once it is done: the page they came from, when it is one of
this site's (a log-in's ``?next=``, the notification bell's forms)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def return_path(request: HttpRequest, fallback: str) -> str:
    """The request's ``next`` (the form's, else the query's) when it is an address of this
    site, never another site's (nor a scheme-relative ``//host``); else ``fallback``."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return fallback
