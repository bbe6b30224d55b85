"""Error pages: HTML for browsers, the API's JSON error shape under ``/api/``."""

from __future__ import annotations

import sys
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from api.errors import error_body
from core.errors import DATABASE_DOWN, database_unavailable


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"


def not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("not_found", f"No such path: {request.path}"), status=404)
    return render(request, "web/errors/404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    # Called while the uncaught exception is being handled: a database that cannot be
    # reached (a page's query, the session's save) is a 503 to retry, not a bug.
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable_response(request)
    if _is_api(request):
        return JsonResponse(
            error_body("server_error", "Something went wrong on our side."), status=500
        )
    # No request context: rendering it could fail the same way the page did.
    return render(None, "web/errors/500.html", status=500)


def database_unavailable_response(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: the API's JSON error shape under ``/api/``, else a page."""
    error = database_unavailable()
    response: HttpResponse
    if _is_api(request):
        response = JsonResponse(error_body(error.code, error.message, **error.details), status=503)
    else:
        response = render(None, "web/errors/503.html", status=503)
    response["Retry-After"] = str(error.details["retry_after"])
    return response


def forbidden(request: HttpRequest, exception: Any = None) -> HttpResponse:
    return render(request, "web/errors/403.html", status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return render(request, "web/errors/403.html", {"csrf": True}, status=403)
