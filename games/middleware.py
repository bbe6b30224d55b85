"""API request guards that run before any view: a bounded body size, no NUL characters."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

from config.api_errors import error_body


def _has_nul(request: HttpRequest, body: bytes) -> bool:
    # PostgreSQL cannot store NUL in text or jsonb; refusing it here keeps every view from
    # answering 500 to a NUL in a username, a filter or a JSON string.
    query = unquote(request.META.get("QUERY_STRING", ""))
    return (
        "\x00" in request.path or "\x00" in query or b"\x00" in body or b"\\u0000" in body.lower()
    )


class ApiGuardMiddleware:
    """Refuse API bodies over ``API_MAX_BODY_BYTES`` (413 ``body_too_large``) and requests
    carrying NUL characters (400 ``invalid``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/api/"):
            return self.get_response(request)
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
            return JsonResponse(
                error_body("invalid", "NUL characters are not accepted."), status=400
            )
        return self.get_response(request)
