"""Real responses checked against the OpenAPI schema the platform serves.

The suite's API client (tests/api_client.py) hands every response here: its status must be
one the operation documents, and a JSON body must match the documented shape of that status
(types, required fields, enums; fields beyond the documented ones are allowed, as the schema
does not forbid them).
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import jsonschema
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer


@cache
def schema() -> dict[str, Any]:
    """The schema as ``/api/v1/schema/`` serves it, as plain JSON values."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return dict(json.loads(OpenApiJsonRenderer().render(generated)))


@cache
def _operations() -> list[tuple[re.Pattern[str], str, dict[str, Any]]]:
    found = []
    for template, item in schema()["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$")
        for method, operation in item.items():
            found.append((pattern, method.upper(), operation))
    return found


def operation_for(method: str, path: str) -> dict[str, Any] | None:
    """The documented operation of ``method`` on ``path`` (a path without its query)."""
    for pattern, documented, operation in _operations():
        if documented == method.upper() and pattern.match(path):
            return operation
    return None


def as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable: true`` becomes a union with null."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: as_json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def _components() -> Any:
    return as_json_schema(schema().get("components", {}))


def check_response(method: str, path: str, status: int, content_type: str, body: bytes) -> None:
    """Fail unless the schema documents this response (``path`` without its query)."""
    operation = operation_for(method, path)
    if operation is None:
        return  # not an API operation of the schema (a 404 or 405 of an unknown path)
    responses = operation["responses"]
    documented = responses.get(str(status)) or responses.get("default")
    assert documented is not None, (
        f"{method} {path} answered {status}, which the schema does not document"
        f" (it documents {sorted(responses)}): {body[:300]!r}"
    )
    media = documented.get("content", {}).get("application/json")
    if media is None or not content_type.startswith("application/json") or not body:
        return
    shape = {**as_json_schema(media["schema"]), "components": _components()}
    try:
        jsonschema.validate(json.loads(body), shape)
    except jsonschema.ValidationError as error:
        raise AssertionError(
            f"{method} {path} {status}: the body does not match the schema at"
            f" {list(error.absolute_path)}: {error.message}"
        ) from None
