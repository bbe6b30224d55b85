"""Faults survived (issue #31): games played to the end by real clients while the test kills
the processes it owns, restarts its own Redis and cuts the database connections.

Service mode only: the test starts its own ``redis-server`` on a free port and, on it, two
web processes (uvicorn), a Celery worker, beat and the move timer, all on the suite's test
database. Each seat of each game is a client as a real one is written: it retries a request
that met a dead connection or a 503 with the same ``Idempotency-Key``, on the other web
process if its own is gone; seat 0 of every game acts only on the ``your_turn`` lines of its
stream, reconnecting whenever the stream breaks. Each time, every game must finish, each
seat's actions in the game record must be exactly those its client got a 200 for (none lost,
none doubled), no seat may be charged a timeout, and no request may answer 500.

The figures of each run are written to ``DATA_DIR/logs/fault-figures.txt`` (the table in
docs/operations.md, "Faults survived", is copied from there).
"""

from __future__ import annotations

import itertools
import json
import random
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from django.conf import settings
from django.db import connection
from psycopg import sql

from games.models import Game, GameEvent, GamePlayer
from tests.conftest import WorkerInfo, suite_process_env
from tests.game_helpers import choose_action
from tests.support import (
    VENV_BIN,
    WEB_SERVER,
    celery_worker_command,
    free_port,
    start_process,
    stop_process_group,
    wait_until,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not settings.REDIS_URL,
        reason="service mode only: the faults are of Redis, PostgreSQL and separate processes",
    ),
]

GAMES = 4
#: Two hands a game: about a hundred actions, long enough for a fault to land mid-game.
RULES = {"preset": "classic", "max_hands": 2}
#: A client's pause before each action, so that games last a few seconds.
THINK_SECONDS = 0.03
#: Seconds Redis, then the database, stay down (longer than SHORT_MOVE_SECONDS: the clocks
#: must stop).
REDIS_OUTAGE_SECONDS = 4.0
DATABASE_OUTAGE_SECONDS = 4.0
SHORT_MOVE_SECONDS = 3
GAME_TIMEOUT_SECONDS = 120
APPLICATION_NAME = "sergeant-faults"
BOT = "house:heuristic"


def wait_for_line(log: Path, text: str, process: subprocess.Popen[bytes], what: str) -> None:
    def logged() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited:\n{log.read_text()}")
        return log.exists() and text in log.read_text(errors="replace")

    wait_until(logged, timeout=60, interval=0.1, what=what)


