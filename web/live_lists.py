"""A person's own live list (``realtime.feeds.PersonalList``: their challenges, their
notifications) served to their pages as Server-Sent Events."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from accounts.auth import authenticate_session
from accounts.models import Player
from api.asyncviews import in_thread
from realtime.delivery import feeds
from web.views.home import list_resume_point


def _caller(request: HttpRequest) -> tuple[Player | None, int | None]:
    """(the signed-in person, the list's mark the page shows), in one crossing to a thread.
    The person comes from the session cookie alone."""
    found = authenticate_session(request)
    return (found[0] if found is not None else None), list_resume_point(request)


async def own_list_live(
    request: HttpRequest, source: feeds.PersonalList[Any], *, refusal: str
) -> HttpResponse:
    """The signed-in person's own list from ``source``, a message each time it changes; one
    feed of the person for all their pages. 403 (``refusal``) for a visitor: EventSource
    does not retry it."""
    person, after = await in_thread(_caller)(request)
    if person is None:
        return HttpResponse(refusal, status=403)
    subscriber = await source.follow(person.pk, token_id=person.api_token_id, after=after)
    frames = feeds.frames_of(subscriber, settings.LIVE_KEEPALIVE_SECONDS)
    response = StreamingHttpResponse(frames, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response
