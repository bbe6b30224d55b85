"""Seats in the pages' lists of tables and games, named as the table names them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django import template

from web.table import told_apart

register = template.Library()


@register.filter
def told_apart_seats(seats: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The seats of a table or a game, each with ``name``: its player's username, numbered
    when it sits more than once (two house bots of one kind), as on the table
    (:func:`web.table.told_apart`); a free seat's ``name`` is None."""
    listed = list(seats)
    names = told_apart({s["seat"]: s["username"] for s in listed if s.get("username")})
    return [{**s, "name": names.get(s["seat"])} for s in listed]