class Site:
    """The processes this test owns: a Redis, two web processes, a worker, beat, the timer."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.log_dir = log_dir
        self.redis_port = free_port()
        self.env = {
            **env,
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            # Their database connections, told from the test's own (pg_stat_activity).
            "PGAPPNAME": APPLICATION_NAME,
        }
        self.redis: subprocess.Popen[bytes] | None = None
        self.web_ports = [free_port(), free_port()]
        self.webs: list[subprocess.Popen[bytes] | None] = [None, None]
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.timer: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.web_ports]

    def _log(self, name: str) -> Path:
        self.starts += 1
        return self.log_dir / f"{self.starts:02d}-{name}.log"

    def start_redis(self) -> None:
        log = self._log("redis")
        self.redis = start_process(
            ["redis-server", "--port", str(self.redis_port), "--save", "", "--appendonly", "no"],
            self.env,
            log,
        )
        wait_for_line(log, "Ready to accept connections", self.redis, "redis-server")

    def stop_redis(self) -> None:
        if self.redis is not None:
            stop_process_group(self.redis)
            self.redis = None

    def start_web(self, index: int) -> None:
        log = self._log(f"web{index}")
        process = self.webs[index] = start_process(
            [
                *WEB_SERVER,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.web_ports[index]),
                "--no-access-log",
                "--timeout-graceful-shutdown",
                "3",
            ],
            self.env,
            log,
        )

        def serves() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"uvicorn exited:\n{log.read_text()}")
            return httpx.get(self.urls[index] + "/api/v1/tables", timeout=10).status_code == 200

        wait_until(serves, timeout=60, interval=0.1, what="uvicorn to serve")

    def kill_web(self, index: int) -> None:
        process = self.webs[index]
        if process is not None:
            stop_process_group(process, signal.SIGKILL)
            self.webs[index] = None

    def start_worker(self) -> None:
        log = self._log("worker")
        self.worker = start_process(
            celery_worker_command(f"faults-{uuid.uuid4().hex[:6]}@localhost"), self.env, log
        )
        wait_for_line(log, " ready.", self.worker, "the Celery worker")

    def start_beat(self) -> None:
        log = self._log("beat")
        self.beat = start_process(
            [
                str(VENV_BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                f"--schedule={self.log_dir / 'celerybeat-schedule'}",
            ],
            self.env,
            log,
        )
        wait_for_line(log, "beat: Starting", self.beat, "celery beat")

    def start_timer(self) -> None:
        log = self._log("movetimer")
        self.timer = start_process(
            [str(VENV_BIN / "python"), "manage.py", "movetimer"], self.env, log
        )
        wait_for_line(log, "keeping every game's move time", self.timer, "the move timer")

    def kill(self, name: str) -> None:
        """SIGKILL ``worker``, ``beat`` or ``timer``: whatever it held is lost."""
        process = getattr(self, name)
        if process is not None:
            stop_process_group(process, signal.SIGKILL)
            setattr(self, name, None)

    def stop(self) -> None:
        for index in range(len(self.webs)):
            if self.webs[index] is not None:
                stop_process_group(self.webs[index])  # type: ignore[arg-type]
        for process in (self.worker, self.beat, self.timer, self.redis):
            if process is not None:
                stop_process_group(process)


@pytest.fixture(scope="module")
def site(
    django_db_setup: Any,
    django_db_blocker: Any,
    celery_worker: WorkerInfo,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Site]:
    """The test's own platform. The suite's move timer is stopped meanwhile: it watches the
    same database through the suite's Redis, which this test does not take down."""
    celery_worker.kill_timer()
    site = Site(suite_process_env(django_db_blocker), settings.DATA_DIR / "logs" / "faults")
    site.log_dir.mkdir(parents=True, exist_ok=True)
    try:
        site.start_redis()
        site.start_web(0)
        site.start_web(1)
        site.start_worker()
        site.start_beat()
        site.start_timer()
        yield site
    finally:
        site.stop()
        celery_worker.start_timer()


# --- The clients ------------------------------------------------------------------------------


