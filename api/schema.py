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
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    inline_serializer,
)
from rest_framework import serializers

from api.converters import MAX_ID
from api.strict import INT32_MAX

#: A string parameter without NUL: PostgreSQL cannot store it, so the API refuses it (400).
NO_NUL = "^[^\\u0000]*$"

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
                    "fields": serializers.DictField(
                        required=False, help_text="with `invalid`: what is wrong with each field"
                    ),
                    "retry_after": serializers.IntegerField(
                        required=False,
                        min_value=1,
                        help_text="with a 429 or a 503: seconds to wait, as `Retry-After` says",
                    ),
                },
            )
        },
    ),
    description='`{"error": {"code", "message", ...details}}`: docs/api.md lists the codes.',
)

#: The areas of the API (an operation's tag is the first part of its path, renamed here).


def live_stream_parameters(
    *, after: str, fragments: tuple[str, ...], fragment: str
) -> list[OpenApiParameter]:
    """The parameters of a live stream (Server-Sent Events): where to resume (``after``
    names what its ids count), and the page fragments its messages may carry."""
    position = {"type": "integer", "minimum": 0, "maximum": INT32_MAX}
    return [
        OpenApiParameter(
            "after",
            position,
            description=f"start after this {after} (the `Last-Event-ID` header wins over it)",
        ),
        OpenApiParameter(
            "fragment", {"type": "string", "enum": list(fragments)}, description=fragment
        ),
        OpenApiParameter(
            "Last-Event-ID",
            position,
            location=OpenApiParameter.HEADER,
            description="the `id` of the last message received (sent by EventSource when it "
            "reconnects)",
        ),
    ]


def live_stream_responses(*refusals: int) -> dict[Any, Any]:
    """The answers of a live stream: the stream, 204 when there is nothing more to follow,
    and the refusals (400, 401, 404, 429 and ``refusals``)."""
    return {
        (200, "text/event-stream"): OpenApiTypes.STR,
        204: None,
        **{status: ERROR for status in sorted({400, 401, 404, 429, *refusals})},
    }


AREA_OF_PATH = {"me": "accounts", "healthz": "health", "stream": "realtime", "records": "games"}

#: Why any endpoint of a kind may refuse: the status, and when.
COMMON_REFUSALS = {
    "400": "a malformed body, a query with a NUL character, bad input, or a `Host` the server"
    " does not answer to",
    "401": "a token that is unknown or revoked (also where none is needed), or none where one is",
    "403": "a token without the scope the endpoint needs, or a logged-in browser's unsafe"
    " request without its CSRF token",
    "404": "nothing at this path (an id out of range too), or a page past the last",
    "406": "an `Accept` header that does not take JSON",
    "413": "a body larger than API_MAX_BODY_BYTES",
    "415": "a body that is not `application/json`",
    "429": "past the rate limit: retry after `Retry-After` seconds",
    "503": "`service_unavailable`: the database cannot be reached; retry after `Retry-After`"
    " seconds",
}

#: The ``Retry-After`` header of a 429 and a 503 (whole seconds; the body's ``retry_after``).
RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer", "minimum": 1},
        "required": True,
        "description": "Seconds to wait before trying again.",
    }
}

#: The ``WWW-Authenticate`` header of a 401: the scheme the API wants.
WWW_AUTHENTICATE = {
    "WWW-Authenticate": {
        "schema": {"type": "string", "enum": ["Token"]},
        "description": "`Token`: send `Authorization: Token <key>`.",
    }
}

HEADERS_OF_STATUS = {"401": WWW_AUTHENTICATE, "429": RETRY_AFTER, "503": RETRY_AFTER}

UNSAFE_METHODS = ("POST", "PUT", "PATCH", "DELETE")

#: The async views, which answer JSON (or the stream) whatever the ``Accept`` header says.
WITHOUT_NEGOTIATION = {"games_events", "stream"}


