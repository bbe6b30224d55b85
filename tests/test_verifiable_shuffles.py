"""Verifiable shuffles over HTTP: the commitment from the start, no seed before the end.

A game is played through the live server (with the worker running): during it, every
response, event, stream line, web page and admin page that a client (or the staff) can
reach is kept, and none may hold the seed. After the end, the record holds it, ``/verify``
says ok, and a small verifier written from docs/rules.md alone (not the engine's deal code)
recomputes the deals from the record fetched over HTTP.
"""

from __future__ import annotations

import json
import random
from hashlib import sha256
from typing import Any

import httpx
import pytest
from django.test import Client as DjangoClient

from games.models import Game, Table
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.game_helpers import choose_action, start_table
from tests.test_api_full_games import StreamReader

pytestmark = pytest.mark.django_db(transaction=True)


# --- An independent verifier, from docs/rules.md ("Fair and verifiable deals") only --------

RANKS, SUITS = "23456789TJQKA", "CDHS"


def words(seed: str, label: str) -> Any:
    k = 0
    while True:
        digest = sha256(f"sergeant-major|{seed}|{label}|{k}".encode()).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(digest[i : i + 8], "big")
        k += 1


def uniform(stream: Any, m: int) -> int:
    while True:
        w = next(stream)
        if w < 2**64 - (2**64 % m):
            return w % m


def shuffle(seed: str, d: int) -> list[str]:
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    stream = words(seed, f"deal-{d}")
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def classic_deal(seed: str, d: int, dealer: int) -> tuple[list[set[str]], set[str]]:
    """Deal ``d`` of a classic game (52 cards, 3 hands of 16, one card at a time)."""
    deck = shuffle(seed, d)
    hands: list[set[str]] = [set(), set(), set()]
    for k, card in enumerate(deck[:48]):
        hands[(dealer + 1 + k) % 3].add(card)
    return hands, set(deck[48:])


def check_classic_record(record: dict[str, Any]) -> None:
    seed = record["seed"]
    assert sha256(seed.encode("utf-8")).hexdigest() == record["seed_commitment"]
    first = uniform(words(seed, "first-dealer"), 3)
    assert record["first_dealer"] == first
    for d, deal in enumerate(record["deals"]):
        dealer = (first + d) % 3  # classic: no redeals, the deal passes left each hand
        assert record["hands"][d]["dealer"] == dealer
        hands, kitty = classic_deal(seed, d, dealer)
        assert [set(h) for h in deal["hands"]] == hands, f"deal {d}"
        assert set(deal["kitty"]) == kitty, f"deal {d}"


def test_it_reproduces_the_worked_example_of_the_docs() -> None:
    stream = words("demo", "deal-0")
    assert [next(stream) for _ in range(2)] == [16276606417872264965, 7423554929853592839]
    assert uniform(words("demo", "first-dealer"), 3) == 2
    assert " ".join(shuffle("demo", 0)[:6]) == "KC 5C TS TH JH 5S"
    assert " ".join(shuffle("demo", 0)[-4:]) == "7S 6S KD 9H"
    hands, kitty = classic_deal("demo", 0, dealer=2)
    assert kitty == {"KD", "9H", "6S", "7S"}
    assert {"KC", "TH"} <= hands[0] and {"5C", "JH"} <= hands[1] and {"TS", "5S"} <= hands[2]


# --- The game, scanned -----------------------------------------------------------------------


def web_pages(base_url: str, game_id: int) -> list[str]:
    paths = [
        f"/games/{game_id}",
        f"/games/{game_id}/table",
        f"/games/{game_id}/replay",
        "/lobby",
        "/players/ann",
        "/tournaments",
        "/arena",
    ]
    return [httpx.get(base_url + path, timeout=30).text for path in paths]


def admin_pages(admin: DjangoClient, game: Game) -> list[str]:
    paths = [
        "/admin/games/game/",
        f"/admin/games/game/{game.pk}/change/",
        "/admin/games/table/",
        f"/admin/games/table/{game.table_id}/change/",
        "/admin/games/gameevent/",
    ]
    pages = []
    for path in paths:
        page = admin.get(path)
        assert page.status_code == 200, path
        pages.append(page.content.decode())
    return pages


