"""Strict input: a body's fields have the JSON types their serializer declares, and no others.

The REST framework's fields coerce: ``"yes"`` became ``True``, ``"0"`` the seat 0, the
number ``12345`` the username ``"12345"``, and a field the serializer does not know (a
misspelt ``move_second``) was dropped, so the default was used without a word. Every input
serializer of the API derives from :class:`StrictSerializer`, which refuses all of that with
a 400 naming the fields before the REST framework's own validation (lengths, ranges,
choices, patterns) runs. The JSON type each kind of field takes is in one function,
:func:`type_problem`; a kind of field it does not know is a programming error, not a pass.

Integers are bounded where they are stored: the bounds below are those of the columns
(PostgreSQL's ``integer`` and ``bigint``); each integer field of an input serializer states its
own range (``tests/test_bad_inputs.py`` checks that none is left open).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import Direction
from rest_framework import serializers
from rest_framework.settings import api_settings

#: The largest value of a 32-bit signed column (``integer``, ``PositiveIntegerField``).
INT32_MAX = 2**31 - 1
#: The largest value of a 64-bit signed column (``bigint``, the primary keys).
INT64_MAX = 2**63 - 1

#: What Python's ``str.strip`` removes (``str.isspace``), spelt out: JSON Schema's ``\s`` (that
#: of ECMAScript) leaves out U+001C..U+001F and U+0085, and takes U+FEFF.
_SPACE = (
    "\\t-\\r\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)
#: A text a trimmed field takes: something besides whitespace, and no NUL (api/schema.py).
NOT_BLANK = f"^[^\\u0000]*[^\\u0000{_SPACE}][^\\u0000]*$"


def _is_integer(value: object) -> bool:
    # bool is an int in Python, and not a number in JSON.
    return type(value) is int


def type_problem(field: serializers.Field[Any, Any, Any, Any], value: object) -> Any:
    """Why ``value`` (decoded JSON) is not of the type ``field`` takes, or None if it is.

    ``null`` passes here: whether a field allows it is the field's own check.
    """
    if value is None or isinstance(field, serializers.JSONField):
        return None
    if isinstance(field, serializers.BooleanField):
        return None if type(value) is bool else ["Must be true or false."]
    if isinstance(field, serializers.IntegerField):
        return None if _is_integer(value) else ["Must be an integer."]
    if isinstance(field, serializers.FloatField):
        if not (_is_integer(value) or type(value) is float):
            return ["Must be a number."]
        return None if math.isfinite(value) else ["Must be a finite number."]  # type: ignore[arg-type]
    if isinstance(field, serializers.DateTimeField):
        # (A datetime is not JSON: it comes from the web pages' forms, already read.)
        return None if isinstance(value, str | datetime) else ["Must be a string."]
    if isinstance(field, serializers.CharField | serializers.ChoiceField):
        return None if isinstance(value, str) else ["Must be a string."]
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return ["Must be an array."]
        items = {i: type_problem(field.child, item) for i, item in enumerate(value)}
        return {i: problem for i, problem in items.items() if problem} or None
    if isinstance(field, serializers.Serializer):
        return None if isinstance(value, Mapping) else ["Must be an object."]
    raise TypeError(f"strict input does not know the JSON type of {type(field).__name__}")


class StrictSerializer(serializers.Serializer[Any]):
    # A serializer of request input that refuses what is not exactly what it declares: a
    # body that is not an object, a field it has not, a value of another JSON type. (A
    # comment, not a docstring: the schema would show a docstring on every input.)

    # Validated whole by its view even on a PATCH (drf-spectacular documents a PATCH's body
    # as partial): its schema keeps its required fields.
    whole_on_patch: ClassVar[bool] = False

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: ["Must be a JSON object."]},
                code="invalid",
            )
        writable = {name: field for name, field in self.fields.items() if not field.read_only}
        errors: dict[str, Any] = {}
        for name in data:
            if name not in writable:
                errors[str(name)] = [f"Unknown field; the fields are: {', '.join(writable)}."]
        for name, field in writable.items():
            if name in data:
                problem = type_problem(field, data[name])
                if problem:
                    errors[name] = problem
        if not errors:
            return super().to_internal_value(data)
        # The framework's own checks of the fields of the right type are reported with them.
        known = {name: value for name, value in data.items() if name in writable}
        for name in errors:
            known.pop(name, None)
        try:
            super().to_internal_value(known)
        except serializers.ValidationError as error:
            if isinstance(error.detail, Mapping):
                for name, detail in error.detail.items():
                    errors.setdefault(name, detail)
        raise serializers.ValidationError(errors)


class StrictSerializerSchema(OpenApiSerializerExtension):
    """Every strict input's schema says what the serializer does: no other properties, no
    empty string or list where the field refuses one, no text of whitespace only where the
    field trims it and then refuses a blank (drf-spectacular leaves those out)."""

    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: AutoSchema, direction: Direction) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        schema["additionalProperties"] = False
        if self.target.partial and self.target.whole_on_patch:
            required = [n for n, f in self.target.fields.items() if f.required and not f.read_only]
            if required:
                schema["required"] = required
        for name, field in self.target.fields.items():
            shown = schema.get("properties", {}).get(name, {})
            _describe_text(field, shown)
            if isinstance(field, serializers.ListField):
                _describe_text(field.child, shown.get("items", {}))
                if not field.allow_empty:
                    shown.setdefault("minItems", 1)
        return schema


def _describe_text(field: serializers.Field[Any, Any, Any, Any], shown: dict[str, Any]) -> None:
    """A text field that refuses a blank: no empty string and, where it trims, no text of
    whitespace only."""
    if isinstance(field, serializers.CharField) and not field.allow_blank:
        shown.setdefault("minLength", 1)
        if field.trim_whitespace and not {"pattern", "format", "enum"} & set(shown):
            shown["pattern"] = NOT_BLANK
