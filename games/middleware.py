"""API request guards that must run before any view: a bounded body size."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

from config.api_errors import error_body


class ApiBodyLimitMiddleware:
    """Refuse API bodies over ``API_MAX_BODY_BYTES`` with 413 ``body_too_large``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and request.method in ("POST", "PUT", "PATCH"):
            limit = settings.API_MAX_BODY_BYTES
            too_big = False
            try:
                too_big = int(request.META.get("CONTENT_LENGTH") or 0) > limit
            except ValueError:
                too_big = True
            if not too_big:
                try:
                    too_big = len(request.body) > limit
                except RequestDataTooBig:
                    too_big = True
            if too_big:
                return JsonResponse(
                    error_body("body_too_large", f"Request bodies are limited to {limit} bytes."),
                    status=413,
                )
        return self.get_response(request)
