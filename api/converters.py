"""The ``<id:...>`` of the API's paths: a row id, 1 to 2**63 - 1.

Django's ``<int:...>`` takes any digits: an id past the 64-bit range reached the database,
where a raw query could not bind it (a 500 on SQLite, issue #31). Such a
path now matches no route: a 404 like any id that names nothing. Registered when this module
is first imported (config/api_router.py imports it before the apps' routes).
"""

from __future__ import annotations

from django.urls import register_converter

from api.strict import INT64_MAX

#: The largest row id (PostgreSQL's ``bigint``, SQLite's ``INTEGER``).
MAX_ID = INT64_MAX


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= MAX_ID:
            raise ValueError(f"{value} is not an id")  # no route matches: 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
