"""Who is looking at a page."""

from __future__ import annotations

from django.http import HttpRequest

from accounts.models import Player


def signed_in(request: HttpRequest) -> Player | None:
    """The logged-in person, or None for a visitor."""
    user = request.user
    return user if isinstance(user, Player) and user.is_authenticated else None


#: Set in the session by a sign-up: the start page then welcomes a new person, once, rather
#: than welcoming them back.
NEW_PERSON_KEY = "web.new_person"


def mark_new_person(request: HttpRequest) -> None:
    request.session[NEW_PERSON_KEY] = True


def first_welcome(request: HttpRequest) -> bool:
    """Whether this page is the first start page since the person signed up (told once)."""
    return bool(request.session.pop(NEW_PERSON_KEY, False))
