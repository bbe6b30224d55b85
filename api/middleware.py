"""API request guards that run before any view: a known host, a bounded body, no NUL.

It runs in the middleware of every sync view; the waiting (async) views, served without
the middleware (server/handlers.py), have :func:`refusal` applied directly.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

from api.errors import error_body


def _has_nul(request: HttpRequest, body: bytes) -> bool:
    # PostgreSQL cannot store NUL in text or jsonb; refusing it here keeps every view from
    # answering 500 to a NUL in a username, a filter or a JSON string.
    query = unquote(request.META.get("QUERY_STRING", ""))
    return (
        "\x00" in request.path or "\x00" in query or b"\x00" in body or b"\\u0000" in body.lower()
    )


def _unknown_host(request: HttpRequest) -> HttpResponse | None:
    """400 ``invalid_host`` in the error shape for a ``Host`` not in ``ALLOWED_HOSTS`` (the
    pages keep Django's HTML 400); logged as Django logs it."""
    try:
        request.get_host()
    except DisallowedHost as error:
        host = request.META.get("HTTP_HOST", "")
        logging.getLogger("django.security.DisallowedHost").error(
            str(error), extra={"status_code": 400}
        )
        return JsonResponse(
            error_body("invalid_host", f"This server does not answer to the host {host!r}."),
            status=400,
        )
    return None


def refusal(request: HttpRequest) -> HttpResponse | None:
    """The response refusing this API request, or None to let it through."""
    if not request.path.startswith("/api/"):
        return None
    refused = _unknown_host(request)
    if refused is not None:
        return refused
    body = b""
    if request.method in ("POST", "PUT", "PATCH"):
        limit = settings.API_MAX_BODY_BYTES
        try:
            too_big = int(request.META.get("CONTENT_LENGTH") or 0) > limit
        except ValueError:
            too_big = True
        if not too_big:
            try:
                body = request.body
                too_big = len(body) > limit
            except RequestDataTooBig:
                too_big = True
        if too_big:
            return JsonResponse(
                error_body("body_too_large", f"Request bodies are limited to {limit} bytes."),
                status=413,
            )
    if _has_nul(request, body):
        return JsonResponse(error_body("invalid", "NUL characters are not accepted."), status=400)
    return None


class ApiGuardMiddleware:
    """Refuse API bodies over ``API_MAX_BODY_BYTES`` (413 ``body_too_large``), requests
    carrying NUL characters (400 ``invalid``) and unknown hosts (400 ``invalid_host``)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if self.is_async:
            return self._acall(request)
        return refusal(request) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        refused = refusal(request)
        if refused is not None:
            return refused
        response: HttpResponse = await self.get_response(request)
        return response
