"""The OpenAPI schema's texts come from the views' docstrings, and docs/api.md's endpoint
tables from the schema (``manage.py api_reference``): the two say the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from api.reference import with_endpoint_tables
from config.management.commands import api_reference
from config.management.commands.api_reference import API_DOC, current_schema

AREAS = {
    "accounts", "bots", "tables", "seeks", "games", "players", "ratings", "tournaments",
    "realtime", "health", "arena", "challenges", "notifications",
}  # fmt: skip


def operations() -> list[tuple[str, str, dict[str, object]]]:
    return [
        (method.upper(), path, operation)
        for path, item in current_schema()["paths"].items()
        for method, operation in item.items()
    ]


def test_it_gives_every_operation_a_summary_and_an_area() -> None:
    found = operations()

    assert len(found) >= 40
    for method, path, operation in found:
        assert operation.get("summary"), f"{method} {path} has no docstring"
        assert operation["tags"] in ([area] for area in AREAS), (method, path, operation["tags"])


def test_it_lists_every_operation_in_docs_api_md() -> None:
    text = API_DOC.read_text()

    for method, path, _ in operations():
        assert f"`{method} {path.removeprefix('/api/v1')}`" in text, (method, path)


def test_it_keeps_the_endpoint_tables_of_docs_api_md_current() -> None:
    call_command("api_reference", "--check")


def test_it_tells_a_stale_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    current = API_DOC.read_text()
    stale = current.replace("Register a human account.", "Make an account.", 1)
    copy = tmp_path / "api.md"
    copy.write_text(stale)
    monkeypatch.setattr(api_reference, "API_DOC", copy)

    assert stale != current
    with pytest.raises(CommandError):
        call_command("api_reference", "--check")
    call_command("api_reference")
    assert copy.read_text() == current == with_endpoint_tables(stale, current_schema())