@dataclass(eq=False)
class Seat:
    """One seat's client, and what it saw."""

    site: Site
    token: str
    game_id: int
    seat: int
    server: int
    rng: random.Random
    acknowledged: list[dict[str, Any]] = field(default_factory=list)
    unavailable: int = 0  # 503s answered (and retried)
    failovers: int = 0  # dead connections (and the other web process tried)
    stream_connects: int = 0
    turns_heard: int = 0
    server_errors: list[str] = field(default_factory=list)
    failure: str = ""
    slowest_answer: float = 0.0  # seconds from sending an action to its answer, retries in

    def __post_init__(self) -> None:
        self.http = httpx.Client(headers={"Authorization": f"Token {self.token}"})

    def _fail_over(self) -> None:
        self.failovers += 1
        self.server = (self.server + 1) % len(self.site.urls)
        time.sleep(0.1)

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The request, retried as a real client does until it gets an answer that is not
        a dead connection or a 5xx (same headers, so the same Idempotency-Key)."""
        give_up = time.monotonic() + GAME_TIMEOUT_SECONDS
        while time.monotonic() < give_up:
            url = self.site.urls[self.server] + "/api/v1" + path
            try:
                response = self.http.request(method, url, timeout=30, **kwargs)
            except httpx.TransportError:
                self._fail_over()
                continue
            if response.status_code == 503:
                self.unavailable += 1
                time.sleep(min(float(response.headers.get("Retry-After", "1")), 1.0))
                continue
            if response.status_code >= 500:
                self.server_errors.append(f"{response.status_code} {method} {path}")
                time.sleep(0.2)
                continue
            return response
        raise AssertionError(f"no answer to {method} {path} in {GAME_TIMEOUT_SECONDS} s")

    def act(self, view: dict[str, Any]) -> None:
        """Choose an action from ``view`` and send it until it is answered."""
        time.sleep(THINK_SECONDS)
        action = choose_action(view, self.rng)
        started = time.monotonic()
        response = self.call(
            "POST",
            f"/games/{self.game_id}/actions",
            json={**action, "expected_version": view["version"]},
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )
        self.slowest_answer = max(self.slowest_answer, time.monotonic() - started)
        if response.status_code == 200:
            self.acknowledged.append(action)
        elif response.status_code not in (400, 409):  # a view gone stale: look again
            raise AssertionError(f"action answered {response.status_code}: {response.text}")

    def play_by_polling(self) -> None:
        after = 0
        while True:
            view = self.call("GET", f"/games/{self.game_id}").json()
            if view["status"] == "finished":
                return
            if self.seat in view["to_act"]:
                self.act(view)
                continue
            events = self.call(
                "GET", f"/games/{self.game_id}/events", params={"after": after, "wait": 5}
            ).json()
            after = events["last_seq"]

    def play_by_stream(self) -> None:
        while True:
            url = self.site.urls[self.server] + "/api/v1/stream"
            try:
                with self.http.stream("GET", url, timeout=httpx.Timeout(10, read=20)) as response:
                    if response.status_code != 200:
                        if response.status_code >= 500 and response.status_code != 503:
                            self.server_errors.append(f"{response.status_code} GET /stream")
                        time.sleep(0.5)
                        continue
                    self.stream_connects += 1
                    for line in response.iter_lines():
                        if not line:
                            continue
                        message = json.loads(line)
                        if message.get("game") != self.game_id:
                            continue
                        if message["type"] == "game_finish":
                            return
                        if message["type"] == "your_turn":
                            self.turns_heard += 1
                            self.act(message["view"])
            except (httpx.TransportError, httpx.StreamError):
                pass
            self._fail_over()  # the stream ended or broke: reconnect, as a client does

    def run(self) -> None:
        try:
            self.play_by_stream() if self.seat == 0 else self.play_by_polling()
        except Exception as error:  # reported by the test, from the main thread
            self.failure = f"seat {self.seat} of game {self.game_id}: {error!r}"
        finally:
            self.http.close()


def register(url: str, name: str) -> str:
    response = httpx.post(
        url + "/api/v1/accounts/register",
        json={"username": name, "password": "correct horse battery"},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def post(url: str, path: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(
        url + "/api/v1" + path, json=body, headers={"Authorization": f"Token {token}"}, timeout=30
    )
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


def start_games(
    site: Site,
    label: str,
    move_seconds: int,
    threads: dict[Seat, threading.Thread],
    house_bots: int = 0,
) -> list[list[Seat]]:
    """``GAMES`` games of three new players (in the first ``house_bots`` of them, seat 2 is
    the house bot ``BOT``), each seat's client started as soon as its game is (its clock
    runs from then)."""
    url = site.urls[0]
    games = []
    for number in range(GAMES):
        people = 2 if number < house_bots else 3
        tokens = [register(url, f"{label}{number}s{seat}") for seat in range(people)]
        table = post(url, "/tables", tokens[0], {"rules": RULES, "move_seconds": move_seconds})
        for token in tokens[1:]:
            table = post(url, f"/tables/{table['id']}/join", token, {})
        if people == 2:
            table = post(url, f"/tables/{table['id']}/bots", tokens[0], {"bot": BOT, "seat": 2})
        game = [
            Seat(site, token, int(table["game"]), seat, (seat + number) % 2, random.Random(number))
            for seat, token in enumerate(tokens)
        ]
        for seat in game:
            threads[seat] = threading.Thread(target=seat.run, daemon=True)
            threads[seat].start()
        games.append(game)
    return games


# --- A run: games played through one fault ----------------------------------------------------


def normalised(action: dict[str, Any]) -> dict[str, Any]:
    """An action as the record writes it (cards in a set order, no seat)."""
    shown = {key: value for key, value in action.items() if key != "seat"}
    if "cards" in shown:
        shown["cards"] = sorted(shown["cards"])
    return shown


@dataclass
class Figures:
    fault: str
    games: int = 0
    finished: int = 0
    moves: int = 0  # actions the clients got a 200 for
    bot_moves: int = 0  # actions of house bots' seats in the records
    lost: int = 0
    doubled: int = 0
    timeouts: int = 0  # charged to seats of clients
    bot_timeouts: int = 0  # charged to house bots' seats (a turn lost with a killed worker)
    unavailable: int = 0
    failovers: int = 0
    stream_reconnects: int = 0
    server_errors: int = 0
    slowest_answer: float = 0.0
    longest_wait: float = 0.0  # the longest a game went without an event (waiting on a move)

    def line(self) -> str:
        return " | ".join(f"{name}={value}" for name, value in vars(self).items())


def versions(games: list[list[Seat]]) -> list[int]:
    return list(
        Game.objects.filter(pk__in=[seats[0].game_id for seats in games]).values_list(
            "version", flat=True
        )
    )


def play_through(
    site: Site,
    label: str,
    fault: Callable[[], None],
    move_seconds: int = 60,
    house_bots: int = 0,
) -> Figures:
    """Play ``GAMES`` games to the end, calling ``fault`` once each is well under way; then
    compare every game's record with what its clients sent and got a 200 for."""
    threads: dict[Seat, threading.Thread] = {}
    games = start_games(site, label, move_seconds, threads, house_bots)
    seats = [seat for game in games for seat in game]
    wait_until(lambda: min(versions(games)) >= 15, timeout=60, what="every game under way")
    fault()
    for thread in threads.values():
        thread.join(timeout=GAME_TIMEOUT_SECONDS)
    failures = [seat.failure for seat in seats if seat.failure]
    failures += [
        f"game {seat.game_id} seat {seat.seat}: still playing"
        for seat, thread in threads.items()
        if thread.is_alive()
    ]
    assert not failures, failures

    figures = Figures(fault=label, games=len(games))
    for game in games:
        game_id = game[0].game_id
        figures.finished += Game.objects.get(pk=game_id).status == Game.Status.FINISHED
        record = httpx.get(site.urls[1] + f"/api/v1/games/{game_id}/record", timeout=30).json()
        recorded = record["actions"]
        for seat in game:
            sent = [normalised(action) for action in seat.acknowledged]
            kept = [normalised(action) for action in recorded if action["seat"] == seat.seat]
            figures.moves += len(sent)
            figures.lost += max(0, len(sent) - len(kept)) + _differences(sent, kept)
            figures.doubled += max(0, len(kept) - len(sent))
            figures.unavailable += seat.unavailable
            figures.failovers += seat.failovers
            figures.stream_reconnects += max(0, seat.stream_connects - 1)
            figures.server_errors += len(seat.server_errors)
            figures.slowest_answer = max(figures.slowest_answer, round(seat.slowest_answer, 1))
        moments = list(
            GameEvent.objects.filter(game_id=game_id).order_by("seq").values_list("at", flat=True)
        )
        longest = max((b - a).total_seconds() for a, b in itertools.pairwise(moments))
        figures.longest_wait = max(figures.longest_wait, round(longest, 1))
        clients = [seat.seat for seat in game]
        figures.bot_moves += sum(1 for action in recorded if action["seat"] not in clients)
        for seat_number, timeouts in GamePlayer.objects.filter(game_id=game_id).values_list(
            "seat", "timeouts"
        ):
            if seat_number in clients:
                figures.timeouts += timeouts
            else:
                figures.bot_timeouts += timeouts
    with (settings.DATA_DIR / "logs" / "fault-figures.txt").open("a") as out:
        out.write(figures.line() + "\n")
    print(figures.line())
    assert figures.finished == GAMES, figures
    assert (figures.lost, figures.doubled, figures.timeouts) == (0, 0, 0), figures
    assert figures.server_errors == 0, [s.server_errors for s in seats if s.server_errors]
    assert all(seat.turns_heard for seat in seats if seat.seat == 0)  # streams delivered
    return figures


