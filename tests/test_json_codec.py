"""JSON through orjson (core/json_codec.py): the API's renderer and parser give and take
what Django REST framework's did, and the games app's JSON columns round-trip through the
database in use."""

from __future__ import annotations

import datetime
import decimal
import io
import uuid
from typing import Any

import pytest
from django.db import connection
from django.utils.translation import gettext_lazy
from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError

from accounts.models import Player
from api import rendering
from core import json_codec
from realtime.models import PlayerMessage

UTC = datetime.UTC
AWKWARD: dict[str, Any] = {
    "at": datetime.datetime(2026, 11, 25, 2, 3, 4, 567890, tzinfo=UTC),
    "local": datetime.datetime(
        2026, 11, 25, 3, 3, 4, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    ),
    "day": datetime.date(2026, 11, 25),
    "time": datetime.time(2, 3, 4),
    "amount": decimal.Decimal("1.25"),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("Not found."),
    "text": 'naïve — \u2028 and \u2029 "quoted" \\ \n',
    "numbers": [0, -1, 2**63 - 1, 1.5, True, False, None],
    3: "an integer key",
    "nested": {"list": [{"a": [1, {"b": ()}]}], "empty": {}},
}


def test_it_renders_what_rest_frameworks_renderer_renders() -> None:
    ours = rendering.JSONRenderer().render(AWKWARD)
    theirs = renderers.JSONRenderer().render(AWKWARD)

    assert ours == theirs
    assert b"\\u2028" in ours and "\u2028".encode() not in ours


def test_it_leaves_an_indented_rendering_to_rest_framework() -> None:
    accepted = "application/json; indent=2"

    ours = rendering.JSONRenderer().render(AWKWARD, accepted, {})

    assert ours == renderers.JSONRenderer().render(AWKWARD, accepted, {})
    assert b'\n  "at"' in ours


def test_it_parses_what_rest_frameworks_parser_parses() -> None:
    body = '{"type": "play", "card": "10♥", "n": [1, 2.5, null, true], "deep": {"x": "é"}}'

    def parse(parser: parsers.JSONParser, context: dict[str, Any]) -> Any:
        return parser.parse(
            io.BytesIO(body.encode(context.get("encoding", "utf-8"))), None, context
        )

    for context in ({}, {"encoding": "utf-8"}, {"encoding": "UTF8"}, {"encoding": "latin-1"}):
        if context.get("encoding") == "latin-1":
            body = body.replace("♥", "H")  # latin-1 has no heart
        assert parse(rendering.JSONParser(), context) == parse(parsers.JSONParser(), context)


@pytest.mark.parametrize("body", [b'{"type": "trump",', b"{'type': 'trump'}", b"", b"NaN", b"\xff"])
def test_it_refuses_malformed_json_as_rest_framework_does(body: bytes) -> None:
    with pytest.raises(ParseError):
        parsers.JSONParser().parse(io.BytesIO(body), None, {})
    with pytest.raises(ParseError, match="JSON parse error"):
        rendering.JSONParser().parse(io.BytesIO(body), None, {})


def test_it_encodes_json_values_compactly_and_refuses_others() -> None:
    assert json_codec.dumps({"a": [1, None], 1: "é"}) == '{"a":[1,null],"1":"é"}'.encode()
    with pytest.raises(TypeError):
        json_codec.dumps({"a": object()})


@pytest.mark.django_db
def test_it_stores_and_reads_json_columns_through_the_database() -> None:
    player = Player.objects.create(username="json-reader")
    payload = {
        "text": AWKWARD["text"],
        "numbers": AWKWARD["numbers"],
        "nested": {"list": [{"a": [1, {"b": []}]}], "empty": {}},
        "game": 7,
    }

    PlayerMessage.objects.create(player=player, type="note", payload=payload)

    stored = PlayerMessage.objects.get(player=player)
    assert stored.payload == payload
    # The database reads it as JSON too: a lookup into it, and its own JSON functions.
    assert PlayerMessage.objects.filter(payload__game=7, payload__nested__empty={}).count() == 1
    assert PlayerMessage.objects.filter(payload__text=payload["text"]).count() == 1
    with connection.cursor() as cursor:
        table = PlayerMessage._meta.db_table
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT payload->'numbers'->>2 FROM {table} WHERE player_id = %s", [player.pk]
            )
        else:
            cursor.execute(
                f"SELECT json_extract(payload, '$.numbers[2]') FROM {table} WHERE player_id = %s",
                [player.pk],
            )
        assert str(cursor.fetchone()[0]) == str(2**63 - 1)
