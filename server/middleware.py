"""Django's middleware of the pages, passed by on the API's paths.

The API authenticates by token and keeps no session: Django's session, common, CSRF,
authentication and messages middleware have nothing to do on its requests, and the
authentication and messages middleware leave a reference cycle on each (the lazy user and
the message storage hold the request), for the cycle collector to find. Each class here is
Django's own, doing nothing on an API path (``/api/``, ``/healthz``); ``MIDDLEWARE`` lists
them in place of Django's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpRequest
from django.middleware import common, csrf


def is_api_path(path: str) -> bool:
    return path.startswith("/api/") or path == "/healthz"


class PagesOnly:
    """A middleware that lets an API request pass by it."""

    get_response: Callable[[HttpRequest], Any]

    def __call__(self, request: HttpRequest) -> Any:
        if is_api_path(request.path_info):
            return self.get_response(request)
        return super().__call__(request)  # type: ignore[misc]


class SessionMiddleware(PagesOnly, sessions.SessionMiddleware):
    pass


class CommonMiddleware(PagesOnly, common.CommonMiddleware):
    pass


class CsrfViewMiddleware(PagesOnly, csrf.CsrfViewMiddleware):
    def process_view(
        self,
        request: HttpRequest,
        callback: Callable[..., Any],
        callback_args: tuple[Any, ...],
        callback_kwargs: dict[str, Any],
    ) -> Any:
        if is_api_path(request.path_info):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class AuthenticationMiddleware(PagesOnly, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(PagesOnly, messages.MessageMiddleware):
    pass