def _differences(sent: list[dict[str, Any]], kept: list[dict[str, Any]]) -> int:
    """Positions where the record holds another action than the one the client sent."""
    return sum(1 for a, b in zip(sent, kept, strict=False) if a != b)


# --- The faults -------------------------------------------------------------------------------


def test_games_finish_while_the_worker_is_killed_and_replaced(site: Site) -> None:
    def fault() -> None:
        site.kill("worker")
        time.sleep(1)
        site.start_worker()

    # House bots play by the worker: half the games have one.
    figures = play_through(site, "wk", fault, move_seconds=10, house_bots=GAMES // 2)

    assert figures.bot_moves > 0


def test_games_finish_while_beat_and_the_move_timer_are_killed_and_restarted(site: Site) -> None:
    def fault() -> None:
        site.kill("beat")
        site.kill("timer")
        time.sleep(1)
        site.start_beat()
        site.start_timer()

    play_through(site, "bt", fault)


def test_games_finish_on_the_other_web_process_when_one_is_killed(site: Site) -> None:
    def fault() -> None:
        site.kill_web(0)

    figures = play_through(site, "wb", fault)
    site.start_web(0)

    assert figures.failovers > 0  # clients of the killed process went to the other
    assert figures.stream_reconnects > 0  # and so did the streams on it


def test_games_finish_and_no_clock_runs_while_redis_is_down(site: Site) -> None:
    def fault() -> None:
        site.stop_redis()
        time.sleep(REDIS_OUTAGE_SECONDS)
        site.start_redis()

    play_through(site, "rd", fault, move_seconds=SHORT_MOVE_SECONDS)


def admin_connection() -> psycopg.Connection[Any]:
    """A connection to the server's ``postgres`` database, outside the test database."""
    db = connection.settings_dict
    return psycopg.connect(
        f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/postgres", autocommit=True
    )


def cut_connections(admin: psycopg.Connection[Any]) -> int:
    """Terminate every connection of the test's processes to the test database."""
    return len(
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND application_name = %s",
            [connection.settings_dict["NAME"], APPLICATION_NAME],
        ).fetchall()
    )


