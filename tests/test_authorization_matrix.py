"""Who may call what: every operation of the OpenAPI schema x every kind of caller.

Each row of :data:`ROWS` is one operation (its method and path as the schema names them):
how to call it (a path and body made for the caller, fresh objects where the call changes
them) and the answer each kind of caller gets, in the order of :data:`CALLERS`. An
operation the schema lists without a row fails :func:`test_it_has_a_row_for_every_operation`,
so a new endpoint cannot be left out.

The callers, all of one small world: Ann, a person, seated in a game with her bot and Carl
and organising a tournament; Olga, a person with no seat in that game and no part in
organising.

* ``none``: no ``Authorization`` header; ``revoked``: a token of Ann's, revoked;
  ``human``: Ann's token with ``play`` and ``organise``; ``play_only`` and
  ``organise_only``: Ann's tokens with one of them; ``bot``: Ann's bot account's token
  (``play``, ``bot``), seated in the game; ``other``: Olga's token (``play``,
  ``organise``); ``malformed``: ``Authorization: Bearer ...``.

A cell is a status, or ``status/code`` where the error's code matters; ``-`` stands for
401 ``not_authenticated``, ``x`` for 401 ``invalid_token``, ``S`` for 403
``insufficient_scope``. Hidden information is checked too: a caller that may not play
Ann's or her bot's seat finds none of the seats' cards in what it reads.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.api_client import Client, cards_in, register
from tests.conftest import LiveServer
from tests.schema_check import check_response, schema

pytestmark = pytest.mark.django_db(transaction=True)

CALLERS = (
    "none",
    "revoked",
    "human",
    "play_only",
    "organise_only",
    "bot",
    "other",
    "malformed",
)
ABBREVIATIONS = {
    "-": "401/not_authenticated",
    "x": "401/invalid_token",
    "S": "403/insufficient_scope",
}
#: Who each kind of caller is (None: nobody).
ACCOUNT_OF = {
    "none": None,
    "revoked": "ann",
    "human": "ann",
    "play_only": "ann",
    "organise_only": "ann",
    "bot": "bot",
    "other": "olga",
    "malformed": None,
}
#: The callers that see a seat's private data: their own seat's only.
SEAT_READERS = {"human": "ann", "play_only": "ann", "bot": "bot"}

_names = itertools.count()


def fresh(prefix: str) -> str:
    return f"{prefix}{next(_names)}"


@dataclass
class World:
    url: str
    people: dict[str, Client]  # ann, carl, olga, dave: play and organise tokens
    headers: dict[str, dict[str, str]]  # the kinds of caller
    bot_name: str
    game_id: int
    hands: dict[str, set[str]]  # ann's, the bot's and carl's cards in the game
    tournament_id: int  # Ann's, running: round 1 is seated
    #: One client for every cell (a new one is slow to make: it loads its TLS settings).
    http: httpx.Client

    def ann(self) -> Client:
        return self.people["ann"]

    def new_tournament(self) -> int:
        body = {"name": fresh("cup"), "format": "swiss", "rounds": 1}
        return int(self.ann().ok("POST", "/tournaments", 201, json=body)["id"])

    def new_table(self, creator: str = "ann") -> int:
        body = {"rules": "classic", "move_seconds": 600}
        return int(self.people[creator].ok("POST", "/tables", 201, json=body)["id"])


def new_token(client: Client, scopes: list[str]) -> tuple[str, int]:
    key = client.ok("POST", "/me/tokens", 201, json={"scopes": scopes, "name": "matrix"})["token"]
    tokens = client.ok("GET", "/me/tokens")["results"]
    return key, max(t["id"] for t in tokens if key.startswith(t["key_prefix"]))


def build_world(url: str) -> World:
    suffix = fresh("")
    people = {name: register(url, f"{name}{suffix}") for name in ("ann", "carl", "olga", "dave")}
    ann = people["ann"]
    play_key, _ = new_token(ann, ["play"])
    organise_key, _ = new_token(ann, ["organise"])
    revoked_key, revoked_id = new_token(ann, ["play", "organise"])
    ann.ok("DELETE", f"/me/tokens/{revoked_id}", 204)
    bot_name = f"annbot{suffix}"
    bot = Client(url, token=ann.ok("POST", "/bots", 201, json={"username": bot_name})["token"])
    table = ann.ok("POST", "/tables", 201, json={"rules": "classic", "move_seconds": 600})
    bot.ok("POST", f"/tables/{table['id']}/join", json={})
    game_id = int(people["carl"].ok("POST", f"/tables/{table['id']}/join", json={})["game"])
    hands = {
        "ann": set(ann.ok("GET", f"/games/{game_id}")["your_hand"]),
        "bot": set(bot.ok("GET", f"/games/{game_id}")["your_hand"]),
        "carl": set(people["carl"].ok("GET", f"/games/{game_id}")["your_hand"]),
    }
    tournament = ann.ok(
        "POST", "/tournaments", 201, json={"name": fresh("open"), "format": "swiss", "rounds": 1}
    )
    for name in ("carl", "olga", "dave"):
        people[name].ok("POST", f"/tournaments/{tournament['id']}/register", 201)
    ann.ok("POST", f"/tournaments/{tournament['id']}/start")

    def token(key: str | None) -> dict[str, str]:
        return {"Authorization": f"Token {key}"}

    return World(
        url=url,
        people=people,
        headers={
            "none": {},
            "revoked": token(revoked_key),
            "human": token(ann.token),
            "play_only": token(play_key),
            "organise_only": token(organise_key),
            "bot": token(bot.token),
            "other": token(people["olga"].token),
            "malformed": {"Authorization": f"Bearer {ann.token}"},
        },
        bot_name=bot_name,
        game_id=game_id,
        hands=hands,
        tournament_id=int(tournament["id"]),
        http=httpx.Client(timeout=30),
    )


@dataclass(frozen=True)
class Call:
    path: str  # under /api/v1 (or absolute, from /)
    body: Any = None


#: How to call an operation as a kind of caller (fresh objects where the call changes them).
Prepare = Callable[[World, str], Call]


def fixed(path: str, body: Any = None) -> Prepare:
    """The same call for everyone; ``{game}``, ``{tournament}``, ``{ann}``, ``{bot}`` filled."""

    def prepare(world: World, caller: str) -> Call:
        filled = path.format(
            game=world.game_id,
            tournament=world.tournament_id,
            ann=world.ann().username,
            bot=world.bot_name,
            people=",".join(world.people[n].username for n in ("ann", "carl", "olga")),
        )
        return Call(filled, body)

    return prepare


def register_fresh(world: World, caller: str) -> Call:
    return Call("/accounts/register", {"username": fresh("new"), "password": "a long passphrase"})


def log_in(world: World, caller: str) -> Call:
    return Call(
        "/accounts/token", {"username": world.ann().username, "password": "correct horse battery"}
    )


def revoke_one_of_anns(world: World, caller: str) -> Call:
    _, token_id = new_token(world.ann(), ["play"])
    return Call(f"/me/tokens/{token_id}")


def table_of_ann(suffix: str, body: Any = None) -> Prepare:
    return lambda world, caller: Call(f"/tables/{world.new_table()}{suffix}", body)


def table_of_carl(suffix: str, body: Any = None) -> Prepare:
    return lambda world, caller: Call(f"/tables/{world.new_table('carl')}{suffix}", body)


def new_tournament(suffix: str, body: Any = None) -> Prepare:
    return lambda world, caller: Call(f"/tournaments/{world.new_tournament()}{suffix}", body)


def tournament_with(setup: Callable[[World, int], str]) -> Prepare:
    """A new tournament of Ann's, with ``setup`` done as Ann; it gives the path's tail."""

    def prepare(world: World, caller: str) -> Call:
        tournament_id = world.new_tournament()
        return Call(f"/tournaments/{tournament_id}{setup(world, tournament_id)}")

    return prepare


def with_entrant(world: World, tournament_id: int) -> str:
    carl = world.people["carl"]
    carl.ok("POST", f"/tournaments/{tournament_id}/register", 201)
    return f"/entrants/{carl.username}"


def invited_by_carl(world: World, caller: str) -> Call:
    """A new tournament of Carl's that invited Ann (its decline: hers to make)."""
    carl = world.people["carl"]
    body = {"name": fresh("carls"), "format": "swiss", "rounds": 1}
    tournament_id = carl.ok("POST", "/tournaments", 201, json=body)["id"]
    invite = {"player": world.ann().username}
    carl.ok("POST", f"/tournaments/{tournament_id}/entrants", 202, json=invite)
    return Call(f"/tournaments/{tournament_id}/decline")


