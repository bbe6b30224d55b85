"""The endpoint tables of docs/api.md, made from the OpenAPI schema (``manage.py
api_reference``), so that they say what ``/api/v1/docs/`` says: one row per operation, with
its body's fields, the token it needs, and its view's docstring."""

from __future__ import annotations

import re
from typing import Any

PREFIX = "/api/v1"
BLOCK = re.compile(r"(<!-- endpoints: (\w+) -->\n).*?(<!-- /endpoints -->)", re.DOTALL)


def _resolved(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema["components"]["schemas"][name]
    return node


def _body_fields(schema: dict[str, Any], operation: dict[str, Any]) -> str:
    content = operation.get("requestBody", {}).get("content", {})
    body = content.get("application/json", {}).get("schema")
    if body is None:
        return ""
    body = _resolved(schema, body)
    if "oneOf" in body and "discriminator" in body:
        # One shape per kind (actions): the kinds, told by the discriminator.
        discriminator = body["discriminator"]
        kinds = "/".join(discriminator["mapping"])
        return f" `{{{discriminator['propertyName']}: {kinds}, ...}}`"
    if "oneOf" in body:  # one of a few shapes, told by their fields (a challenge, a rematch)
        return " or".join(_fields(_resolved(schema, shape)) for shape in body["oneOf"])
    return _fields(body)


def _fields(body: dict[str, Any]) -> str:
    required = set(body.get("required", []))
    names = [name + ("" if name in required else "?") for name in body.get("properties", {})]
    return f" `{{{', '.join(names)}}}`" if names else ""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def endpoint_rows(schema: dict[str, Any]) -> dict[str, list[str]]:
    """Each area's table rows, in the schema's order."""
    rows: dict[str, list[str]] = {}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            area = operation.get("tags", ["other"])[0]
            what = operation.get("summary", "")
            if operation.get("description"):
                what += " " + operation["description"].split("\n\n")[0]
            endpoint = f"`{method.upper()} {path.removeprefix(PREFIX)}`"
            token = operation.get("x-token", "none")
            fields = _body_fields(schema, operation)
            rows.setdefault(area, []).append(f"| {endpoint}{fields} | {token} | {_cell(what)} |")
    return rows


def with_endpoint_tables(text: str, schema: dict[str, Any]) -> str:
    """``text`` (docs/api.md) with each ``<!-- endpoints: AREA -->`` block made anew."""
    rows = endpoint_rows(schema)

    def table(match: re.Match[str]) -> str:
        head = "| endpoint | token | what |\n|---|---|---|\n"
        return (
            match.group(1) + head + "\n".join(rows.get(match.group(2), [])) + "\n" + match.group(3)
        )

    return BLOCK.sub(table, text)
