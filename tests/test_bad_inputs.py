"""Bad inputs, table by table: every endpoint that reads a body or a query parameter refuses
wrong JSON types, unknown (misspelt) fields, out-of-range and huge numbers, empty and overlong
strings, arrays and scalars for objects, nulls and junk in rules with a 400 naming the field
(issue #31 item 5, docs/api.md "Input"), and changes nothing; the good forms still pass.

Each table is one endpoint's; a test sends all of its rows to the live server (one setup
per endpoint: a game or a tournament is not made again for every row) and names the row
that fails.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest
from rest_framework import serializers

from api.strict import StrictSerializer
from games.engine import ACTION_TYPES
from games.serializers import valid_action
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer
from tests.schema_check import as_json_schema, operation_for, schema

pytestmark = pytest.mark.django_db(transaction=True)

JSON = {"Content-Type": "application/json"}
#: JSON Schema counts 1.0 an integer; the API does not (as the engine's rules do not:
#: docs/rules.md), so the schema cannot refuse such a body.
FLOAT_INTEGER = False
#: The schema gives a string's ``format`` (uri, date-time), which JSON Schema validators do
#: not check unless asked.
FORMAT_ONLY = False
BODY = "non_field_errors"  # where a body that is not an object is named
LONG = "x" * 5000


@dataclass(frozen=True)
class Bad:
    """A bad body (a JSON value, or raw ``bytes``) and the field its 400 must name;
    ``documented``: the schema refuses it too (a body the server refuses for what only it
    knows, or for a string ``format`` a JSON Schema validator does not check, is not)."""

    body: Any
    field: str | None
    code: str = "invalid"
    documented: bool = True


def request_schema(method: str, path: str) -> dict[str, Any] | None:
    """The JSON Schema of the body of ``method path``, as the served schema gives it."""
    operation = operation_for(method, "/api/v1" + path)
    assert operation is not None, (method, path)
    media = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if media is None:
        return None
    return {**as_json_schema(media["schema"]), "components": as_json_schema(schema()["components"])}


def schema_allows(shape: dict[str, Any], body: Any) -> bool:
    try:
        jsonschema.validate(body, shape)
    except jsonschema.ValidationError:
        return False
    return True


def rules(**options: Any) -> dict[str, Any]:
    return {"rules": {"preset": "classic", **options}}


def refuses(client: Client, method: str, path: str, bad: Bad) -> None:
    """``bad`` sent to ``path`` is a 400 with its code, naming its field."""
    if isinstance(bad.body, bytes):
        response = client.request(method, path, content=bad.body, headers=JSON)
    else:
        response = client.request(method, path, content=json.dumps(bad.body), headers=JSON)
    error = error_of(response, 400, bad.code)
    if bad.field is not None:
        assert bad.field in error.get("fields", {}), (bad, error)


def refuses_all(client: Client, method: str, path: str, table: list[Bad]) -> None:
    """Every row of ``table`` refused by the server, and by the schema where it says so."""
    shape = request_schema(method, path)
    for bad in table:
        try:
            refuses(client, method, path, bad)
            if shape is not None and bad.documented and not isinstance(bad.body, bytes):
                assert not schema_allows(shape, bad.body), "the schema allows it"
        except AssertionError as failure:
            raise AssertionError(f"{method} {path} {bad!r}: {failure}") from failure


# Bodies that are not objects: every endpoint with a body refuses them the same way.
NOT_OBJECTS = [Bad(body, BODY) for body in ([], [{}], "classic", 17, True, None)]
# Endpoints that take no fields: a field sent to them is unknown too.
NO_BODY = [
    Bad([], BODY),
    Bad("go", BODY),
    Bad(None, BODY),
    Bad({"player": "bob"}, "player"),
    Bad({"now": True}, "now"),
]
# NaN, infinities and numbers beyond a double are not JSON: the body does not parse.
NOT_JSON = [
    Bad(b'{"move_seconds": NaN}', None, "malformed_json"),
    Bad(b'{"move_seconds": Infinity}', None, "malformed_json"),
    Bad(b'{"move_seconds": -Infinity}', None, "malformed_json"),
    Bad(b'{"move_seconds": 1e400}', None, "malformed_json"),
    Bad(b'{"move_seconds": 60,}', None, "malformed_json"),
]

TABLE_CREATE = [
    *NOT_OBJECTS,
    *NOT_JSON,
    Bad({"rated": "yes"}, "rated"),
    Bad({"rated": "true"}, "rated"),
    Bad({"rated": 1}, "rated"),
    Bad({"rated": None}, "rated"),
    Bad({"seat": "0"}, "seat"),
    Bad({"seat": 0.0}, "seat", documented=FLOAT_INTEGER),
    Bad({"seat": True}, "seat"),
    Bad({"seat": -1}, "seat"),
    Bad({"seat": 4}, "seat"),
    Bad({"seat": 2**63}, "seat"),
    Bad({"seat": 2**64}, "seat"),
    Bad({"seat": [0]}, "seat"),
    Bad({"move_second": 30}, "move_second"),
    Bad({"moveSeconds": 30}, "moveSeconds"),
    Bad({"move_seconds": "60"}, "move_seconds"),
    Bad({"move_seconds": 60.5}, "move_seconds"),
    Bad({"move_seconds": 1e30}, "move_seconds"),
    Bad({"move_seconds": 0}, "move_seconds"),
    Bad({"move_seconds": -60}, "move_seconds"),
    Bad({"move_seconds": 86401}, "move_seconds"),
    Bad({"move_seconds": 2**31}, "move_seconds"),
    Bad({"move_seconds": None}, "move_seconds"),
    Bad({"move_seconds": {}}, "move_seconds"),
    Bad({"": 1}, ""),
    Bad({"RATED": False}, "RATED"),
    Bad({"rules": None}, "rules"),
    Bad({"rules": 5}, "rules"),
    Bad({"rules": ["classic"]}, "rules"),
    Bad({"rules": ""}, "rules", "invalid_rules"),
    Bad({"rules": LONG}, "rules", "invalid_rules"),
    Bad({"rules": {}}, "rules", "invalid_rules"),
    Bad({"rules": {"preset": ["classic"]}}, "rules", "invalid_rules"),
    Bad({"rules": {"preset": None}}, "rules", "invalid_rules"),
    Bad(rules(hands_per_gme=3), "rules", "invalid_rules"),
    Bad(rules(max_hands="3"), "rules", "invalid_rules"),
    Bad(rules(max_hands=3.0), "rules", "invalid_rules", FLOAT_INTEGER),
    Bad(rules(max_hands=0), "rules", "invalid_rules"),
    Bad(rules(max_hands=2**31), "rules", "invalid_rules"),
    Bad(rules(max_hands=2**63), "rules", "invalid_rules"),
    Bad(rules(max_hands=[1]), "rules", "invalid_rules"),
    Bad(rules(max_hands={"n": 1}), "rules", "invalid_rules"),
    Bad(rules(target_score=-1), "rules", "invalid_rules"),
    Bad(rules(exchange_cap=2**40), "rules", "invalid_rules"),
    Bad(rules(exchange_before_trump="true"), "rules", "invalid_rules"),
    Bad(rules(exchange_before_trump=1), "rules", "invalid_rules"),
    Bad(rules(deal_packet=4.0), "rules", "invalid_rules", FLOAT_INTEGER),
    Bad(rules(kitty_order=None), "rules", "invalid_rules"),
    Bad(rules(nested={"junk": [1, {"deeper": None}]}), "rules", "invalid_rules"),
]


def test_it_refuses_bad_table_bodies_naming_the_field(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")

    refuses_all(ann, "POST", "/tables", TABLE_CREATE)

    assert ann.ok("GET", "/tables")["count"] == 0  # nothing was made
    good = {"rules": rules(max_hands=2)["rules"], "rated": False, "move_seconds": 30, "seat": None}
    table = ann.ok("POST", "/tables", 201, json=good)
    assert (table["rated"], table["move_seconds"], table["rules"]["max_hands"]) == (False, 30, 2)


SEAT_CHOICE = [
    *NOT_OBJECTS,
    Bad({"seat": "1"}, "seat"),
    Bad({"seat": 1.0}, "seat", documented=FLOAT_INTEGER),
    Bad({"seat": False}, "seat"),
    Bad({"seat": -1}, "seat"),
    Bad({"seat": 2**63}, "seat"),
    Bad({"seats": 1}, "seats"),
    Bad({"sit": True}, "sit"),
]
SEAT_BOT = [
    *NOT_OBJECTS,
    Bad({}, "bot"),
    Bad({"bot": None}, "bot"),
    Bad({"bot": 5}, "bot"),
    Bad({"bot": ["house:random"]}, "bot"),
    Bad({"bot": {"name": "house:random"}}, "bot"),
    Bad({"bot": ""}, "bot"),
    Bad({"bot": LONG}, "bot"),
    Bad({"bot": "house:random", "seat": "2"}, "seat"),
    Bad({"bot": "house:random", "strength": 3}, "strength"),
]


def test_it_refuses_bad_seat_choices_naming_the_field(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    bob = register(api_server.url, "bob")
    table = ann.ok("POST", "/tables", 201, json={})

    refuses_all(bob, "POST", f"/tables/{table['id']}/join", SEAT_CHOICE)
    refuses_all(ann, "POST", f"/tables/{table['id']}/bots", SEAT_BOT)
    refuses_all(ann, "POST", f"/tables/{table['id']}/leave", NO_BODY)

    seats = ann.ok("GET", f"/tables/{table['id']}")["seats"]
    assert [seat["username"] for seat in seats] == ["ann", None, None]
    bob.ok("POST", f"/tables/{table['id']}/join", json={"seat": 2})
    seated = ann.ok("POST", f"/tables/{table['id']}/bots", json={"bot": "house:random"})
    assert seated["game"] is not None


def started_game(server: LiveServer) -> tuple[Client, int]:
    """A classic game of ann, bob and cat, and the one of them to act first."""
    players = [register(server.url, name) for name in ("ann", "bob", "cat")]
    table = players[0].ok("POST", "/tables", 201, json={"seat": 0})
    for seat in (1, 2):
        table = players[seat].ok("POST", f"/tables/{table['id']}/join", json={"seat": seat})
    game_id = int(table["game"])
    (to_act,) = players[0].ok("GET", f"/games/{game_id}")["to_act"]
    return players[to_act], game_id


ACTIONS = [
    *NOT_OBJECTS,
    # Fields the type does not take, misspelt or not: invalid, naming them.
    Bad({"type": "pass", "card": "AS"}, "card"),
    Bad({"type": "no_swap", "card": "AS"}, "card"),
    Bad({"type": "play", "card": "AS", "tricks": 9}, "tricks"),
    Bad({"type": "trump", "suit": "S", "colour": "red"}, "colour"),
    Bad({"type": "trump", "suit": "S", "expected_versoin": 1}, "expected_versoin"),
    Bad({"type": "bid", "tricks": 9, "cards": []}, "cards"),
    Bad({"type": "bid", "tricks": -1}, "tricks"),
    Bad({"type": "bid", "tricks": 2**63}, "tricks"),
    Bad({"type": "give", "to": -1, "cards": ["AS"]}, "to"),
    Bad({"type": "give", "to": 1, "cards": ["AS"], "from": 0}, "from"),
    # An expected_version that is not a version.
    Bad({"type": "trump", "suit": "S", "expected_version": "3"}, "expected_version"),
    Bad({"type": "trump", "suit": "S", "expected_version": 2.5}, "expected_version"),
    Bad({"type": "trump", "suit": "S", "expected_version": True}, "expected_version"),
    Bad({"type": "trump", "suit": "S", "expected_version": -1}, "expected_version"),
    Bad({"type": "trump", "suit": "S", "expected_version": 2**63}, "expected_version"),
    Bad({"type": "trump", "suit": "S", "expected_version": 1e30}, "expected_version"),
    # Wrong types the engine refuses too: illegal_action with its reason, the field named.
    Bad({"type": "trump", "suit": 3}, "suit", "illegal_action"),
    Bad({"type": "trump", "suit": ["S"]}, "suit", "illegal_action"),
    Bad({"type": "trump"}, "suit", "illegal_action"),
    Bad({"type": "play", "card": 17}, "card", "illegal_action"),
    Bad({"type": "play", "card": None}, "card", "illegal_action"),
    Bad({"type": "play", "card": ""}, "card", "illegal_action"),
    Bad({"type": "play", "card": LONG}, "card", "illegal_action"),
    Bad({"type": "swap", "card": {"rank": "A"}}, "card", "illegal_action"),
    Bad({"type": "discard", "cards": "2C3C4C5C"}, "cards", "illegal_action"),
    Bad({"type": "discard", "cards": ["2C", "3C", "4C", 5]}, "cards", "illegal_action"),
    Bad({"type": "bid", "tricks": "9"}, "tricks", "illegal_action"),
    Bad({"type": "bid", "tricks": 9.0}, "tricks", "illegal_action", FLOAT_INTEGER),
    Bad({"type": "give", "to": "1", "cards": ["AS"]}, "to", "illegal_action"),
    Bad({"type": "dance"}, "type", "illegal_action"),
    Bad({"type": 5}, "type", "illegal_action"),
    Bad({"type": None}, "type", "illegal_action"),
    Bad({"suit": "S"}, "type", "illegal_action"),
]


def test_it_refuses_actions_of_the_wrong_shape_naming_the_field(api_server: LiveServer) -> None:
    actor, game_id = started_game(api_server)
    before = actor.ok("GET", f"/games/{game_id}")

    refuses_all(actor, "POST", f"/games/{game_id}/actions", ACTIONS)

    assert actor.ok("GET", f"/games/{game_id}") == before
    assert before["phase"] == "trump", before
    after = actor.ok(
        "POST",
        f"/games/{game_id}/actions",
        json={"type": "trump", "suit": "S", "expected_version": before["version"]},
    )
    assert after["trump"] == "S"


def test_it_still_judges_a_well_formed_action_by_the_rules(api_server: LiveServer) -> None:
    actor, game_id = started_game(api_server)

    error = error_of(
        actor.post(f"/games/{game_id}/actions", json={"type": "bid", "tricks": 9}),
        400,
        "illegal_action",
    )

    assert error["reason"] == "wrong_phase" and "fields" not in error, error


REGISTER = [
    *NOT_OBJECTS,
    Bad({"username": 12345, "password": "correct horse"}, "username"),
    Bad({"username": 1.5, "password": "correct horse"}, "username"),
    Bad({"username": True, "password": "correct horse"}, "username"),
    Bad({"username": None, "password": "correct horse"}, "username"),
    Bad({"username": "", "password": "correct horse"}, "username"),
    Bad({"username": LONG, "password": "correct horse"}, "username"),
    Bad({"username": ["cat"], "password": "correct horse"}, "username"),
    Bad({"username": "cat", "password": 12345678}, "password"),
    Bad({"username": "cat", "password": ["correct horse"]}, "password"),
    Bad({"username": "cat", "password": "correct horse", "email": 5}, "email"),
    Bad({"username": "cat", "password": "correct horse", "is_staff": True}, "is_staff"),
    Bad({"usernme": "cat", "password": "correct horse"}, "usernme"),
]
LOGIN = [
    *NOT_OBJECTS,
    Bad({"username": 12345, "password": "correct horse battery"}, "username"),
    Bad({"username": "ann", "password": 1}, "password"),
    Bad({"username": "ann", "password": "correct horse battery", "scopes": "play"}, "scopes"),
    Bad({"username": "ann", "password": "correct horse battery", "scopes": [1]}, "scopes"),
    Bad({"username": "ann", "password": "correct horse battery", "scopes": [None]}, "scopes"),
    Bad({"username": "ann", "password": "correct horse battery", "scopes": ["root"]}, "scopes"),
    Bad({"username": "ann", "password": "correct horse battery", "scopes": []}, "scopes"),
    Bad({"username": "ann", "password": "correct horse battery", "name": 0}, "name"),
    Bad({"username": "ann", "password": "correct horse battery", "remember": True}, "remember"),
]
NEW_TOKEN = [
    *NOT_OBJECTS,
    Bad({"scopes": "play"}, "scopes"),
    Bad({"scopes": {"play": True}}, "scopes"),
    Bad({"scopes": ["play"], "name": 0}, "name"),
    Bad({"scopes": ["play"], "name": LONG}, "name"),
    Bad({"scopes": ["play"], "expires": 3600}, "expires"),
]
BOTS = [
    *NOT_OBJECTS,
    Bad({"username": 12345}, "username"),
    Bad({"username": "robo", "mode": 1}, "mode"),
    Bad({"username": "robo", "mode": "push"}, "mode"),
    Bad({"username": "robo", "mode": "webhook", "webhook_url": 5}, "webhook_url"),
    Bad(
        {"username": "robo", "mode": "webhook", "webhook_url": "not a url"},
        "webhook_url",
        documented=FORMAT_ONLY,
    ),
    Bad({"username": "robo", "owner": "ann"}, "owner"),
]


def test_it_refuses_bad_account_bodies_naming_the_field(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    anonymous = Client(api_server.url)

    refuses_all(anonymous, "POST", "/accounts/register", REGISTER)
    refuses_all(anonymous, "POST", "/accounts/token", LOGIN)
    refuses_all(ann, "POST", "/me/tokens", NEW_TOKEN)
    refuses_all(ann, "POST", "/bots", BOTS)

    assert ann.ok("GET", "/me")["bots"] == []
    assert ann.ok("GET", "/me/tokens")["count"] == 1
    error_of(anonymous.get("/players/cat"), 404, "not_found")
    # The good forms: a username of digits as a string, a token with a name.
    anonymous.ok(
        "POST", "/accounts/register", 201, json={"username": "12345", "password": "correct horse"}
    )
    ann.ok("POST", "/me/tokens", 201, json={"scopes": ["play"], "name": "cli"})


TOURNAMENT = {"name": "Cup", "format": "swiss"}
TOURNAMENT_CREATE = [
    *NOT_OBJECTS,
    *NOT_JSON,
    Bad({**TOURNAMENT, "name": 0}, "name"),
    Bad({**TOURNAMENT, "name": ""}, "name"),
    Bad({**TOURNAMENT, "name": LONG}, "name"),
    Bad({**TOURNAMENT, "name": None}, "name"),
    Bad({**TOURNAMENT, "format": "league"}, "format"),
    Bad({**TOURNAMENT, "format": 1}, "format"),
    Bad({**TOURNAMENT, "hands_per_gme": 3}, "hands_per_gme"),
    Bad({**TOURNAMENT, "hands_per_game": "3"}, "hands_per_game"),
    Bad({**TOURNAMENT, "hands_per_game": 0}, "hands_per_game"),
    Bad({**TOURNAMENT, "rounds": "3"}, "rounds"),
    Bad({**TOURNAMENT, "rounds": 101}, "rounds"),
    Bad({**TOURNAMENT, "rounds": 2**63}, "rounds"),
    Bad({**TOURNAMENT, "rounds": 3.5}, "rounds"),
    Bad({**TOURNAMENT, "move_seconds": 1e30}, "move_seconds"),
    Bad({**TOURNAMENT, "round_minutes": -1}, "round_minutes"),
    Bad({**TOURNAMENT, "starts_at": 5}, "starts_at"),
    Bad({**TOURNAMENT, "starts_at": "tomorrow"}, "starts_at", documented=FORMAT_ONLY),
    Bad({**TOURNAMENT, "rated": "yes"}, "rated"),
    Bad({**TOURNAMENT, "rated": 0}, "rated"),
    Bad({**TOURNAMENT, "max_players": 2}, "max_players"),
    Bad({**TOURNAMENT, "max_players": 2**31}, "max_players"),
    Bad({**TOURNAMENT, "min_rating": 1e30}, "min_rating"),
    Bad({**TOURNAMENT, "min_rating": "10"}, "min_rating"),
    Bad({**TOURNAMENT, "max_rating": True}, "max_rating"),
    Bad({**TOURNAMENT, "humans_allowed": "true"}, "humans_allowed"),
    Bad({**TOURNAMENT, "bots_allowed": None}, "bots_allowed"),
    Bad({**TOURNAMENT, "odd_count": "none"}, "odd_count"),
    Bad({**TOURNAMENT, "filler_bot": 0}, "filler_bot"),
    Bad({**TOURNAMENT, "points_by_rank": [3, 1]}, "points_by_rank"),
    Bad({**TOURNAMENT, "points_by_rank": ["3", 1, 0]}, "points_by_rank"),
    Bad({**TOURNAMENT, "points_by_rank": [3, 1, 1e30]}, "points_by_rank"),
    Bad({**TOURNAMENT, "points_by_rank": "3,1,0"}, "points_by_rank"),
    Bad({**TOURNAMENT, "points_by_rank": [3, 1, None]}, "points_by_rank"),
    Bad({**TOURNAMENT, "advance_per_table": 3}, "advance_per_table"),
    Bad({**TOURNAMENT, "rules": {"preset": "four-handed"}}, "rules", "invalid_rules"),
    Bad({**TOURNAMENT, **rules(hands_per_gme=3)}, "rules", "invalid_rules"),
    Bad({**TOURNAMENT, **rules(max_hands=[1, 2])}, "rules", "invalid_rules"),
]
TOURNAMENT_UPDATE = [
    *NOT_OBJECTS,
    Bad({"name": 0}, "name"),
    Bad({"hands_per_gme": 3}, "hands_per_gme"),
    Bad({"rules": None}, "rules"),
    Bad({"rounds": -3}, "rounds"),
    Bad({"id": 7}, "id"),
]
ENTRANT = [
    *NOT_OBJECTS,
    Bad({"player": 12345}, "player"),
    Bad({"player": None}, "player"),
    Bad({"player": ["bob"]}, "player"),
    Bad({"players": "bob"}, "players"),
]
FORBIDDEN_PAIR = [
    *NOT_OBJECTS,
    Bad({"players": ["bob"]}, "players"),
    Bad({"players": ["bob", "cat", "dan"]}, "players"),
    Bad({"players": "bob,cat"}, "players"),
    Bad({"players": [1, 2]}, "players"),
    Bad({"players": ["bob", None]}, "players"),
    Bad({"players": ["bob", "cat"], "reason": "feud"}, "reason"),
]
ENTRY = [
    *NOT_OBJECTS,
    Bad({"player": 12345}, "player"),
    Bad({"player": None}, "player"),
    Bad({"player": "bob", "now": True}, "now"),
    Bad({"bot": "annbot"}, "bot"),
]
ORGANISER = [
    *NOT_OBJECTS,
    Bad({"username": 12345}, "username"),
    Bad({"user": "bob"}, "user"),
]


def test_it_refuses_bad_tournament_bodies_naming_the_field(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    register(api_server.url, "bob")
    register(api_server.url, "cat")

    refuses_all(ann, "POST", "/tournaments", TOURNAMENT_CREATE)
    assert ann.ok("GET", "/tournaments")["count"] == 0
    cup = ann.ok("POST", "/tournaments", 201, json={**TOURNAMENT, "min_rating": -1000})
    path = f"/tournaments/{cup['id']}"
    refuses_all(ann, "PATCH", path, TOURNAMENT_UPDATE)
    refuses_all(ann, "POST", f"{path}/entrants", ENTRANT)
    refuses_all(ann, "POST", f"{path}/forbidden-pairs", FORBIDDEN_PAIR)
    refuses_all(ann, "POST", f"{path}/organisers", ORGANISER)

    refuses_all(ann, "POST", f"{path}/register", ENTRY)
    refuses_all(ann, "POST", f"{path}/decline", ENTRY)
    refuses_all(ann, "POST", f"{path}/withdraw", NO_BODY)
    refuses_all(ann, "POST", f"{path}/start", NO_BODY)

    detail = ann.ok("GET", path)
    assert (detail["name"], detail["players"], detail["forbidden_pairs"]) == ("Cup", [], [])
    assert detail["status"] == "registering"
    assert detail["organisers"] == ["ann"]
    assert ann.ok("PATCH", path, json={"name": "Cup 2", "rated": False})["name"] == "Cup 2"
    ann.ok("POST", f"{path}/forbidden-pairs", 201, json={"players": ["bob", "cat"]})


QUERIES = [
    ("/tables", "status", ["OPEN", "", "open ", "closed"]),
    ("/tournaments", "status", ["done", "", "Running"]),
    ("/players/ann/games", "result", ["draw", "", "WIN"]),
    ("/players/ann/games", "rules", ["classic2", "", "CLASSIC"]),
    ("/ratings", "list", ["top", "", "Ranked"]),
    ("/games/{game}/events", "after", ["-1", "1e3", "abc", "2147483648", "+1", " 1", "٣", ""]),
    ("/games/{game}/events", "wait", ["61", "-1", "1.5", "99999999999999999999999"]),
]


def test_it_refuses_bad_query_parameters_naming_them(api_server: LiveServer) -> None:
    actor, game_id = started_game(api_server)

    for path, name, values in QUERIES:
        for value in values:
            response = actor.get(path.format(game=game_id), params={name: value})
            error = error_of(response, 400, "invalid")
            assert name in error.get("fields", {}), (path, name, value, error)

    for pool in ("nope", "CLASSIC", ""):
        error = error_of(actor.get("/ratings", params={"pool": pool}), 400, "unknown_pool")
        assert "pool" in error["fields"], error
    assert actor.ok("GET", "/tables", params={"status": "playing"})["count"] == 1
    assert actor.ok("GET", f"/games/{game_id}/events", params={"after": "0", "wait": "0"})["events"]


def test_it_refuses_a_standings_round_that_is_not_a_round(api_server: LiveServer) -> None:
    ann = register(api_server.url, "ann")
    cup = ann.ok("POST", "/tournaments", 201, json=TOURNAMENT)

    for value in ("0", "1", "abc", "²", "-1", "2**63", ""):
        response = ann.get(f"/tournaments/{cup['id']}/standings", params={"round": value})
        error = error_of(response, 400, "invalid")
        assert "round" in error["fields"], (value, error)


def input_serializers() -> list[type[StrictSerializer]]:
    found: list[type[StrictSerializer]] = []
    stack = [StrictSerializer]
    while stack:
        for subclass in stack.pop().__subclasses__():
            found.append(subclass)
            stack.append(subclass)
    return found


def test_it_bounds_every_number_and_string_of_every_input() -> None:
    import accounts.api  # noqa: F401 - the input serializers of every app are loaded
    import bots.api  # noqa: F401
    import games.api  # noqa: F401
    import tournaments.api  # noqa: F401

    serializer_classes = input_serializers()
    assert len(serializer_classes) >= 15, serializer_classes
    open_ended = []
    for serializer_class in serializer_classes:
        for name, field in serializer_class().fields.items():
            items = [field.child] if isinstance(field, serializers.ListField) else []
            for each in [field, *items]:
                if isinstance(each, serializers.IntegerField | serializers.FloatField) and (
                    each.min_value is None or each.max_value is None
                ):
                    open_ended.append(f"{serializer_class.__name__}.{name}")
                if isinstance(each, serializers.CharField) and each.max_length is None:
                    open_ended.append(f"{serializer_class.__name__}.{name}")

    assert open_ended == [], open_ended


def test_it_documents_one_schema_per_action_type_with_an_example_it_takes() -> None:
    operation = operation_for("POST", "/api/v1/games/1/actions")
    assert operation is not None
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    action = schema()["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    shape = {**as_json_schema(action), "components": as_json_schema(schema()["components"])}

    assert action["discriminator"]["propertyName"] == "type"
    assert set(action["discriminator"]["mapping"]) == set(ACTION_TYPES)
    assert len(action["oneOf"]) == len(ACTION_TYPES)
    assert {example["value"]["type"] for example in examples.values()} == set(ACTION_TYPES)
    for example in examples.values():
        assert schema_allows(shape, example["value"]), example
        assert valid_action(example["value"])[0]["type"] == example["value"]["type"]
    assert not schema_allows(shape, {"type": "pass", "card": "AS"})