def with_forbidden_pair(world: World, tournament_id: int) -> str:
    body = {"players": [world.people["carl"].username, world.people["olga"].username]}
    pair = world.ann().ok("POST", f"/tournaments/{tournament_id}/forbidden-pairs", 201, json=body)
    return f"/forbidden-pairs/{pair['id']}"


def with_co_organiser(world: World, tournament_id: int) -> str:
    carl = world.people["carl"].username
    world.ann().ok("POST", f"/tournaments/{tournament_id}/organisers", 201, json={"username": carl})
    return f"/organisers/{carl}"


def registered(world: World, caller: str) -> Call:
    """A new tournament the caller's account entered (if it may: Ann and her bot)."""
    tournament_id = world.new_tournament()
    account = ACCOUNT_OF[caller]
    if account == "ann":
        world.ann().ok("POST", f"/tournaments/{tournament_id}/register", 201)
    return Call(f"/tournaments/{tournament_id}/withdraw")


def game_of_ann(suffix: str) -> Prepare:
    """A new game of Ann, her bot and Carl (the world's game is left to the other rows)."""

    def prepare(world: World, caller: str) -> Call:
        table_id = world.new_table()
        bot = Client(world.url, token=world.headers["bot"]["Authorization"].split()[1])
        bot.ok("POST", f"/tables/{table_id}/join", json={})
        game = world.people["carl"].ok("POST", f"/tables/{table_id}/join", json={})["game"]
        return Call(f"/games/{game}{suffix}")

    return prepare


