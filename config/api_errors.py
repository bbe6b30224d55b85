"""The API's one error shape: ``{"error": {"code": "snake_case", "message": "...", ...}}``."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, status
from rest_framework.response import Response

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


class ApiError(exceptions.APIException):
    """An error with an API.md code and optional extra fields in the error object."""

    def __init__(self, status_code: int, code: str, message: str, **details: Any) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.error_code = code
        self.details = details


def error_body(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **details}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with every error rewritten into the API.md shape."""
    # Imported here: rest_framework.views loads the authentication classes named in the
    # settings, which import ApiError from this module.
    from rest_framework.views import exception_handler as drf_exception_handler

    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        response.data = error_body(exc.error_code, str(exc.detail), **exc.details)
        if exc.status_code == status.HTTP_401_UNAUTHORIZED:
            response["WWW-Authenticate"] = "Token"
        return response
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
