"""Who is looking at a page."""

from __future__ import annotations

from django.http import HttpRequest

from accounts.models import Player


def signed_in(request: HttpRequest) -> Player | None:
    """The logged-in person, or None for a visitor."""
    user = request.user
    return user if isinstance(user, Player) and user.is_authenticated else None