def new_bot_of_ann(suffix: str, body: Any = None) -> Prepare:
    """A new bot of Ann's (the world's bot keeps its token for the other rows)."""

    def prepare(world: World, caller: str) -> Call:
        name = world.ann().ok("POST", "/bots", 201, json={"username": fresh("spare")})["username"]
        return Call(f"/bots/{name}{suffix}", body)

    return prepare


def challenge_from(challenger: str, suffix: str) -> Prepare:
    """A new pending challenge (with a house bot): Ann's to Carl, or another's to Ann. (The
    rows share the challenges out: a player has at most 20 pending at once.)"""

    def prepare(world: World, caller: str) -> Call:
        invited = "carl" if challenger == "ann" else "ann"
        body = {"to": [world.people[invited].username, "house:random"], "move_seconds": 600}
        made = world.people[challenger].ok("POST", "/challenges", 201, json=body)
        return Call(f"/challenges/{made['id']}{suffix}")

    return prepare


def seek_body() -> dict[str, Any]:
    """A seek no other can match: a move time of its own."""
    return {"rules": "classic", "move_seconds": 20000 + int(fresh(""))}


def new_seek_of_ann(world: World) -> int:
    """An open seek of Ann's (she has one at a time: any earlier one is cancelled)."""
    for seek in world.ann().ok("GET", "/seeks")["results"]:
        world.ann().ok("DELETE", f"/seeks/{seek['id']}", 204)
    return int(world.ann().ok("POST", "/seeks", 201, json=seek_body())["id"])


def seek_as(world: World, caller: str) -> Call:
    """A new seek, the caller's account's earlier one (Ann's, her bot's, Olga's) cancelled."""
    account = ACCOUNT_OF[caller]
    if account is not None:
        key = world.headers["bot" if account == "bot" else "human" if account == "ann" else "other"]
        client = Client(world.url, token=key["Authorization"].split()[1])
        for seek in client.ok("GET", "/seeks")["results"]:
            client.ok("DELETE", f"/seeks/{seek['id']}", 204)
    return Call("/seeks", seek_body())


