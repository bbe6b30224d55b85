"""The notification bell: what waits on the signed-in person, on every page (the bell in
base.html, ``web.templatetags.bell``), kept current by the page's script from
:func:`notifications_live`."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from notifications import live
from notifications.selectors import Notice
from web.live_lists import own_list_live


def bell_context(me: str, notices: list[Notice], version: int) -> dict[str, Any]:
    return {"me": me, "notices": notices, "version": version, "next": ""}


def bell_fragment(me: str, notices: list[Notice], version: int) -> str:
    """The bell as the person ``me`` sees it: what their notifications feed sends to each of
    their pages (notifications.live.FRAGMENTS). Rendered without a request, so its forms
    carry no CSRF token and no return path: the page's script gives them the page's own."""
    return render_to_string("web/_bell.html", bell_context(me, notices, version))


@require_GET
async def notifications_live(request: HttpRequest) -> HttpResponse:
    """``GET /notifications/live``: the signed-in person's bell as Server-Sent Events, a
    message each time what waits on them changes; one feed for all their pages."""
    return await own_list_live(request, live.SOURCE, refusal="Log in to follow your notifications.")
