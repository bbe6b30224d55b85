"""The notification bell of every page's top navigation, for a signed-in person."""

from __future__ import annotations

from typing import Any

from django import template

from notifications import live
from web.people import signed_in
from web.views.notifications import bell_context

register = template.Library()


@register.inclusion_tag("web/_bell.html", takes_context=True)
def notification_bell(context: template.Context) -> dict[str, Any]:
    """What waits on the signed-in person (one read), with the page's CSRF token and its
    path, where the bell's forms bring the person back."""
    request = context["request"]
    person = signed_in(request)
    assert person is not None  # base.html shows the bell to a signed-in person only
    notices, version = live.shown(person)
    return {
        **bell_context(person.username, notices, version),
        "csrf_token": context.get("csrf_token"),
        "next": request.get_full_path(),
    }