def api_reads(client: Client, game_id: int, table_id: int) -> None:
    """Everything else a client may read about the game (kept in ``client.received``)."""
    for path in (
        "/tables",
        f"/tables/{table_id}",
        f"/games/{game_id}/events?after=0",
        "/players/ann",
        "/players/ann/games",
        "/tournaments",
        "/arena",
    ):
        client.ok("GET", path)
    error_of(client.get(f"/games/{game_id}/record"), 409, "game_in_progress")
    error_of(client.get(f"/games/{game_id}/verify"), 409, "game_in_progress")


def test_it_commits_to_the_shuffle_and_shows_the_seed_only_after_the_end(
    api_server: LiveServer, celery_worker: WorkerInfo, admin_client: DjangoClient
) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    spectator = Client(api_server.url)
    readers = [StreamReader(c) for c in (ann, bob, cat)]
    for reader in readers:
        reader.start()
    players = {0: ann, 1: bob, 2: cat}
    game_id = start_table(ann, [bob, cat], {"preset": "classic", "max_hands": 2})
    game = Game.objects.get(pk=game_id)
    seed = game.seed
    commitment = sha256(seed.encode()).hexdigest()
    assert len(seed) == 32 and Table.objects.get(pk=game.table_id).deal_seed == ""

    pages: list[str] = []
    rng = random.Random(33)
    moves = 0
    while True:
        views = {seat: client.ok("GET", f"/games/{game_id}") for seat, client in players.items()}
        views[None] = spectator.ok("GET", f"/games/{game_id}")
        if views[0]["status"] == "finished":
            break
        assert {view["seed_commitment"] for view in views.values()} == {commitment}
        if moves % 12 == 0:  # every read a client or the staff may make, now and then
            for client in (ann, spectator):
                api_reads(client, game_id, game.table_id)
            shown = web_pages(api_server.url, game_id)
            assert commitment in shown[0]  # the game's page shows the commitment
            pages += shown
            pages += admin_pages(admin_client, Game.objects.get(pk=game_id))
        (seat,) = views[0]["to_act"]
        view = views[seat]
        action = choose_action(view, rng)
        after = players[seat].ok(
            "POST",
            f"/games/{game_id}/actions",
            json={**action, "expected_version": view["version"]},
        )
        assert after["seed_commitment"] == commitment
        moves += 1
        assert moves < 500
    # Less the views that showed the end (the last move's answer, the last reads).
    during = [
        body
        for client in (ann, bob, cat, spectator)
        for body in client.received
        if not (isinstance(body, dict) and body.get("status") == "finished" and "record" in body)
    ]
    assert len(during) > 4 * moves

    # Nothing a client or the staff reached during the game held the seed.
    assert moves > 30 and len(pages) > 10
    for body in during:
        assert seed not in json.dumps(body), body
    for page in pages:
        assert seed not in page
    for log in (api_server.log_path, celery_worker.log_path):
        assert seed not in log.read_text()

    # The stream's your_turn lines carried the commitment, never the seed.
    for client in (ann, bob, cat):
        client.close()
    spectator_record = spectator.ok("GET", f"/games/{game_id}/record")
    for reader in readers:
        reader.join(timeout=10)
        # (This game's lines: in service mode, another test run on the same Redis server
        # may publish lines for players with the same ids, as pub/sub ignores the db.)
        lines = [json.loads(line) for line in reader.lines if line.strip()]
        turns = [t for t in lines if t["type"] == "your_turn" and t["game"] == game_id]
        assert turns
        assert {turn["view"]["seed_commitment"] for turn in turns} == {commitment}
        assert not any(seed in line for line in reader.lines)

    # After the end: the seed in the record, /verify ok, an independent check agrees.
    assert spectator_record["seed"] == seed
    assert spectator_record["seed_commitment"] == commitment
    assert views[None]["record"]["seed"] == seed
    assert spectator.ok("GET", f"/games/{game_id}/verify") == {
        "ok": True,
        "commitment_matches": True,
        "deals_match": True,
        "outcomes_match": True,
        "signature_valid": True,
        "reason": None,
        "problems": [],
    }
    check_classic_record(spectator_record)
    finished_page = httpx.get(f"{api_server.url}/games/{game_id}", timeout=30).text
    assert commitment in finished_page and seed in finished_page
    assert f"/api/v1/games/{game_id}/verify" in finished_page
    page = admin_client.get(f"/admin/games/game/{game_id}/change/").content.decode()
    assert seed in page  # the staff sees the seed once the game is over
    spectator.close()
