"""What every view does with a request: validate its body, read a number.

(Its caller: ``accounts.auth.caller``.)"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from core.errors import Invalid


def valid(serializer_class: type[Any], data: Any) -> dict[str, Any]:
    """``data`` validated by ``serializer_class`` (a 400 ``invalid`` with the fields if not)."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def int_param(request: HttpRequest, name: str, *, default: int, low: int, high: int) -> int:
    """The integer query parameter ``name`` in ``low..high`` (``default`` when absent)."""
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Invalid("invalid", f"{name} must be an integer.") from None
    if not low <= value <= high:
        raise Invalid("invalid", f"{name} must be between {low} and {high}.")
    return value
