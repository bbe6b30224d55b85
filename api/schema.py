"""What the OpenAPI schema says of every endpoint alike, and where its texts come from.

Each operation's summary and description are its view's docstring (the first line, then
the rest), so the code, ``/api/v1/docs/`` and the endpoint tables of docs/api.md (made from
this schema by ``manage.py api_reference``) say the same. Each operation is tagged with its
area (the first part of its path), and gets the error answers every endpoint of its kind can
give, which the views need not list one by one.
"""

from __future__ import annotations

import inspect
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

#: The error answer, documented once: ``{"error": {"code", "message", ...}}``.
ERROR = OpenApiResponse(
    inline_serializer(
        "Error",
        {
            "error": inline_serializer(
                "ErrorDetail",
                {
                    "code": serializers.CharField(help_text="snake_case, stable"),
                    "message": serializers.CharField(help_text="for people"),
                },
            )
        },
    ),
    description='`{"error": {"code", "message", ...details}}`: docs/api.md lists the codes.',
)

#: The areas of the API (an operation's tag is the first part of its path, renamed here).
AREA_OF_PATH = {"me": "accounts", "healthz": "health", "stream": "realtime"}

#: Why any endpoint of a kind may refuse: the status, and when.
COMMON_REFUSALS = {
    "400": "a malformed body, a query with a NUL character, or bad input",
    "401": "a token that is unknown or revoked (also where none is needed), or none where one is",
    "403": "a token without the scope the endpoint needs",
    "404": "nothing at this path, or a page past the last",
    "413": "a body larger than API_MAX_BODY_BYTES",
    "429": "past the rate limit: retry after `Retry-After` seconds",
}


class ProjectAutoSchema(AutoSchema):
    def _token_needed(self) -> str:
        """``none``, ``any token``, or the scope a token needs (from the permissions)."""
        permissions = self.view.get_permissions()
        scopes = [p.required_scope for p in permissions if getattr(p, "required_scope", None)]
        if scopes:
            return " and ".join(f"`{scope}`" for scope in scopes)
        return "any token" if permissions and not _allows_any(permissions) else "none"

    def get_tags(self) -> list[str]:
        path = self.path.removeprefix("/api/v1/").strip("/")
        first = path.split("/", 1)[0]
        return [AREA_OF_PATH.get(first, first)]

    def _docstring(self) -> tuple[str, str]:
        method = getattr(self.view, self.method.lower(), None)
        text = inspect.getdoc(method) or ""
        summary, _, rest = text.partition("\n")
        return summary.strip(), rest.strip()

    def get_summary(self) -> str | None:
        return self._docstring()[0] or None

    def get_description(self) -> str:
        return self._docstring()[1]

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None or not self.path.startswith("/api/"):
            return operation
        refusals = ["400", "401", "429"]
        if self.method in ("POST", "PUT", "PATCH"):
            refusals.append("413")
        if "{" in self.path or _is_paginated(operation):
            refusals.append("404")
        if _is_paginated(operation):
            operation.setdefault("parameters", []).append(PAGE_PARAMETER)
        if any(getattr(p, "required_scope", None) for p in self.view.get_permissions()):
            refusals.append("403")
        operation["x-token"] = self._token_needed()
        error = self._get_response_for_code(ERROR, "400")
        for status in refusals:
            operation["responses"].setdefault(status, {**error, "description": _why(status)})
        return operation


#: The ``?page=`` of every paginated list (api/pagination.py: 50 a page).
PAGE_PARAMETER = {
    "in": "query",
    "name": "page",
    "required": False,
    "schema": {"type": "integer", "minimum": 1},
    "description": "The page, from 1 (50 items a page).",
}


def _allows_any(permissions: list[Any]) -> bool:
    return all(type(p).__name__ == "AllowAny" for p in permissions)


def _is_paginated(operation: dict[str, Any]) -> bool:
    content = operation["responses"].get("200", {}).get("content", {})
    reference = content.get("application/json", {}).get("schema", {}).get("$ref", "")
    return bool(reference.startswith("#/components/schemas/Paginated"))


def _why(status: str) -> str:
    return f'{COMMON_REFUSALS[status]} (`{{"error": {{"code", "message", ...}}}}`)'
