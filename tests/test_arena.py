"""The bot arena: bot accounts join a pool's arena and the server seats them, game after
game, with the nearest-rated other bots, rated in the pool; a bot that stops answering is
taken out. Live server, real worker, beat and move timer."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection

from accounts.services import create_bot_player
from arena import seating, services
from arena.models import Arena, ArenaEntry, ArenaGame
from games.models import Game, GamePlayer
from ratings import services as rating_services
from ratings.models import Rating
from realtime.models import PlayerMessage
from tests.api_client import Client, error_of, register
from tests.arena_helpers import StreamBot
from tests.conftest import LiveServer, WorkerInfo
from tests.rating_helpers import new_players
from tests.support import wait_until

SHORT_GAMES = {"preset": "classic", "max_hands": 1}


def arena(move_seconds: int, wait_seconds: float) -> Arena:
    """The classic arena, with short games (made before the first join, which keeps it)."""
    found, _ = Arena.objects.update_or_create(
        pool="classic",
        defaults={"rules": SHORT_GAMES, "move_seconds": move_seconds, "wait_seconds": wait_seconds},
    )
    return found


def bots_of(url: str, owner: str, count: int) -> tuple[Client, list[Client]]:
    person = register(url, owner)
    bots = []
    for i in range(count):
        name = f"{owner}-bot{i}"
        token = person.ok("POST", "/bots", 201, json={"username": name})["token"]
        bots.append(Client(url, token=token, username=name))
    return person, bots


def start_bots(clients: list[Client], silent: frozenset[str] = frozenset()) -> list[StreamBot]:
    bots = [StreamBot(c, silent=c.username in silent, seed=i) for i, c in enumerate(clients)]
    for bot in bots:
        bot.start()
        assert bot.connected.wait(30)
    return bots


def entries() -> dict[str, ArenaEntry]:
    return {e.player.username: e for e in ArenaEntry.objects.select_related("player")}


@pytest.mark.django_db(transaction=True)
def test_it_seats_five_bots_game_after_game_rated_in_the_pool(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    arena(move_seconds=30, wait_seconds=1.0)
    _, clients = bots_of(api_server.url, "arenaowner", 5)
    bots = start_bots(clients)
    try:
        for client in clients:
            entry = client.ok("POST", "/arena/join", json={})
            assert (entry["pool"], entry["in_arena"], entry["username"]) == (
                "classic",
                True,
                client.username,
            )

        # Each plays at least two arena games, seated by the server alone.
        wait_until(
            lambda: all(e.games >= 2 for e in entries().values()),
            timeout=180,
            interval=0.25,
            what="every bot to finish two arena games",
        )
        shown = clients[0].ok("GET", "/arena?pool=classic")
        assert {b["username"] for b in shown["bots"]} == {c.username for c in clients}
        assert shown["rules"] == SHORT_GAMES and shown["move_seconds"] == 30
        for game in shown["games"]:
            assert len(game["seats"]) == 3
            assert "your_hand" not in game and "hand" not in str(game)

        for client in clients:
            left = client.ok("POST", "/arena/leave", json={"pool": "classic"})
            assert left["in_arena"] is False and left["removed_reason"] == "left"
            assert left["games"] >= 2
        # Out of the queue at once: a seating now seats none of them.
        assert services.seat_arena("classic") == []
        wait_until(
            lambda: all(bot.of_type("arena_left") for bot in bots),
            what="every bot to read its arena_left line",
        )
    finally:
        for bot in bots:
            bot.stop()

    # The games in progress play on: house bots take the seats of the stopped clients
    # after their timeouts, which would take too long here; the finished ones are checked.
    names = {c.username for c in clients}
    finished = Game.objects.filter(
        pk__in=ArenaGame.objects.values("game_id"), status=Game.Status.FINISHED
    )
    assert finished.count() >= 4
    assert all(g.rated and g.rules["max_hands"] == 1 for g in finished)
    for game in finished:
        seated = {s["username"] for s in game.seats}
        assert seated & names and seated <= names | {"house:heuristic", "house:random"}
    # Rated in the pool (the suite's server leaves rating to the tests: config/settings/test.py).
    for game in finished:
        rating_services.rate_game(game.pk)
    for name in names:
        row = Rating.objects.get(player__username=name, pool="classic")
        assert row.games >= 2, (name, row.games)
    # Every bot heard of its entry and of its games on its stream.
    for bot in bots:
        assert bot.of_type("game_start")
        assert [line["pool"] for line in bot.of_type("arena_joined")] == ["classic"]
        assert [line["pool"] for line in bot.of_type("arena_left")] == ["classic"]

    board = clients[0].ok("GET", "/arena")["leaderboard"]
    assert {row["username"] for row in board} == names
    assert [row["rank"] for row in board] == [1, 2, 3, 4, 5]
    ordinals = [row["ordinal"] for row in board]
    assert ordinals == sorted(ordinals, reverse=True)
    assert all(row["in_arena"] is False and row["arena_games"] >= 2 for row in board)


@pytest.mark.django_db(transaction=True)
def test_it_takes_out_a_bot_that_stops_answering(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    arena(move_seconds=2, wait_seconds=0.5)
    owner, clients = bots_of(api_server.url, "sleepyowner", 3)
    sleeper = clients[0].username
    bots = start_bots(clients, silent=frozenset({sleeper}))
    try:
        for client in clients:
            client.ok("POST", "/arena/join", json={"pool": "classic"})

        removed = wait_until(
            lambda: ArenaEntry.objects.filter(player__username=sleeper, active=False).first(),
            timeout=120,
            interval=0.25,
            what="the silent bot to be taken out",
        )
        assert removed.removed_reason == "timeouts"
        # Its seat was handed to a house bot after three timeouts in its first game.
        (seat,) = GamePlayer.objects.filter(player__username=sleeper)
        assert seat.timeouts >= 3 and seat.replaced_by is not None
        # The bot and its owner were told.
        for name in (sleeper, owner.username):
            (line,) = PlayerMessage.objects.filter(player__username=name, type="arena_removed")
            assert line.payload == {"pool": "classic", "reason": "timeouts", "game": seat.game_id}
        shown = clients[1].ok("GET", "/arena")
        assert sleeper not in {b["username"] for b in shown["bots"]}
        (row,) = [r for r in shown["leaderboard"] if r["username"] == sleeper]
        assert (row["in_arena"], row["removed_reason"]) == (False, "timeouts")
        # It may come back.
        again = clients[0].ok("POST", "/arena/join", json={})
        assert again["in_arena"] is True and again["removed_reason"] is None
        clients[0].ok("POST", "/arena/leave", json={})
        for client in clients[1:]:
            client.ok("POST", "/arena/leave", json={})
    finally:
        for bot in bots:
            bot.stop()


@pytest.mark.django_db(transaction=True)
def test_it_lets_only_bot_accounts_in(api_server: LiveServer) -> None:
    person, (bot,) = bots_of(api_server.url, "arenaperson", 1)

    error_of(person.post("/arena/join", json={}), 403, "bots_only")
    error_of(person.post("/arena/leave", json={}), 403, "bots_only")
    error_of(bot.post("/arena/leave", json={}), 409, "not_in_arena")
    error_of(bot.post("/arena/join", json={"pool": "bridge"}), 400, "invalid")
    error_of(bot.post("/arena/join", json={"pool": "classic", "seat": 1}), 400, "invalid")
    error_of(Client(api_server.url).post("/arena/join", json={}), 401, "not_authenticated")
    error_of(bot.get("/arena?pool=bridge"), 400, "unknown_pool")
    empty = Client(api_server.url).ok("GET", "/arena?pool=race")
    assert empty == {
        "pool": "race",
        "rules": empty["rules"],
        "move_seconds": empty["move_seconds"],
        "bots": [],
        "games": [],
        "leaderboard": [],
    }
    assert empty["rules"]["preset"] == "9-5-2"


# --- Who plays whom (arena/seating.py) --------------------------------------------------------

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def bot(player_id: int, ordinal: float, waited: float = 0.0, last: tuple[int, ...] = ()) -> Any:
    return seating.Candidate(player_id, ordinal, NOW - timedelta(seconds=waited), last)


def plan(idle: list[Any], wait_seconds: float = 10.0, jitter: float = 0.0) -> seating.Plan:
    return seating.plan(
        idle, size=3, now=NOW, wait_seconds=wait_seconds, jitter=jitter, rng=random.Random(1)
    )


def ids(tables: list[list[Any]]) -> list[set[int]]:
    return sorted(({c.player_id for c in t} for t in tables), key=min)


def test_it_seats_the_nearest_rated_bots_together() -> None:
    idle = [bot(i, ordinal) for i, ordinal in enumerate([30, 1, 29, 2, 31, 0, 15])]

    found = plan(idle)

    assert ids(found.tables) == [{0, 2, 4}, {1, 3, 5}]  # the seventh waits for company...
    late = plan([*idle[:6], bot(6, 15, waited=11)])
    assert ids(late.tables) == [{0, 2, 4}, {1, 3, 5}, {6}]  # ...until it waited long enough


def test_it_keeps_the_same_table_from_meeting_again_at_once() -> None:
    last = (1, 2, 3)
    again = [bot(1, 1, last=last), bot(2, 2, last=last), bot(3, 3, last=last)]

    assert plan(again).tables == []  # alone: they wait for other games to end
    assert ids(plan(again, wait_seconds=0).tables) == [{1, 2, 3}]  # not for ever
    mixed = plan([*again, bot(4, 4)], wait_seconds=10)
    assert len(mixed.tables) == 1 and 4 in ids(mixed.tables)[0]


def test_it_varies_the_tables_of_neighbours_with_the_jitter() -> None:
    idle = [bot(i, float(i)) for i in range(9)]
    seen = {
        frozenset(
            frozenset(c.player_id for c in t)
            for t in seating.plan(
                idle, size=3, now=NOW, wait_seconds=1, jitter=2.0, rng=random.Random(seed)
            ).tables
        )
        for seed in range(20)
    }

    assert len(seen) > 1
    for tables in seen:  # neighbours still: no table spans the whole range
        assert all(max(t) - min(t) <= 6 for t in tables)


@pytest.mark.django_db(transaction=True)
def test_it_never_seats_a_bot_twice_when_seatings_run_at_once() -> None:
    """Four seatings of one pool at once (the worker's tasks and beat's sweep may overlap):
    the arena's row lock lets one seat the twelve bots, and the others find none free."""
    (owner,) = new_players("racer", 1)
    bots = [create_bot_player(owner, username=f"racebot{i}")[0] for i in range(12)]
    Arena.objects.create(pool="classic", rules=SHORT_GAMES, move_seconds=600, wait_seconds=600)
    for bot in bots:
        ArenaEntry.objects.create(
            arena=Arena.objects.get(), player=bot, joined_at=NOW, idle_since=NOW
        )
    start = threading.Barrier(4)
    started: list[list[int]] = []

    def seat() -> None:
        try:
            start.wait()
            started.append(services.seat_arena("classic"))
        finally:
            connection.close()

    threads = [threading.Thread(target=seat) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    games = sorted(game for run in started for game in run)
    assert len(started) == 4 and len(games) == 4
    seated = list(GamePlayer.objects.filter(game_id__in=games).values_list("player_id", flat=True))
    assert sorted(seated) == sorted(b.pk for b in bots)
