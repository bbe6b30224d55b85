"""JSON through orjson wherever a move encodes or decodes it.

A move encodes the caller's new view (its response) and the next seat's (its ``your_turn``
stream line, and the stored message it is sent from). orjson encodes and decodes such a
view several times faster than the json module, so the API's bodies (Django REST
framework's renderer and parser, in ``api.rendering``), the stream lines and the JSON
columns go through orjson.

The responses are the bytes DRF's renderer gave (compact, UTF-8, keys in order); stream lines
and the JSON columns' text (on SQLite) are now compact too, the same JSON values. orjson
differs on values the platform does not make: a NaN is encoded as ``null`` (DRF's strict
renderer raised), and a decoded integer beyond 64 bits becomes a float.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg.types.json import Jsonb  # psycopg is installed in either mode


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON (a value of a type JSON has not is a ``TypeError``)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text`` (an integer beyond 64 bits comes back as a float)."""
    return orjson.loads(text)


class JSONField(models.JSONField):
    """Django's ``JSONField``, its values encoded and decoded by orjson (a field given an
    encoder or a decoder of its own keeps Django's)."""

    if TYPE_CHECKING:  # a model's attribute holds the JSON value, not the field

        def __get__(self, instance: Any, owner: Any) -> Any: ...

        def __set__(self, instance: Any, value: Any) -> None: ...

    def get_db_prep_value(
        self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False
    ) -> Any:
        if self.encoder is not None:
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        if connection.vendor == "postgresql":  # as Django's connection.ops.adapt_json_value
            return Jsonb(value, dumps=dumps)
        return dumps(value).decode()

    def from_db_value(self, value: Any, expression: Any, connection: BaseDatabaseWrapper) -> Any:
        if self.decoder is not None or not isinstance(value, str):
            return super().from_db_value(value, expression, connection)
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value  # as Django's: a key's plain text value (SQLite)