def allow_connections(admin: psycopg.Connection[Any], allowed: bool) -> None:
    statement = sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS {}").format(
        sql.Identifier(connection.settings_dict["NAME"]), sql.Literal(allowed)
    )
    admin.execute(statement)


def test_games_finish_when_the_database_connections_are_cut(site: Site) -> None:
    connections_cut: list[int] = []

    def fault() -> None:
        with admin_connection() as admin:
            for _ in range(3):  # each web process, the worker and the timer, mid-move
                connections_cut.append(cut_connections(admin))
                time.sleep(0.5)

    figures = play_through(site, "dc", fault)

    print(f"database connections cut: {connections_cut}")
    assert sum(connections_cut) > 0
    assert figures.unavailable > 0  # the cut connections were answered 503, and retried


def test_games_finish_and_no_clock_runs_while_the_database_is_down(site: Site) -> None:
    """The test database refuses every connection for longer than a move's time."""

    def fault() -> None:
        with admin_connection() as admin:
            allow_connections(admin, False)
            try:
                cut_connections(admin)
                time.sleep(DATABASE_OUTAGE_SECONDS)
            finally:
                allow_connections(admin, True)

    figures = play_through(site, "dd", fault, move_seconds=SHORT_MOVE_SECONDS)

    assert figures.unavailable > 0