def in_the_arena(world: World, caller: str) -> Call:
    """The world's bot in the arena (if the caller is the bot), to leave it."""
    if caller == "bot":
        bot = Client(world.url, token=world.headers["bot"]["Authorization"].split()[1])
        bot.ok("POST", "/arena/join", json={})
    return Call("/arena/leave", {})


@dataclass(frozen=True)
class Row:
    prepare: Prepare
    cells: str  # one per caller, in CALLERS order

    def expected(self) -> dict[str, str]:
        cells = self.cells.split()
        assert len(cells) == len(CALLERS), self.cells
        return {c: ABBREVIATIONS.get(cell, cell) for c, cell in zip(CALLERS, cells, strict=True)}


G = "/api/v1/games/{game_id}"
C = "/api/v1/challenges/{challenge_id}"
T = "/api/v1/tournaments/{tournament_id}"
TABLES = "/api/v1/tables/{table_id}"
PUBLIC = "200 x 200 200 200 200 200 -"
ANY_TOKEN = "- x 200 200 200 200 200 -"

#: caller order:                           none revoked human play organise bot other malformed
ROWS: dict[tuple[str, str], Row] = {
    ("POST", "/api/v1/accounts/register"): Row(register_fresh, "201 x 201 201 201 201 201 -"),
    ("POST", "/api/v1/accounts/token"): Row(log_in, PUBLIC),
    ("GET", "/api/v1/me"): Row(fixed("/me"), ANY_TOKEN),
    ("GET", "/api/v1/me/tokens"): Row(fixed("/me/tokens"), ANY_TOKEN),
    ("POST", "/api/v1/me/tokens"): Row(
        fixed("/me/tokens", {"scopes": ["play"]}), "- x 201 201 201 201 201 -"
    ),
    ("DELETE", "/api/v1/me/tokens/{token_id}"): Row(
        revoke_one_of_anns, "- x 204 204 204 404/not_found 404/not_found -"
    ),
    ("POST", "/api/v1/bots"): Row(
        lambda world, caller: Call("/bots", {"username": fresh("bot")}),
        "- x 201 201 S 403/bots_cannot_own_bots 201 -",
    ),
    ("PATCH", "/api/v1/bots/{username}"): Row(
        fixed("/bots/{bot}", {"mode": "poll"}),
        "- x 200 200 S 403/not_bot_owner 403/not_bot_owner -",
    ),
    ("POST", "/api/v1/bots/{username}/token"): Row(
        new_bot_of_ann("/token"), "- x 201 201 S 403/not_bot_owner 403/not_bot_owner -"
    ),
    # Tables
    ("GET", "/api/v1/tables"): Row(fixed("/tables"), PUBLIC),
    ("POST", "/api/v1/tables"): Row(
        fixed("/tables", {"rules": "classic", "move_seconds": 600}), "- x 201 201 S 201 201 -"
    ),
    ("GET", TABLES): Row(table_of_ann(""), PUBLIC),
    ("DELETE", TABLES): Row(
        table_of_ann(""), "- x 204 204 S 403/not_table_creator 403/not_table_creator -"
    ),
    ("POST", TABLES + "/join"): Row(table_of_carl("/join", {}), "- x 200 200 S 200 200 -"),
    ("POST", TABLES + "/leave"): Row(
        table_of_ann("/leave"), "- x 200 200 S 409/not_seated 409/not_seated -"
    ),
    ("POST", TABLES + "/bots"): Row(
        table_of_ann("/bots", {"bot": "house:random"}),
        "- x 200 200 S 403/not_table_creator 403/not_table_creator -",
    ),
    # Games
    ("GET", G): Row(fixed("/games/{game}"), PUBLIC),
    ("POST", G + "/actions"): Row(
        fixed("/games/{game}/actions", {"type": "pass", "expected_version": 999}),
        "- x 409/version_conflict 409/version_conflict S 409/version_conflict 403/not_seated -",
    ),
    ("POST", G + "/resign"): Row(game_of_ann("/resign"), "- x 200 200 S 200 403/not_seated -"),
    ("GET", G + "/events"): Row(fixed("/games/{game}/events?wait=1"), PUBLIC),
    ("GET", G + "/live"): Row(fixed("/games/{game}/live?after=0"), PUBLIC),
    ("GET", G + "/record"): Row(
        fixed("/games/{game}/record"),
        "409/game_in_progress x 409/game_in_progress 409/game_in_progress"
        " 409/game_in_progress 409/game_in_progress 409/game_in_progress -",
    ),
    ("GET", G + "/verify"): Row(
        fixed("/games/{game}/verify"),
        "409/game_in_progress x 409/game_in_progress 409/game_in_progress"
        " 409/game_in_progress 409/game_in_progress 409/game_in_progress -",
    ),
    ("GET", "/api/v1/records/key"): Row(fixed("/records/key"), PUBLIC),
    ("GET", "/api/v1/stream"): Row(fixed("/stream"), "- x 200 200 S 200 200 -"),
    # Quick play
    ("GET", "/api/v1/seeks"): Row(fixed("/seeks"), "- x 200 200 S 200 200 -"),
    ("POST", "/api/v1/seeks"): Row(seek_as, "- x 201 201 S 201 201 -"),
    ("GET", "/api/v1/seeks/{seek_id}"): Row(
        lambda world, caller: Call(f"/seeks/{new_seek_of_ann(world)}"),
        "- x 200 200 S 404/not_found 404/not_found -",
    ),
    ("DELETE", "/api/v1/seeks/{seek_id}"): Row(
        lambda world, caller: Call(f"/seeks/{new_seek_of_ann(world)}"),
        "- x 204 204 S 404/not_found 404/not_found -",
    ),
    # Players and ratings
    ("GET", "/api/v1/players/{username}"): Row(fixed("/players/{ann}"), PUBLIC),
    ("GET", "/api/v1/players/{username}/games"): Row(fixed("/players/{ann}/games"), PUBLIC),
    ("GET", "/api/v1/players/{username}/ratings"): Row(fixed("/players/{bot}/ratings"), PUBLIC),
    ("GET", "/api/v1/ratings"): Row(fixed("/ratings"), PUBLIC),
    ("GET", "/api/v1/ratings/predict"): Row(fixed("/ratings/predict?players={people}"), PUBLIC),
    # The arena: bot accounts only (the bot leaves again in the next row)
    ("GET", "/api/v1/arena"): Row(fixed("/arena?pool=classic"), PUBLIC),
    ("POST", "/api/v1/arena/join"): Row(
        fixed("/arena/join", {"pool": "classic"}),
        "- x 403/bots_only 403/bots_only S 200 403/bots_only -",
    ),
    ("POST", "/api/v1/arena/leave"): Row(
        in_the_arena, "- x 403/bots_only 403/bots_only S 200 403/bots_only -"
    ),
    # Tournaments
    ("GET", "/api/v1/tournaments"): Row(fixed("/tournaments"), PUBLIC),
    ("POST", "/api/v1/tournaments"): Row(
        fixed("/tournaments", {"name": "Cup", "format": "swiss"}), "- x 201 S 201 S 201 -"
    ),
    ("GET", T): Row(fixed("/tournaments/{tournament}"), PUBLIC),
    ("PATCH", T): Row(
        new_tournament("", {"name": "Renamed"}), "- x 200 S 200 S 403/not_organiser -"
    ),
    ("GET", T + "/audit"): Row(fixed("/tournaments/{tournament}/audit"), PUBLIC),
    ("GET", T + "/entrants"): Row(fixed("/tournaments/{tournament}/entrants"), PUBLIC),
    ("POST", T + "/entrants"): Row(
        new_tournament("/entrants", {"player": "house:random"}),
        "- x 201 S 201 S 403/not_organiser -",
    ),
    ("DELETE", T + "/entrants/{name}"): Row(
        tournament_with(with_entrant), "- x 204 S 204 S 403/not_organiser -"
    ),
    ("GET", T + "/forbidden-pairs"): Row(
        fixed("/tournaments/{tournament}/forbidden-pairs"), PUBLIC
    ),
    ("POST", T + "/forbidden-pairs"): Row(
        lambda world, caller: Call(
            f"/tournaments/{world.new_tournament()}/forbidden-pairs",
            {"players": [world.people["carl"].username, world.people["dave"].username]},
        ),
        "- x 201 S 201 S 403/not_organiser -",
    ),
    ("DELETE", T + "/forbidden-pairs/{pair_id}"): Row(
        tournament_with(with_forbidden_pair), "- x 204 S 204 S 403/not_organiser -"
    ),
    ("GET", T + "/organisers"): Row(fixed("/tournaments/{tournament}/organisers"), PUBLIC),
    ("POST", T + "/organisers"): Row(
        lambda world, caller: Call(
            f"/tournaments/{world.new_tournament()}/organisers",
            {"username": world.people["dave"].username},
        ),
        "- x 201 S 201 S 403/not_organiser -",
    ),
    ("DELETE", T + "/organisers/{username}"): Row(
        tournament_with(with_co_organiser), "- x 204 S 204 S 403/not_organiser -"
    ),
    ("POST", T + "/register"): Row(new_tournament("/register"), "- x 201 201 S 201 201 -"),
    ("POST", T + "/decline"): Row(
        invited_by_carl, "- x 204 204 S 409/not_invited 409/not_invited -"
    ),
    ("POST", T + "/withdraw"): Row(
        registered, "- x 204 204 S 409/not_registered 409/not_registered -"
    ),
    ("POST", T + "/start"): Row(
        new_tournament("/start"),
        "- x 409/not_enough_entrants S 409/not_enough_entrants S 403/not_organiser -",
    ),
    ("GET", T + "/standings"): Row(fixed("/tournaments/{tournament}/standings"), PUBLIC),
    ("GET", T + "/live"): Row(fixed("/tournaments/{tournament}/live"), PUBLIC),
    ("GET", T + "/rounds/{number}"): Row(fixed("/tournaments/{tournament}/rounds/1"), PUBLIC),
    ("GET", T + "/rounds/{number}/tables/{table}"): Row(
        fixed("/tournaments/{tournament}/rounds/1/tables/1"), PUBLIC
    ),
    ("POST", T + "/rounds/{number}/tables/{table}/adjudicate"): Row(
        fixed("/tournaments/{tournament}/rounds/1/tables/1/adjudicate"),
        "- x 409/round_not_overdue S 409/round_not_overdue S 403/not_organiser -",
    ),
    # Challenges
    ("GET", "/api/v1/challenges"): Row(fixed("/challenges"), ANY_TOKEN),
    ("GET", "/api/v1/notifications"): Row(fixed("/notifications"), ANY_TOKEN),
    ("POST", "/api/v1/challenges"): Row(
        lambda world, caller: Call(
            "/challenges",
            {"to": [world.people["carl"].username, "house:random"], "move_seconds": 600},
        ),
        "- x 201 201 S 201 201 -",
    ),
    ("GET", C): Row(challenge_from("dave", ""), "- x 200 200 200 404/not_found 404/not_found -"),
    ("POST", C + "/accept"): Row(
        challenge_from("carl", "/accept"), "- x 200 200 S 403/not_invited 403/not_invited -"
    ),
    ("POST", C + "/decline"): Row(
        challenge_from("dave", "/decline"), "- x 200 200 S 403/not_invited 403/not_invited -"
    ),
    ("POST", C + "/cancel"): Row(
        challenge_from("ann", "/cancel"),
        "- x 200 200 S 403/not_challenger 403/not_challenger -",
    ),
}
#: The content type of the answer that stays open without a first message (the stream).
STREAMS = ("application/x-ndjson",)
#: Not an API operation: health answers the same whoever asks (it reads no token).
HEALTH = ("GET", "/healthz")