class ProjectAutoSchema(AutoSchema):
    def _get_request_for_media_type(
        self, serializer: Any, direction: str = "request"
    ) -> tuple[Any, bool]:
        schema, required = super()._get_request_for_media_type(serializer, direction)
        # A body of one of several kinds (an action) has no top-level ``required`` for
        # drf-spectacular to find, yet every kind needs its ``type``: without a body the
        # request is refused, and the schema must say so.
        if isinstance(serializer, PolymorphicProxySerializer):
            required = True
        return schema, required

    def _token_needed(self) -> str:
        """``none``, ``any token``, or the scope a token needs (from the permissions)."""
        permissions = self.view.get_permissions()
        scopes = [p.required_scope for p in permissions if getattr(p, "required_scope", None)]
        if scopes:
            return " and ".join(f"`{scope}`" for scope in scopes)
        return "any token" if permissions and not _allows_any(permissions) else "none"

    def get_auth(self) -> list[dict[str, list[str]]]:
        """A token where one is needed; elsewhere optional (``[{}, {"tokenAuth": []}]``): a
        token there changes what the caller sees (a seated player's hand), and an unknown
        or revoked one is still a 401."""
        schemes = [auth for auth in super().get_auth() if auth]
        if not schemes or self._token_needed() != "none":
            return schemes
        return [{}, *schemes]

    def get_tags(self) -> list[str]:
        path = self.path.removeprefix("/api/v1/").strip("/")
        parts = path.split("/")
        if "chat" in parts:  # a game's and a tournament's rooms are documented with chat's
            return ["chat"]
        return [AREA_OF_PATH.get(parts[0], parts[0])]

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
        paginated = _is_paginated(operation)
        if paginated:
            operation.setdefault("parameters", []).append(PAGE_PARAMETER)
        for parameter in operation.get("parameters", []):
            _bound(parameter)
        operation["x-token"] = self._token_needed()
        error = self._get_response_for_code(ERROR, "400")
        for status in self._refusals(operation, paginated=paginated):
            answer = {**error, "description": _why(status)}
            if status in HEADERS_OF_STATUS:
                answer["headers"] = HEADERS_OF_STATUS[status]
            documented = operation["responses"].setdefault(status, answer)
            documented.setdefault("headers", HEADERS_OF_STATUS.get(status))
            if documented["headers"] is None:
                del documented["headers"]
        return operation

    def _refusals(self, operation: dict[str, Any], *, paginated: bool) -> list[str]:
        """The error statuses any operation of this kind can answer (the views list the
        others: 404 of a name, 409...)."""
        refusals = ["400", "401", "429", "503"]
        if self.method in ("POST", "PUT", "PATCH"):
            refusals.append("413")
        if "requestBody" in operation:
            refusals.append("415")
        if operation["operationId"] not in WITHOUT_NEGOTIATION:
            refusals.append("406")
        if "{" in self.path or paginated:
            refusals.append("404")
        scoped = any(getattr(p, "required_scope", None) for p in self.view.get_permissions())
        if scoped or self.method in UNSAFE_METHODS:
            refusals.append("403")
        return refusals


#: The ``?page=`` of every paginated list (api/pagination.py: 50 a page).
PAGE_PARAMETER = {
    "in": "query",
    "name": "page",
    "required": False,
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "description": "The page, from 1 (50 items a page); past the last, a 404.",
}


def _bound(parameter: dict[str, Any]) -> None:
    """The limits the server enforces on every parameter of their kind: an id in a path is a
    positive 64-bit integer; a string has no NUL (and a path's has no ``/``)."""
    shape = parameter.setdefault("schema", {})
    if shape.get("type") == "integer" and parameter["in"] == "path":
        shape.setdefault("minimum", 1)
        shape.setdefault("maximum", MAX_ID)
    elif shape.get("type") == "string" and "enum" not in shape:
        if parameter["in"] == "path":
            shape.setdefault("pattern", "^[^/\\u0000]+$")
            shape.setdefault("maxLength", PATH_STRING_MAX_LENGTH)
        elif parameter["in"] == "query":
            shape.setdefault("pattern", NO_NUL)


#: A name in a path: a username (30), or an entrant's name (``house:random #2``, 160).
PATH_STRING_MAX_LENGTH = 160


def _allows_any(permissions: list[Any]) -> bool:
    return all(type(p).__name__ == "AllowAny" for p in permissions)


def _is_paginated(operation: dict[str, Any]) -> bool:
    content = operation["responses"].get("200", {}).get("content", {})
    reference = content.get("application/json", {}).get("schema", {}).get("$ref", "")
    return bool(reference.startswith("#/components/schemas/Paginated"))


def _why(status: str) -> str:
    return f'{COMMON_REFUSALS[status]} (`{{"error": {{"code", "message", ...}}}}`)'


def no_nul_in_request_texts(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """A postprocessing hook: every text of a request body (a ``...Request`` component)
    without a pattern, format or choices of its own gets :data:`NO_NUL` (api/middleware.py
    refuses NUL anywhere in a body)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            _forbid_nul(component)
    return result


def _forbid_nul(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _forbid_nul(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and not {"pattern", "format", "enum"} & set(node):
        node["pattern"] = NO_NUL
    for key in ("properties", "items", "additionalProperties", "oneOf", "anyOf", "allOf"):
        if key == "properties":
            for child in node.get(key, {}).values():
                _forbid_nul(child)
        elif key in node:
            _forbid_nul(node[key])
