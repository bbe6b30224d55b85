"""What every view does with a request: validate its body, read a query parameter.

Query parameters are as strict as bodies (api/strict.py): an integer is written in ASCII
digits (no ``+``, spaces, ``_`` or other scripts' digits, which ``int()`` would take) and in
its range, a named value is one of its values; else a 400 ``invalid`` naming the parameter.

(Its caller: ``accounts.auth.caller``.)"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.http import HttpRequest

from core.errors import Invalid

_INTEGER = re.compile(r"-?[0-9]{1,20}")


def valid(serializer_class: type[Any], data: Any, **kwargs: Any) -> dict[str, Any]:
    """``data`` validated by ``serializer_class`` (a 400 ``invalid`` with the fields if not)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _refused(name: str, message: str) -> Invalid:
    return Invalid("invalid", message, fields={name: [message]})


def int_param(request: HttpRequest, name: str, *, default: int, low: int, high: int) -> int:
    """The integer query parameter ``name`` in ``low..high`` (``default`` when absent)."""
    raw = request.GET.get(name)
    if raw is None:
        return default
    return valid_int(name, raw, low=low, high=high)


def valid_int(name: str, raw: str, *, low: int, high: int) -> int:
    """``raw`` (a query parameter's or a header's text, called ``name``) as an integer in
    ``low..high``."""
    if not _INTEGER.fullmatch(raw):
        raise _refused(name, f"{name} must be an integer.")
    value = int(raw)
    if not low <= value <= high:
        raise _refused(name, f"{name} must be between {low} and {high}.")
    return value


def resume_point(request: HttpRequest, *, high: int) -> int | None:
    """Where a live stream resumes: after the ``Last-Event-ID`` header (which EventSource
    sends when it reconnects), else after the ``after`` query parameter; None with neither
    (a new watcher, sent everything)."""
    last_event_id = request.headers.get("Last-Event-ID")
    if last_event_id is not None:
        return valid_int("Last-Event-ID", last_event_id, low=0, high=high)
    if "after" in request.GET:
        return int_param(request, "after", default=0, low=0, high=high)
    return None


def choice_param(request: HttpRequest, name: str, choices: Iterable[str]) -> str | None:
    """The query parameter ``name``, one of ``choices`` (None when absent)."""
    raw = request.GET.get(name)
    if raw is None:
        return None
    known = list(choices)
    if raw not in known:
        allowed = f"{', '.join(known[:-1])} or {known[-1]}" if len(known) > 1 else known[0]
        raise _refused(name, f"{name} must be {allowed}.")
    return raw


def no_body(data: Any) -> None:
    """Refuse fields sent to an endpoint that takes none (a body of ``{}`` or none is fine)."""
    if isinstance(data, Mapping):
        if data:
            message = "This request takes no fields."
            raise Invalid("invalid", message, fields={str(name): [message] for name in data})
        return
    raise Invalid(
        "invalid", "The body must be empty or {}.", fields={"non_field_errors": ["Not {}."]}
    )
