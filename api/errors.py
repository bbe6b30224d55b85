"""The API's one error shape, ``{"error": {"code": "snake_case", "message": "...", ...}}``,
and the one table that turns a service's refusal (``core.errors``) into an HTTP status.

Both kinds of views answer errors here: the REST framework's through
:func:`exception_handler` (its ``EXCEPTION_HANDLER``), the async waiting views through
:func:`error_response` (their database work turns a database that cannot be reached into
``Unavailable``, api/asyncviews.py).
"""

from __future__ import annotations

from typing import Any

from django.http import JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import (
    DATABASE_DOWN,
    Conflict,
    DomainError,
    Invalid,
    NotAllowed,
    NotAuthenticated,
    NotFound,
    RateLimited,
    Unavailable,
    database_unavailable,
)

#: The HTTP status of each kind of refusal (a subclass takes its nearest listed base's).
STATUS_BY_KIND: dict[type[DomainError], int] = {
    Invalid: status.HTTP_400_BAD_REQUEST,
    NotAuthenticated: status.HTTP_401_UNAUTHORIZED,
    NotAllowed: status.HTTP_403_FORBIDDEN,
    NotFound: status.HTTP_404_NOT_FOUND,
    Conflict: status.HTTP_409_CONFLICT,
    RateLimited: status.HTTP_429_TOO_MANY_REQUESTS,
    Unavailable: status.HTTP_503_SERVICE_UNAVAILABLE,
}

#: The codes of the REST framework's own errors (a request it could not parse, a method the
#: view has not...), by status.
_CODES_BY_STATUS = {
    status.HTTP_400_BAD_REQUEST: "invalid",
    status.HTTP_401_UNAUTHORIZED: "not_authenticated",
    status.HTTP_403_FORBIDDEN: "permission_denied",
    status.HTTP_404_NOT_FOUND: "not_found",
    status.HTTP_405_METHOD_NOT_ALLOWED: "method_not_allowed",
    status.HTTP_406_NOT_ACCEPTABLE: "not_acceptable",
    status.HTTP_409_CONFLICT: "conflict",
    status.HTTP_415_UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
    status.HTTP_429_TOO_MANY_REQUESTS: "rate_limited",
}


def status_of(error: DomainError) -> int:
    for kind in type(error).__mro__:
        if kind in STATUS_BY_KIND:
            return STATUS_BY_KIND[kind]
    raise TypeError(f"{type(error).__name__} is not a kind the API knows")


def error_body(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **details}}


def error_headers(error: DomainError) -> dict[str, str]:
    """``Retry-After`` with a rate limit or a 503, ``WWW-Authenticate`` with a 401."""
    headers = {}
    if "retry_after" in error.details:
        headers["Retry-After"] = str(error.details["retry_after"])
    if isinstance(error, NotAuthenticated):
        headers["WWW-Authenticate"] = "Token"
    return headers


def error_response(error: DomainError) -> JsonResponse:
    """The response of an async view that could not serve the request."""
    response = JsonResponse(
        error_body(error.code, error.message, **error.details), status=status_of(error)
    )
    for name, value in error_headers(error).items():
        response[name] = value
    return response


def method_not_allowed(allowed: str) -> JsonResponse:
    """The 405 of an async view, which the REST framework does not route."""
    response = JsonResponse(
        error_body("method_not_allowed", f"Use {allowed}."),
        status=status.HTTP_405_METHOD_NOT_ALLOWED,
    )
    response["Allow"] = allowed
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """The REST framework's handler, with every error rewritten into the one shape (the
    database unreachable: 503 ``service_unavailable``)."""
    if isinstance(exc, DATABASE_DOWN):
        exc = database_unavailable()
    if isinstance(exc, DomainError):
        return Response(
            error_body(exc.code, exc.message, **exc.details),
            status=status_of(exc),
            headers=error_headers(exc),
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = _CODES_BY_STATUS.get(response.status_code, "error")
    details: dict[str, Any] = {}
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
        message = "The request is not valid."
        details["fields"] = exc.detail
    elif isinstance(exc, exceptions.ParseError):
        code = "malformed_json"
        message = str(exc.detail)
    elif isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait or 1)
        message = f"Too many requests; retry in {wait} s."
        details["retry_after"] = wait
    else:
        message = str(getattr(exc, "detail", exc))
    response.data = error_body(code, message, **details)
    return response
