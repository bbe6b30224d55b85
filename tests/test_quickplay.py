"""Quick play against the live server and the real worker: seekers join the queue over the
API, and the worker (a task per new seek, beat every second) seats them; no test calls the
matching itself, except the one that runs it from several threads at once beside the worker.

Each test seeks with its own move time, so the seeks of one test never match another's.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test import Client as DjangoClient
from django.utils import timezone

from accounts.services import register_player
from core.errors import Conflict
from games.models import Game
from quickplay import selectors, services
from quickplay.models import Seek
from realtime.delivery import PlayerMessage
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import wait_until

RULES = {"preset": "classic", "max_hands": 1}
_move_times = itertools.count(4000)


def seek_body(**fields: Any) -> dict[str, Any]:
    """A seek of this test's own group (a move time no other test uses)."""
    return {"rules": RULES, "move_seconds": next(_move_times), **fields}


class Stream(threading.Thread):
    """A client's /stream, read in the background into ``lines``."""

    def __init__(self, client: Client) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.lines: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.start()

    def run(self) -> None:
        url = self.client.base_url + "/api/v1/stream"
        timeout = httpx.Timeout(30, read=None)
        with (
            contextlib.suppress(httpx.TransportError),  # closed when the suite stops
            httpx.stream("GET", url, headers=self.client.headers(), timeout=timeout) as response,
        ):
            self.ready.set()
            for line in response.iter_lines():
                if line.strip():
                    self.lines.append(json.loads(line))

    def game_starts(self) -> list[dict[str, Any]]:
        return self.of_type("game_start")

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == kind]


def seated(client: Client, seek_id: int, timeout: float = 20) -> dict[str, Any]:
    def look() -> dict[str, Any] | None:
        seek = client.ok("GET", f"/seeks/{seek_id}")
        return seek if seek["status"] == "seated" else None

    return wait_until(look, timeout=timeout, interval=0.1, what=f"seek {seek_id} to be seated")


def seat_names(client: Client, table_id: int) -> list[str | None]:
    table = client.ok("GET", f"/tables/{table_id}")
    return [seat["username"] for seat in table["seats"]]


# --- Against the live server and worker ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_it_seats_three_seekers_at_one_table(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    people = [register(api_server.url, f"quick{i}") for i in range(3)]
    streams = [Stream(p) for p in people]
    for stream in streams:
        assert stream.ready.wait(10)
    body = seek_body(rated=False)

    made = [p.ok("POST", "/seeks", 201, json=body) for p in people]

    assert [s["status"] for s in made] == ["open"] * 3
    assert made[0]["rules"]["max_hands"] == 1 and made[0]["rating"] == 25.0
    found = [seated(p, s["id"]) for p, s in zip(people, made, strict=True)]
    assert len({s["game"] for s in found}) == 1
    game, table = found[0]["game"], found[0]["table"]
    assert {s["table"] for s in found} == {table}
    assert sorted(seat_names(people[0], table)) == sorted(p.username for p in people)
    table_row = people[0].ok("GET", f"/tables/{table}")
    assert table_row["created_by"] == people[0].username  # the oldest seeker
    assert table_row["rated"] is False and table_row["move_seconds"] == body["move_seconds"]
    for stream in streams:
        wait_until(stream.game_starts, timeout=10, what="game_start on the stream")
        assert stream.game_starts()[0]["game"] == game
        assert stream.game_starts()[0]["table"] == table
    assert all(p.ok("GET", "/seeks")["results"] == [] for p in people)
    error_of(people[1].request("DELETE", f"/seeks/{made[1]['id']}"), 409, "seek_seated")


@pytest.mark.django_db(transaction=True)
def test_it_fills_a_lone_seeker_with_house_bots_after_its_wait(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "loner")
    stream = Stream(ann)
    assert stream.ready.wait(10)

    seek = ann.ok("POST", "/seeks", 201, json=seek_body(house_bots_after=1))

    assert seek["house_bots_after"] == 1
    found = seated(ann, seek["id"])
    waited = datetime.fromisoformat(found["seated_at"]) - datetime.fromisoformat(
        found["created_at"]
    )
    assert waited >= timedelta(seconds=1)
    names = seat_names(ann, found["table"])
    assert sorted(names, key=str) == sorted(
        [ann.username, services.FILL_BOT, services.FILL_BOT], key=str
    )
    wait_until(stream.game_starts, timeout=10, what="game_start on the stream")
    assert stream.game_starts()[0]["game"] == found["game"]
    # The house bots play their seats: the game moves on by itself.
    game = Game.objects.get(pk=found["game"])
    assert game.status == Game.Status.PLAYING