def operations() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in schema()["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    }


def test_it_has_a_row_for_every_operation() -> None:
    missing = operations() - set(ROWS) - {HEALTH}
    stale = set(ROWS) - operations()

    assert not missing, f"operations without a row in the authorization matrix: {missing}"
    assert not stale, f"rows for operations the schema does not list: {stale}"


def call(world: World, method: str, caller: str, prepared: Call) -> tuple[int, Any]:
    """The status and body of the call (the stream: the status, and an error's body)."""
    url = world.url + (
        prepared.path if prepared.path.startswith("/healthz") else "/api/v1" + prepared.path
    )
    headers = dict(world.headers[caller])
    if prepared.body is not None:
        headers["Content-Type"] = "application/json"
    content = json.dumps(prepared.body).encode() if prepared.body is not None else None
    with world.http.stream(method, url, headers=headers, content=content) as response:
        if response.headers.get("content-type", "").startswith(STREAMS):
            return response.status_code, None  # an open stream: its status is the answer
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            # A live stream: its first message (the game so far) is what the caller reads.
            text = ""
            for chunk in response.iter_text():
                text += chunk
                if "\n\n" in text:
                    break
            data = next(line for line in text.split("\n") if line.startswith("data: "))
            return response.status_code, json.loads(data.removeprefix("data: "))
        response.read()
    content_type = response.headers.get("content-type", "")
    check_response(method, response.url.path, response.status_code, content_type, response.content)
    body = response.json() if content_type.startswith("application/json") else None
    return response.status_code, body


def answer(status: int, body: Any) -> str:
    if status >= 400 and isinstance(body, dict) and "error" in body:
        return f"{status}/{body['error']['code']}"
    return str(status)


def matches(expected: str, got: str) -> bool:
    return got == expected or ("/" not in expected and got.split("/")[0] == expected)


def is_the_worlds_game(world: World, prepared: Call) -> bool:
    """Whether the call reads the world's game (whose hands the world knows), not another."""
    parts = prepared.path.split("?")[0].split("/")
    return parts[1:2] == ["games"] and parts[2:3] == [str(world.game_id)]


def check_hidden_cards(world: World, caller: str, body: Any) -> None:
    """Only a seat's own player (with ``play``) sees that seat's cards."""
    shown = cards_in(body)
    own = SEAT_READERS.get(caller)
    for seat_holder, hand in world.hands.items():
        if seat_holder != own:
            assert not shown & hand, (caller, seat_holder, sorted(shown & hand))


def test_it_answers_each_kind_of_caller_as_the_matrix_says(api_server: LiveServer) -> None:
    """Every cell, in one world (each row makes the fresh objects its calls change), and
    every wrong cell reported at once."""
    world = build_world(api_server.url)
    wrong = {}
    for (method, path), row in ROWS.items():
        for caller, expected in row.expected().items():
            prepared = row.prepare(world, caller)
            status, body = call(world, method, caller, prepared)
            got = answer(status, body)
            if not matches(expected, got):
                wrong[f"{method} {path} as {caller}"] = f"expected {expected}, got {got}"
            if is_the_worlds_game(world, prepared) and status == 200:
                check_hidden_cards(world, caller, body)

    assert not wrong, "\n".join(f"{cell}: {what}" for cell, what in wrong.items())


def test_it_shows_a_seat_its_cards_only_with_play(api_server: LiveServer) -> None:
    """The cells of the matrix that may read a seat: each sees its own seat's hand."""
    world = build_world(api_server.url)
    views = {
        caller: call(world, "GET", caller, Call(f"/games/{world.game_id}"))[1]
        for caller in ("human", "play_only", "organise_only", "bot", "other", "none")
    }

    assert set(views["human"]["your_hand"]) == world.hands["ann"]
    assert set(views["play_only"]["your_hand"]) == world.hands["ann"]
    assert set(views["bot"]["your_hand"]) == world.hands["bot"]
    for spectator in ("organise_only", "other", "none"):
        assert views[spectator]["your_seat"] is None
        assert "your_hand" not in views[spectator]
        assert views[spectator] == views["none"]


def test_it_answers_health_alike_whoever_asks(api_server: LiveServer) -> None:
    world = build_world(api_server.url)

    answers = {c: call(world, "GET", c, Call("/healthz"))[0] for c in CALLERS}

    assert len(set(answers.values())) == 1, answers