@pytest.mark.django_db(transaction=True)
def test_it_seats_no_one_outside_the_others_ranges(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    picky, *others = [register(api_server.url, f"ranged{i}") for i in range(4)]
    body = seek_body()
    # Newcomers are rated 25: outside the picky seeker's range, who came first.
    waiting = picky.ok("POST", "/seeks", 201, json={**body, "rating_range": [30, None]})

    made = [p.ok("POST", "/seeks", 201, json=body) for p in others]

    found = [seated(p, s["id"]) for p, s in zip(others, made, strict=True)]
    assert len({s["game"] for s in found}) == 1
    assert picky.ok("GET", f"/seeks/{waiting['id']}")["status"] == "open"
    assert picky.ok("GET", "/seeks")["results"][0]["rating_range"] == [30.0, None]
    picky.ok("DELETE", f"/seeks/{waiting['id']}", 204)
    assert picky.ok("GET", f"/seeks/{waiting['id']}")["status"] == "canceled"


@pytest.mark.django_db(transaction=True)
def test_it_keeps_one_open_seek_per_account_and_lets_only_its_owner_cancel_it(
    api_server: LiveServer,
) -> None:
    ann, bob = register(api_server.url, "seeker"), register(api_server.url, "stranger")
    seek = ann.ok("POST", "/seeks", 201, json=seek_body())

    error_of(ann.post("/seeks", json=seek_body()), 409, "already_seeking")
    error_of(bob.get(f"/seeks/{seek['id']}"), 404, "not_found")
    error_of(bob.request("DELETE", f"/seeks/{seek['id']}"), 404, "not_found")
    assert [s["id"] for s in ann.ok("GET", "/seeks")["results"]] == [seek["id"]]
    ann.ok("DELETE", f"/seeks/{seek['id']}", 204)
    error_of(ann.request("DELETE", f"/seeks/{seek['id']}"), 409, "seek_canceled")
    assert ann.ok("GET", "/seeks")["results"] == []
    ann.ok("POST", "/seeks", 201, json=seek_body())  # a new one, once the first is gone


@pytest.mark.django_db(transaction=True)
def test_it_refuses_bad_seeks(api_server: LiveServer) -> None:
    ann = register(api_server.url, "badseek")

    for body, field in [
        ({"rating_range": [30, 20]}, "rating_range"),
        ({"rating_range": [1]}, "rating_range"),
        ({"rating_range": [0, 1e9]}, "rating_range"),
        ({"house_bots_after": 3601}, "house_bots_after"),
        ({"house_bots_after": -1}, "house_bots_after"),
        ({"move_seconds": 0}, "move_seconds"),
        ({"rules": {"preset": "no-such-game"}}, "rules"),
        ({"rated": "yes"}, "rated"),
        ({"colour": "red"}, "colour"),
    ]:
        error = error_of(
            ann.post("/seeks", json=seek_body(**body)),
            400,
            "invalid_rules" if field == "rules" else "invalid",
        )
        assert field in error["fields"], (body, error)
    error_of(ann.get("/seeks/999999"), 404, "not_found")
    error_of(Client(api_server.url).post("/seeks", json=seek_body()), 401, "not_authenticated")
    assert ann.ok("GET", "/seeks")["results"] == []


@pytest.mark.django_db(transaction=True)
def test_it_never_seats_a_seek_twice_with_matchers_running_at_once(
    celery_worker: WorkerInfo,
) -> None:
    """Twelve seekers, matched by four threads at once beside the worker (which the new
    seeks ask too): four tables, each seek seated once, each account at one table."""
    people = [register_player(f"racer{i}", password="correct horse battery")[0] for i in range(12)]
    move_seconds = next(_move_times)
    barrier = threading.Barrier(5)
    started: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            started.extend(services.match_seeks())
        except BaseException as error:  # shown by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    with transaction.atomic():  # all open at once, when the matchers are ready
        seeks = [
            services.create_seek(p, rules=RULES, rated=True, move_seconds=move_seconds)
            for p in people
        ]
    barrier.wait()
    for thread in threads:
        thread.join(30)

    def all_seated() -> bool:
        return not Seek.objects.filter(pk__in=[s.pk for s in seeks], status="open").exists()

    wait_until(all_seated, timeout=20, what="every seek seated")
    assert not errors
    rows = list(Seek.objects.filter(pk__in=[s.pk for s in seeks]))
    games = {row.game_id for row in rows}
    assert len(games) == 4
    seats = [gp.player_id for g in Game.objects.filter(pk__in=games) for gp in g.players.all()]
    assert sorted(seats) == sorted(p.pk for p in people)
    assert Game.objects.filter(table__move_seconds=move_seconds).count() == 4
    assert set(started) <= games


# --- Expiry -----------------------------------------------------------------------------------


def run_out(*seeks: Seek | int) -> None:
    """Their time is up (one second ago), as if they had waited their whole lifetime."""
    ids = [s if isinstance(s, int) else s.pk for s in seeks]
    Seek.objects.filter(pk__in=ids).update(expires_at=timezone.now() - timedelta(seconds=1))


@pytest.mark.django_db(transaction=True)
def test_it_expires_a_seek_nobody_seated_in_time_and_tells_its_seeker(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann = register(api_server.url, "patient")
    stream = Stream(ann)
    assert stream.ready.wait(10)
    seek = ann.ok("POST", "/seeks", 201, json=seek_body())
    lifetime = datetime.fromisoformat(seek["expires_at"]) - datetime.fromisoformat(
        seek["created_at"]
    )
    assert abs(lifetime - timedelta(seconds=settings.QUICKPLAY_SEEK_SECONDS)) < timedelta(seconds=1)

    run_out(seek["id"])

    # Beat's sweep (every second in the suite) marks it expired and tells the seeker.
    (line,) = wait_until(
        lambda: stream.of_type("seek_expired"), timeout=15, what="seek_expired on the stream"
    )
    assert line["seek"]["id"] == seek["id"] and line["seek"]["status"] == "expired"
    assert Seek.objects.get(pk=seek["id"]).status == Seek.Status.EXPIRED
    assert ann.ok("GET", f"/seeks/{seek['id']}")["status"] == "expired"
    assert ann.ok("GET", "/seeks")["results"] == []
    error_of(ann.request("DELETE", f"/seeks/{seek['id']}"), 409, "seek_expired")


@pytest.mark.django_db
def test_it_never_seats_a_seek_past_its_time_even_before_the_sweep() -> None:
    people = [register_player(f"late{i}", password="correct horse battery")[0] for i in range(4)]
    move_seconds = next(_move_times)
    oldest, *others = [
        services.create_seek(p, rules=RULES, rated=True, move_seconds=move_seconds) for p in people
    ]
    run_out(oldest)

    (game_id,) = services.match_seeks()

    seated = Game.objects.get(pk=game_id).players.values_list("player_id", flat=True)
    assert sorted(seated) == sorted(s.player_id for s in others)
    oldest.refresh_from_db()
    assert oldest.status == Seek.Status.OPEN and oldest.game_id is None  # not swept yet...
    assert selectors.seek_data(oldest)["status"] == "expired"  # ...but shown as expired


@pytest.mark.django_db
def test_it_lets_a_seeker_whose_seek_ran_out_seek_again_before_the_sweep() -> None:
    ann = register_player("again", password="correct horse battery")[0]
    move_seconds = next(_move_times)
    first = services.create_seek(ann, rules=RULES, rated=True, move_seconds=move_seconds)
    run_out(first)

    assert selectors.open_seeks(ann) == []
    with pytest.raises(Conflict) as refused:
        services.cancel_seek(ann, seek_id=first.pk)
    assert refused.value.code == "seek_expired"
    second = services.create_seek(ann, rules=RULES, rated=True, move_seconds=move_seconds)

    assert selectors.open_seeks(ann) == [second]
    first.refresh_from_db()
    assert first.status == Seek.Status.EXPIRED
    told = PlayerMessage.objects.filter(player=ann, type="seek_expired")
    assert [m.payload["seek"]["id"] for m in told] == [first.pk]  # told once


@pytest.mark.django_db
def test_it_sweeps_only_the_seeks_past_their_time_and_tells_each_seeker_once() -> None:
    people = [register_player(f"swept{i}", password="correct horse battery")[0] for i in range(3)]
    seeks = [
        services.create_seek(p, rules=RULES, rated=True, move_seconds=next(_move_times))
        for p in people
    ]
    run_out(seeks[0], seeks[1])

    assert services.expire_due_seeks() == 2
    assert services.expire_due_seeks() == 0

    statuses = dict(Seek.objects.filter(pk__in=[s.pk for s in seeks]).values_list("pk", "status"))
    assert statuses == {seeks[0].pk: "expired", seeks[1].pk: "expired", seeks[2].pk: "open"}
    told = PlayerMessage.objects.filter(type="seek_expired", player__in=people)
    assert sorted(m.player_id for m in told) == sorted([people[0].pk, people[1].pk])


@pytest.mark.django_db
def test_it_counts_a_seeks_lifetime_from_its_house_bot_fill(settings: Any) -> None:
    settings.QUICKPLAY_SEEK_SECONDS = 120
    ann, bob = (register_player(n, password="correct horse battery")[0] for n in ("hb1", "hb2"))

    people_only = services.create_seek(ann, rules=RULES, rated=True, move_seconds=60)
    with_bots = services.create_seek(
        bob, rules=RULES, rated=True, move_seconds=60, house_bots_after=30
    )

    def lifetime(seek: Seek) -> float:
        return (seek.expires_at - seek.created_at).total_seconds()

    assert lifetime(people_only) == pytest.approx(120, abs=1)
    assert lifetime(with_bots) == pytest.approx(150, abs=1)


@pytest.mark.django_db
def test_it_sends_a_person_whose_seek_ran_out_from_its_waiting_page_back_to_the_lobby() -> None:
    ann = register_player("webwait", password="correct horse battery")[0]
    seek = services.create_seek(ann, rules=RULES, rated=True, move_seconds=next(_move_times))
    browser = DjangoClient(REMOTE_ADDR="198.51.100.41")
    browser.force_login(ann)
    assert browser.get(f"/quickplay/{seek.pk}").status_code == 200  # waiting

    run_out(seek)
    response = browser.get(f"/quickplay/{seek.pk}", follow=True)

    assert response.redirect_chain[-1][0] == "/lobby#quick-play"
    assert "nobody was found in time" in response.content.decode()
    assert b"You are looking for a game" not in response.content


# --- The plan, on seeks in memory ------------------------------------------------------------

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def seek(
    player: int,
    *,
    age: float = 0,
    rating: float = 25.0,
    low: float | None = None,
    high: float | None = None,
    bots_after: int | None = None,
) -> Seek:
    return Seek(
        pk=player,
        player_id=player,
        rating=rating,
        rating_min=low,
        rating_max=high,
        house_bots_after=bots_after,
        created_at=NOW - timedelta(seconds=age),
    )


def planned(seeks: list[Seek], size: int = 3) -> list[list[int]]:
    return [
        [s.player_id for s in table] for table in services.plan_tables(seeks, size=size, now=NOW)
    ]


def test_it_seats_the_oldest_seekers_first() -> None:
    assert planned([seek(1), seek(2), seek(3), seek(4)]) == [[1, 2, 3]]


def test_it_lets_younger_seekers_play_while_an_incompatible_oldest_waits() -> None:
    oldest = seek(1, rating=50.0, low=40.0)
    assert planned([oldest, seek(2), seek(3), seek(4)]) == [[2, 3, 4]]
    # Mutual: a range the oldest's rating is outside of keeps it out too.
    assert planned([seek(1, rating=50.0), seek(2, high=30.0), seek(3, high=30.0)]) == []
    assert planned([seek(1, rating=50.0), seek(2, high=30.0), seek(3), seek(4)]) == [[1, 3, 4]]


def test_it_never_puts_one_account_twice_at_a_table() -> None:
    twice = [seek(1), seek(2), Seek(pk=9, player_id=1, rating=25.0, created_at=NOW)]
    assert planned(twice) == []


def test_it_fills_with_house_bots_only_for_seekers_that_asked_for_them() -> None:
    assert planned([seek(1, age=5, bots_after=5)]) == [[1]]
    assert planned([seek(1, age=4, bots_after=5)]) == []
    # Once the oldest's wait is over, it takes along the younger seekers who accept bots,
    # waited or not (two friends seeking together meet); one who did not ask keeps waiting.
    lone = [seek(1, age=9, bots_after=5), seek(2, age=8), seek(3, age=1, bots_after=5)]
    assert planned(lone, size=4) == [[1, 3]]
    assert planned(lone, size=3) == [[1, 2, 3]]  # people enough: no bots
    pair = [seek(1, age=9, bots_after=5), seek(2, age=8, bots_after=0)]
    assert planned(pair) == [[1, 2]]
