"""Watchers of games on one web process: ``/live`` (Server-Sent Events) and the long poll.

    .venv/bin/python benchmarks/watchers.py [--only live,poll,idle,embedded,memory,club,room]
                                            [--spectators 1000] [--seconds 30]
                                            [--idle-seconds 30] [--baseline-seconds 10]
                                            [--page-watchers 200] [--connections 10000]
                                            [--club-tables 20] [--club-spectators 100]
                                            [--club-tabs 60]
                                            [--room-members 60] [--room-rounds 3]
                                            [--room-window 20] [--room-screens 60]
                                            [--room-pages 60]
                                            [--room-screen-fragment screen|live]
                                            [--idle-live N] [--idle-polls N]
                                            [--history-moves 150]
                                            [--history-connections 2000]
                                            [--profile [PY_SPY]]
                                            [--database NAME] [--redis-db N]

Each scenario starts a web process of its own (uvicorn as docker-compose.yml starts it, one
worker, by ``common.start_uvicorn``; ``RATE_LIMIT_PER_MINUTE`` raised, since every client
comes from 127.0.0.1), so that no feed of an earlier scenario lingers in it. Service mode
runs on a fresh PostgreSQL database (``--database``, ``sergeant_bench_watchers``) and Redis db
``--redis-db`` (9, flushed) with a Celery worker, beat and the move timer
(``common.service_platform``); the embedded default on a fresh SQLite ``DATA_DIR`` (a
temporary folder, migrated), with no other process. The games are full games of ``classic``
(205 moves at the least over 30 seeds: none ends inside a window) between three registered
players; every seat is a person, so no bot plays.

Scenarios (``--only``, comma-separated; all by default):

* ``live`` (service mode): ``--spectators`` anonymous clients on ``/games/{id}/live`` of
  one game that moves once a second. Latency of a move to a spectator: from the moment just
  before the move's ``POST`` was written to the socket to the moment the first frame
  carrying that version (or a later one) was read by the load generator; also given from
  the moment the ``POST``'s answer was read. Missing: moves sent in the window that some
  spectator never received (by version) within 3 s after it. Web CPU per delivery: the web
  process's CPU seconds over the window / (moves in it x spectators); the moves' own CPU
  (the mover's view ``GET`` and ``POST``, measured first for ``--baseline-seconds`` with no
  watcher) is in it, and also given apart.
* ``poll`` (service mode): half as many clients on ``/events?after=LAST&wait=30``, each
  asking again at once with the ``last_seq`` of each answer; the same figures.
* ``idle``: ``--spectators`` ``/live`` and as many long polls (``wait=30``) spread over 10
  games that do not move (service mode), then 100 + 100 on the embedded default: the web
  process's CPU over ``--idle-seconds`` of quiet (30 s by default: one long-poll wait, so
  each long poll asks again once in it, and each stream gets two keep-alive comments).
* ``embedded`` (embedded default): ``--page-watchers`` clients on ``/live?fragment=table``
  (as the table page follows a game) of one game moving once a second: latency, and how
  busy the whole machine was (``/proc/stat``) over the window, and the web process.
* ``memory`` (service mode): the web process's RSS before any connection and after
  ``--connections`` idle ``/live`` connections (over the 10 quiet games) are open. Then
  ``--history-connections`` streams, each time on a fresh web process, on a just-dealt game
  and on one of ``--history-moves`` moves, whose first frame (the catch-up) is the whole
  game: what a connection costs with each.
* ``club`` (both modes): ``--club-tables`` tables, each with its three seats' pages
  (``/live?fragment=table`` with the seat's token) and a mover playing each turn 2-5 s
  after the one before; ``--club-spectators`` anonymous pages spread over the tables; and
  ``--club-tabs`` anonymous tabs of a tournament's page (``/tournaments/{id}/live``), the
  tournament changed every 3 s (its last player entering or leaving): latency as for moves.
* ``room`` (both modes): a club night at real tables. An in-person swiss (venue
  ``in_person``, no club) of ``--room-members`` registered players, started; in each of
  ``--room-rounds`` rounds every table's result is entered through the API by one of its
  seated players (with that player's token, the service the phone page's form calls) at a
  random moment within ``--room-window`` seconds, and confirmed by another 1-5 s later;
  when the round's last result stands the round moves on by itself (the Celery worker; in
  the embedded default one is started for this scenario, on its filesystem broker, as
  ``make run`` does), and the next round's tables are read with ``GET``.
  ``--room-screens`` streams follow the tournament with the screen page's fragment
  (``--room-screen-fragment``: ``screen``, or the tournament page's ``live`` as a stand-in)
  and ``--room-pages`` with the tournament page's (``live``). Latency of an entry (a
  confirmation) to a page: from just before its ``POST`` was written to the first frame
  read whose HTML shows that table's code with the status ``pending`` (``final``) or one
  further on, found by a bytes search (``ROOM_PATTERNS``: the only thing the fragments
  differ in); missing if none came within 3 s. Round advance: from a round's last
  confirmation to each screen's first frame showing the next round's tables.

The load generator is one process on uvloop: the streams are asyncio protocols over raw
sockets (the HTTP/1.1 chunked encoding and the frames split by hand; a frame's version taken
by a bytes search, no JSON decoded), the long polls and the movers plain keep-alive
connections. Its own CPU and how late its event loop ran are printed: its delays are in
every latency. RLIMIT_NOFILE is raised to its hard limit here, and so in the server too.
``--profile``: py-spy (``pip install py-spy``; its path, if not on PATH) samples the web
process over each window; the functions it was in most are printed (it costs the server a
little CPU: the figures of such a run are not the benchmark's).

Needs PostgreSQL and Redis on 127.0.0.1 (for the service-mode scenarios).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import orjson
import uvloop
from api_load import choose
from common import (
    BIN,
    ESTABLISHED,
    ROOT,
    free_port,
    percentile,
    processes_cpu,
    service_platform,
    start,
    start_uvicorn,
    stop,
    tcp_sockets,
)

DB_NAME = "sergeant_bench_watchers"
HOST = "127.0.0.1"
PASSWORD = "bench-password-1"
SCENARIOS = ("live", "poll", "idle", "embedded", "memory", "club", "room")
#: Seconds after a window for its last moves' frames to arrive.
GRACE_SECONDS = 3.0
#: Seconds between the last watcher connected and the window's start.
SETTLE_SECONDS = 2.0
#: Games that do not move, for the idle and memory scenarios.
QUIET_GAMES = 10
#: A long poll's wait (the issue's ``wait=30``).
POLL_WAIT = 30
#: Every table's move time: no move timer plays within a run.
MOVE_SECONDS = 3600
#: The players who take turns at the games' seats (and at the club's tournament).
GAME_PLAYERS = 6
#: Connections opened at once.
CONNECT_AT_ONCE = 100


def progress(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# --- Measuring ----------------------------------------------------------------------------


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores so far, from /proc/stat."""
    with open("/proc/stat") as stat:
        user, nice, system, idle, iowait, irq, softirq, steal = map(
            int, stat.readline().split()[1:9]
        )
    busy = user + nice + system + irq + softirq + steal
    return busy, busy + idle + iowait


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of ``pid`` in MB."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return found["VmRSS"], found["VmHWM"]


@dataclass
class Snapshot:
    at: float
    web: float
    busy: int
    total: int
    own: float


def snapshot(pid: int) -> Snapshot:
    web = processes_cpu(lambda found, _parent, _name: found == pid)[pid]
    busy, total = machine_jiffies()
    times = os.times()
    return Snapshot(time.monotonic(), web, busy, total, times.user + times.system)


@dataclass
class Usage:
    seconds: float
    web: float  # CPU seconds of the web process
    machine: float  # share of all cores busy
    own: float  # CPU seconds of the load generator

    @property
    def others(self) -> float:
        """CPU seconds of everything else on the machine (database, Redis, other work)."""
        return self.machine * (os.cpu_count() or 1) * self.seconds - self.web - self.own


def usage(before: Snapshot, after: Snapshot) -> Usage:
    return Usage(
        after.at - before.at,
        after.web - before.web,
        (after.busy - before.busy) / max(1, after.total - before.total),
        after.own - before.own,
    )


class LoopLag:
    """How late the load generator's event loop wakes from 10 ms sleeps."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []

    async def run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(0.01)
            now = time.monotonic()
            self.samples.append((now, now - asked - 0.01))

    def within(self, start: float, end: float) -> list[float]:
        return [late for at, late in self.samples if start <= at <= end]


#: py-spy's path when ``--profile`` is given: each window is profiled (raw stacks in var/).
PY_SPY: str | None = None


def start_profile(pid: int, seconds: float, name: str) -> subprocess.Popen[bytes] | None:
    """py-spy sampling the web process over the coming window (``--profile``)."""
    if PY_SPY is None:
        return None
    output = ROOT / "var" / f"watchers-profile-{name}.txt"
    command = [PY_SPY, "record", "--pid", str(pid), "--duration", str(max(1, int(seconds)))]
    command += ["--rate", "200", "--format", "raw", "--nonblocking", "--output", str(output)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def report_profile(process: subprocess.Popen[bytes] | None, name: str, top: int = 12) -> None:
    """Where the web process's threads were (py-spy's raw stacks): the functions it was in
    itself most, and the platform's functions it was in most (with what they called)."""
    if process is None:
        return
    process.wait(timeout=120)
    output = ROOT / "var" / f"watchers-profile-{name}.txt"
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in output.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        count = int(count_text)
        total += count
        frames = [frame.rsplit(":", 1)[0] + ")" for frame in stack.split(";")]
        for frame in set(frames):
            if frame.split("(")[-1].split("/")[0] in PLATFORM_PACKAGES:
                inclusive[frame] = inclusive.get(frame, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
    print(f"  profile: {total} samples of the web process's busy threads ({output})")
    for title, counts in (("itself", own), ("the platform's, with callees", inclusive)):
        print(f"    most in {title}:")
        for frame, count in sorted(counts.items(), key=lambda item: -item[1])[:top]:
            print(f"      {count / max(1, total) * 100:5.1f}%  {frame}")


#: The project's packages (a profile's frames in them are the platform's).
PLATFORM_PACKAGES = {
    "core",
    "api",
    "accounts",
    "realtime",
    "games",
    "bots",
    "ratings",
    "tournaments",
    "challenges",
    "quickplay",
    "arena",
    "web",
    "health",
}


@dataclass
class Row:
    scenario: str
    figure: str
    value: str
    target: str = ""
    met: bool | None = None


ROWS: list[Row] = []
NOTES: list[str] = []


def row(scenario: str, figure: str, value: str, target: str = "", met: bool | None = None) -> None:
    ROWS.append(Row(scenario, figure, value, target, met))
    mark = "" if met is None else ("  met" if met else "  NOT MET")
    print(f"  {figure}: {value}" + (f"  (target {target}){mark}" if target else ""), flush=True)


def note(text: str) -> None:
    NOTES.append(text)
    print(f"  {text}", flush=True)


# --- HTTP ---------------------------------------------------------------------------------


def request_head(method: str, path: str, port: int, token: str | None, extra: str = "") -> bytes:
    auth = f"Authorization: Token {token}\r\n" if token else ""
    return f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n{auth}{extra}".encode()


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).lower()
    status = int(head[9:12])
    found = head.find(b"\r\ncontent-length:")
    if found >= 0:
        length = int(head[found + 17 : head.index(b"\r\n", found + 2)])
        return status, await reader.readexactly(length)
    if b"transfer-encoding: chunked" not in head:
        return status, b""
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        body += (await reader.readexactly(size + 2))[:size]
        if size == 0:  # its CRLF read with it (no trailers)
            return status, body


class Http:
    """One keep-alive connection, for setting up and moving."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.sent_at = 0.0  # when the last request was written to the socket

    async def call(
        self, method: str, path: str, token: str | None = None, body: Any = None
    ) -> tuple[int, Any]:
        data = b"" if body is None else orjson.dumps(body)
        kind = "Content-Type: application/json\r\n" if body is not None else ""
        extra = f"{kind}Content-Length: {len(data)}\r\n\r\n"
        message = request_head(method, f"/api/v1{path}", self.port, token, extra) + data
        for attempt in range(2):
            if self.streams is None:
                self.streams = await asyncio.open_connection(HOST, self.port)
            reader, writer = self.streams
            try:
                self.sent_at = time.monotonic()
                writer.write(message)
                status, payload = await read_response(reader)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
                continue
            return status, orjson.loads(payload) if payload else None
        raise AssertionError("unreachable")

    async def ok(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        status, data = await self.call(method, path, token, body)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: {status} {data}")
        return data

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


# --- Watchers -----------------------------------------------------------------------------


class LiveWatcher(asyncio.Protocol):
    """A client of ``/games/{id}/live``: the version of each frame and when it was read."""

    def __init__(self, game: int, request: bytes) -> None:
        self.game = game
        self.request = request
        self.received: list[tuple[int, float]] = []  # (version, moment read)
        self.keepalives: list[float] = []
        self.bytes = 0
        self.error: str | None = None
        self.ended = False  # the stream's last chunk came
        self.closed = False  # by the server, or failed
        self.closing = False  # by this client, at the end
        self.first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self._head = True
        self._buffer = b""
        self._sse = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's: not a subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.bytes += len(data)
        buffer = self._buffer + data if self._buffer else data
        if self._head:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self._buffer = buffer
                return
            head = buffer[:end]
            self._head = False
            if head[9:12] != b"200" or b"chunked" not in head.lower():
                self._fail(
                    head[:12].decode(errors="replace")
                    + " "
                    + buffer[end + 4 :][:200].decode(errors="replace")
                )
                return
            buffer = buffer[end + 4 :]
        at = 0
        size_of = len(buffer)
        while True:
            line_end = buffer.find(b"\r\n", at)
            if line_end < 0:
                break
            size = int(buffer[at:line_end].split(b";")[0], 16)
            start = line_end + 2
            if size_of < start + size + 2:
                break
            if size == 0:
                self.ended = True
                at = size_of
                break
            self._payload(buffer[start : start + size], now)
            at = start + size + 2
        self._buffer = buffer[at:]

    def _payload(self, payload: bytes, now: float) -> None:
        sse = self._sse + payload if self._sse else payload
        while True:
            end = sse.find(b"\n\n")
            if end < 0:
                break
            message, sse = sse[:end], sse[end + 2 :]
            if message.startswith(b":"):
                self.keepalives.append(now)
                continue
            self.frame_read(message, now)
            if not self.first.done():
                self.first.set_result(None)
        self._sse = sse

    def frame_read(self, message: bytes, now: float) -> None:
        version = self.version_of(message)
        if version is not None:
            self.received.append((version, now))

    def version_of(self, message: bytes) -> int | None:
        """A game's frame: its ``version``, found by a bytes search (no JSON decoded)."""
        seq_at = message.find(b',"last_seq":')
        version_at = message.rfind(b'"version":', 0, seq_at)
        return int(message[version_at + 10 : seq_at])

    def _fail(self, error: str) -> None:
        self.error = error
        if not self.first.done():
            self.first.set_result(None)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = not self.closing
        if exc is not None and self.error is None:
            self.error = repr(exc)
        if not self.first.done():
            self.first.set_result(None)

    def close(self) -> None:
        self.closing = True
        if self.transport is not None:
            self.transport.close()


class TournamentTab(LiveWatcher):
    """A client of ``/tournaments/{id}/live``, as the tournament page follows it: each
    frame's version is its event id. Its ``game`` is the tournament's id, negated, so that
    its changes (``Move``s of that key) are told apart from the games' moves."""

    def version_of(self, message: bytes) -> int | None:
        if not message.startswith(b"id: "):
            return None
        return int(message[4 : message.find(b"\n")])


#: How a fragment's HTML shows an in-person table and its result: the attribute carrying the
#: table's code, and the attribute carrying the result's status, the first one from the start
#: of the element that carries the code (the element itself, or inside it); the HTML is a JSON
#: string in the frame, so its quotes are escaped. Nothing else differs between fragments.
ROOM_PATTERNS = {
    "live": (b'data-code=\\"', b'data-result-status=\\"'),  # the tournament page's rows
    "screen": (b'data-table-code=\\"', b'data-status=\\"'),  # the screen page's tables
}
#: A status shows an entry once it is at least as far on (a final result shows the entry).
RESULT_ORDER = {"missing": 0, "pending": 1, "disputed": 1, "final": 2}


def table_statuses(message: bytes, pattern: tuple[bytes, bytes]) -> dict[str, str]:
    """Each in-person table's result status as the frame's HTML shows it (a bytes search)."""
    code_attr, status_attr = pattern
    found: dict[str, str] = {}
    at = message.find(code_attr)
    while at >= 0:
        start = at + len(code_attr)
        code = message[start : message.index(b'\\"', start)].decode()
        following = message.find(code_attr, start)
        status_at = message.find(status_attr, message.rfind(b"<", 0, at))
        if status_at >= 0 and (following < 0 or status_at < following):
            status_at += len(status_attr)
            found[code] = message[status_at : message.index(b'\\"', status_at)].decode()
        at = following
    return found


class RoomTab(TournamentTab):
    """A tournament's stream with a fragment (the screen page, the tournament page): besides
    each frame's version, the tables' result statuses its HTML shows (``tables``, one a
    frame). Frames of one version are the same bytes for every tab: each is searched once.
    Made by ``room_tab`` for a fragment."""

    pattern: tuple[bytes, bytes] = ROOM_PATTERNS["live"]
    searched: dict[bytes, dict[str, str]] = {}

    def __init__(self, game: int, request: bytes) -> None:
        super().__init__(game, request)
        self.tables: list[dict[str, str]] = []

    def frame_read(self, message: bytes, now: float) -> None:
        super().frame_read(message, now)
        if len(self.tables) < len(self.received):
            found = self.searched.get(message)
            if found is None:
                found = self.searched[message] = table_statuses(message, self.pattern)
            self.tables.append(found)


def room_tab(fragment: str) -> type[RoomTab]:
    """The ``RoomTab`` of a fragment, searched with its pattern (``ROOM_PATTERNS``)."""
    pattern = ROOM_PATTERNS[fragment]
    return type(f"RoomTab_{fragment}", (RoomTab,), {"pattern": pattern, "searched": {}})


async def open_live(
    port: int,
    targets: Sequence[tuple[int, str | None, str]],
    timeout: float = 120,
    kind: type[LiveWatcher] = LiveWatcher,
) -> list[LiveWatcher]:
    """A stream per (game, token, query), ``CONNECT_AT_ONCE`` connecting at a time, each
    returned once its first frame (the catch-up) has come. A ``TournamentTab`` follows the
    tournament ``-game``."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    watchers: list[LiveWatcher] = []

    async def one(game: int, token: str | None, query: str) -> None:
        path = (
            f"/api/v1/tournaments/{-game}/live{query}"
            if issubclass(kind, TournamentTab)
            else f"/api/v1/games/{game}/live{query}"
        )
        request = request_head("GET", path, port, token, "Accept: text/event-stream\r\n\r\n")
        watcher = kind(game, request)
        watchers.append(watcher)
        async with gate:
            try:
                await loop.create_connection(lambda: watcher, HOST, port)
                await asyncio.wait_for(asyncio.shield(watcher.first), timeout)
            except (OSError, TimeoutError) as error:
                watcher.error = watcher.error or repr(error)

    await asyncio.gather(*(one(*target) for target in targets))
    return watchers


class Poller:
    """A client of ``/games/{id}/events?after=&wait=``, asking again after each answer."""

    def __init__(self, port: int, game: int, after: int, token: str | None = None) -> None:
        self.port = port
        self.game = game
        self.after = after
        self.token = token
        self.received: list[tuple[int, float]] = []  # (version, moment read), non-empty answers
        self.answers: list[float] = []  # every answer's moment
        self.errors: list[str] = []
        self.reconnects = 0

    async def run(self) -> None:
        prefix = f"GET /api/v1/games/{self.game}/events?wait={POLL_WAIT}&after=".encode()
        rest = request_head("", "", self.port, self.token, "\r\n").partition(b"\r\n")[2]
        while True:
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port)
            except OSError as error:
                self.errors.append(repr(error))
                await asyncio.sleep(1)
                continue
            try:
                while True:
                    writer.write(b"%s%d HTTP/1.1\r\n%s" % (prefix, self.after, rest))
                    status, body = await read_response(reader)
                    now = time.monotonic()
                    self.answers.append(now)
                    if status != 200:
                        self.errors.append(f"HTTP {status} {body[:200]!r}")
                        await asyncio.sleep(1)
                        continue
                    seq_at = body.find(b',"last_seq":')
                    version_at = body.rfind(b'"version":', 0, seq_at)
                    self.after = int(body[seq_at + 12 : body.index(b",", seq_at + 12)])
                    if not body.startswith(b'{"events":[]'):
                        self.received.append((int(body[version_at + 10 : seq_at]), now))
            except (ConnectionError, asyncio.IncompleteReadError) as error:
                self.reconnects += 1
                self.errors.append(repr(error))
            finally:
                writer.close()


# --- Games and moves ----------------------------------------------------------------------


@dataclass
class Move:
    game: int
    version: int
    sent: float  # just before the POST was written
    answered: float  # its answer read


@dataclass
class Mover:
    """Plays one game: the seat to act's view (``GET``), a random legal action (``POST``)."""

    http: Http
    game: int
    tokens: list[str]  # by seat
    moves: list[Move]
    rng: random.Random
    conflicts: int = 0
    finished: bool = False
    to_act: list[int] = field(default_factory=list)

    async def move(self) -> None:
        if not self.to_act:
            view = await self.http.ok("GET", f"/games/{self.game}", self.tokens[0])
            self.to_act = view["to_act"]
        seat = self.to_act[0]
        view = await self.http.ok("GET", f"/games/{self.game}", self.tokens[seat])
        if view["status"] != "playing":
            self.finished = True
            return
        if seat not in view["to_act"]:
            self.to_act = view["to_act"]
            return
        action = {**choose(view, self.rng), "expected_version": view["version"]}
        status, answer = await self.http.call(
            "POST", f"/games/{self.game}/actions", self.tokens[seat], action
        )
        if status != 200:
            self.conflicts += 1
            self.to_act = []
            return
        self.moves.append(Move(self.game, answer["version"], self.http.sent_at, time.monotonic()))
        self.to_act = answer["to_act"]
        if answer["status"] != "playing":
            self.finished = True

    async def every(self, interval: float, until: float) -> None:
        """A move every ``interval`` seconds (on a fixed schedule) until ``until``."""
        due = time.monotonic()
        while not self.finished:
            due += interval
            await self.move()
            if due >= until:
                return
            await asyncio.sleep(max(0.0, due - time.monotonic()))

    async def thinking(self, low: float, high: float, until: float) -> None:
        """Each move ``low``-``high`` seconds after the one before, until ``until``."""
        while not self.finished:
            await asyncio.sleep(self.rng.uniform(low, high))
            if time.monotonic() >= until:
                return
            await self.move()


@dataclass
class Mode:
    """A platform mode's setup: its servers' environment and its players and quiet games,
    made once through the first server."""

    name: str
    env: dict[str, str]
    tokens: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # the players' usernames, as ``tokens``
    quiet: list[int] = field(default_factory=list)
    tables: int = 0
    suffix: int = field(default_factory=lambda: random.randrange(10**6))

    def seats(self) -> list[str]:
        """The tokens of the next table's three seats (six players take turns)."""
        first = self.tables % GAME_PLAYERS
        self.tables += 1
        return [self.tokens[(first + i) % GAME_PLAYERS] for i in range(3)]

    async def prepare(self, http: Http) -> None:
        if self.quiet:
            return
        await self.enrol(http, GAME_PLAYERS)
        for _ in range(QUIET_GAMES):
            game, _ = await self.new_game(http)
            self.quiet.append(game)

    @contextlib.contextmanager
    def worker(self) -> Iterator[None]:
        """Its tasks run while inside: the embedded default's Celery worker (on its
        filesystem broker) started, as ``make run`` starts one; service mode's runs already
        (``common.service_platform``)."""
        if self.name != "embedded":
            yield
            return
        command = [str(BIN / "celery"), "-A", "config", "worker", "--concurrency=1"]
        process = start([*command, "--loglevel=WARNING"], self.env, "watchers-embedded-worker.log")
        try:
            time.sleep(3)  # its process is up
            yield
        finally:
            stop(process)

    async def enrol(self, http: Http, count: int) -> None:
        """At least ``count`` players registered (the first ``GAME_PLAYERS`` play the games)."""
        while len(self.tokens) < count:
            name = f"w{self.suffix}x{len(self.tokens)}"
            body = {"username": name, "password": PASSWORD}
            self.tokens.append((await http.ok("POST", "/accounts/register", None, body))["token"])
            self.names.append(name)

    async def new_game(self, http: Http) -> tuple[int, list[str]]:
        """A new game of classic between three of the players: (its id, tokens by seat)."""
        tokens = self.seats()
        options = {"rules": "classic", "move_seconds": MOVE_SECONDS}
        table = await http.ok("POST", "/tables", tokens[0], options)
        for token in tokens[1:]:
            table = await http.ok("POST", f"/tables/{table['id']}/join", token, {})
        game = int(table["game"])
        by_seat = [""] * 3
        for token in tokens:
            by_seat[(await http.ok("GET", f"/games/{game}", token))["your_seat"]] = token
        return game, by_seat

    async def new_tournament(self, http: Http) -> int:
        """A swiss of classic, its registration open, all the players but the last in it."""
        body = {
            "name": f"Club night {random.randrange(10**6)}",
            "rules": "classic",
            "format": "swiss",
            "rounds": 1,
            "move_seconds": MOVE_SECONDS,
        }
        tournament = int((await http.ok("POST", "/tournaments", self.tokens[0], body))["id"])
        for token in self.tokens[: GAME_PLAYERS - 1]:
            await http.ok("POST", f"/tournaments/{tournament}/register", token, {})
        return tournament

    async def change_tournament(
        self, http: Http, tournament: int, changes: list[Move], until: float
    ) -> None:
        """The last player enters, then leaves, and so on, every 3 s until ``until``: each
        change a new version of the tournament for its tabs (kept as a ``Move`` of the key
        ``-tournament``)."""
        entering = True
        while time.monotonic() + 3 < until:
            await asyncio.sleep(3)
            action = "register" if entering else "withdraw"
            last = self.tokens[GAME_PLAYERS - 1]
            await http.ok("POST", f"/tournaments/{tournament}/{action}", last, {})
            sent, answered = http.sent_at, time.monotonic()
            version = int((await http.ok("GET", f"/tournaments/{tournament}"))["version"])
            changes.append(Move(-tournament, version, sent, answered))
            entering = not entering


async def last_seq(http: Http, game: int) -> int:
    return int((await http.ok("GET", f"/games/{game}/events?after=0"))["last_seq"])


# --- Figures ------------------------------------------------------------------------------


@dataclass
class Deliveries:
    moves: int
    watchers: int
    from_sent: list[float]
    from_answer: list[float]
    missing: int
    frames: int  # frames (or answers) read in the window, over all watchers
    expected: int  # (move, watcher of its game) pairs


def deliveries(
    moves: list[Move], watchers: list[Any], start: float, end: float, until: float
) -> Deliveries:
    """Each move sent in [start, end] against each watcher of its game: when the first frame
    of its version or later was read (up to ``until``)."""
    by_game: dict[int, list[Move]] = {}
    for move in moves:
        if start <= move.sent <= end:
            by_game.setdefault(move.game, []).append(move)
    from_sent: list[float] = []
    from_answer: list[float] = []
    missing = frames = 0
    count = 0
    for watcher in watchers:
        own = sorted(by_game.get(watcher.game, []), key=lambda m: m.version)
        count += len(own)
        received = [r for r in watcher.received if r[1] <= until]
        frames += sum(1 for _, at in received if start <= at <= end)
        at = 0
        for move in own:
            while at < len(received) and received[at][0] < move.version:
                at += 1
            if at == len(received):
                missing += 1
                continue
            from_sent.append(received[at][1] - move.sent)
            from_answer.append(received[at][1] - move.answered)
    moves_in = sum(len(m) for m in by_game.values())
    return Deliveries(moves_in, len(watchers), from_sent, from_answer, missing, frames, count)


def ms(values: list[float], q: float) -> float:
    return percentile(values, q) * 1000 if values else float("nan")


def latency_text(values: list[float]) -> str:
    return (
        f"p50 {ms(values, 0.5):.1f} / p95 {ms(values, 0.95):.1f} / p99 {ms(values, 0.99):.1f} / "
        f"max {ms(values, 1.0):.1f} ms (n={len(values)})"
    )


def usage_text(use: Usage) -> str:
    cores = os.cpu_count() or 1
    return (
        f"web {use.web / use.seconds * 100:.1f}% of a core, load generator "
        f"{use.own / use.seconds * 100:.1f}%, everything else "
        f"{use.others / use.seconds * 100:.1f}%;"
        f" machine {use.machine * 100:.1f}% busy ({use.machine * cores:.2f} of {cores} cores)"
        f" over {use.seconds:.1f} s"
    )


def lag_text(lag: LoopLag, start: float, end: float) -> str:
    late = lag.within(start, end)
    return f"load generator's loop late p99 {ms(late, 0.99):.1f} ms, max {ms(late, 1.0):.1f} ms"


def errors_of(watchers: list[LiveWatcher], pollers: list[Poller]) -> str:
    failed = [w.error for w in watchers if w.error]
    closed = sum(1 for w in watchers if w.closed and not w.error)
    poll_errors = [e for p in pollers for e in p.errors]
    text = f"{len(failed)} stream errors, {closed} streams closed, {len(poll_errors)} poll errors"
    samples = (failed + poll_errors)[:3]
    return text + (f" (e.g. {samples})" if samples else "")


# --- Servers ------------------------------------------------------------------------------


@contextlib.contextmanager
def web_server(mode: Mode, name: str) -> Iterator[tuple[int, int]]:
    """A fresh web process of ``mode``: (its port, its pid)."""
    port = free_port()
    process = start_uvicorn(mode.env, port, log_name=f"watchers-{mode.name}-{name}.log")
    try:
        yield port, process.pid
    finally:
        stop(process)


def run(coroutine: Any) -> Any:
    return uvloop.run(coroutine)


async def moving_scenario(
    label: str,
    mode: Mode,
    port: int,
    pid: int,
    *,
    streams: int,
    polls: int,
    query: str,
    seconds: float,
    baseline_seconds: float,
) -> tuple[Deliveries, Usage, float]:
    """One game moving once a second, watched by ``streams`` anonymous ``/live`` clients
    (with ``query``) and ``polls`` long polls: (deliveries, usage over the window, web CPU
    seconds a move with no watcher)."""
    http = Http(port)
    await mode.prepare(http)
    lag = LoopLag()
    lag_task = asyncio.create_task(lag.run())
    game, tokens = await mode.new_game(http)
    moves: list[Move] = []
    mover = Mover(Http(port), game, tokens, moves, random.Random(7))
    mover_task = asyncio.create_task(mover.every(1.0, until=float("inf")))
    await asyncio.sleep(2)  # the first moves (a deal's trump and discards) and a warm server
    before = snapshot(pid)
    await asyncio.sleep(baseline_seconds)
    alone = usage(before, snapshot(pid))
    alone_moves = sum(1 for m in moves if before.at <= m.sent <= before.at + alone.seconds)
    per_move = alone.web / max(1, alone_moves)
    progress(f"{label}: {alone_moves} moves alone, connecting {streams} streams, {polls} polls")
    watchers = await open_live(port, [(game, None, query)] * streams)
    after = await last_seq(http, game)
    pollers = [Poller(port, game, after) for _ in range(polls)]
    poll_tasks = [asyncio.create_task(p.run()) for p in pollers]
    deadline = time.monotonic() + 60
    while len(tcp_sockets(port, ESTABLISHED)) < streams + polls and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(SETTLE_SECONDS)
    open_now = len(tcp_sockets(port, ESTABLISHED))
    progress(f"{label}: {open_now} connections open; measuring {seconds:.0f} s")
    profile = start_profile(pid, seconds, label)
    start = snapshot(pid)
    await asyncio.sleep(seconds)
    end = snapshot(pid)
    mover_task.cancel()
    await asyncio.sleep(GRACE_SECONDS)
    until = time.monotonic()
    for task in [*poll_tasks, lag_task]:
        task.cancel()
    for watcher in watchers:
        watcher.close()
    http.close()
    mover.http.close()
    found = deliveries(moves, [*watchers, *pollers], start.at, end.at, until)
    use = usage(start, end)
    report_profile(profile, label)
    print(
        f"{label}: game {game}, {found.moves} moves in {use.seconds:.1f} s, "
        f"{mover.conflicts} refused, game finished: {mover.finished}"
    )
    note(
        f"{label}: {open_now} connections open at the window's start; "
        + errors_of(watchers, pollers)
    )
    print(f"  {usage_text(use)}; {lag_text(lag, start.at, end.at)}")
    print(f"  latency from the POST's answer: {latency_text(found.from_answer)}")
    print(
        f"  frames or answers read in the window: {found.frames} "
        f"({found.frames / max(1, found.expected):.2f} a delivery)"
    )
    print(
        f"  web CPU a move with no watcher: {per_move * 1000:.2f} ms "
        f"({alone_moves} moves over {alone.seconds:.1f} s)"
    )
    return found, use, per_move


def live_scenario(mode: Mode, args: argparse.Namespace) -> None:
    print(f"\n== live: {args.spectators} spectators on /live, a move a second (service mode)")
    with web_server(mode, "live") as (port, pid):
        found, use, per_move = run(
            moving_scenario(
                "live",
                mode,
                port,
                pid,
                streams=args.spectators,
                polls=0,
                query="",
                seconds=args.seconds,
                baseline_seconds=args.baseline_seconds,
            )
        )
    delivery_rows("live", found, use, per_move, p95_target=250, cpu_target=0.3)


def poll_scenario(mode: Mode, args: argparse.Namespace) -> None:
    polls = args.spectators // 2
    print(f"\n== poll: {polls} long polls (wait={POLL_WAIT}), a move a second (service mode)")
    with web_server(mode, "poll") as (port, pid):
        found, use, per_move = run(
            moving_scenario(
                "poll",
                mode,
                port,
                pid,
                streams=0,
                polls=polls,
                query="",
                seconds=args.seconds,
                baseline_seconds=args.baseline_seconds,
            )
        )
    delivery_rows("poll", found, use, per_move, p95_target=500, cpu_target=1.5)


def delivery_rows(
    name: str,
    found: Deliveries,
    use: Usage,
    per_move: float,
    *,
    p95_target: float,
    cpu_target: float | None,
) -> None:
    row(name, "watchers x moves", f"{found.watchers} x {found.moves} = {found.expected}")
    row(name, "missing", str(found.missing), "0", found.missing == 0)
    p95 = ms(found.from_sent, 0.95)
    row(name, "latency from before the POST", latency_text(found.from_sent))
    row(name, "p95 latency", f"{p95:.1f} ms", f"<= {p95_target} ms", p95 <= p95_target)
    per_delivery = use.web / max(1, found.expected) * 1000
    spectators = (use.web - per_move * found.moves) / max(1, found.expected) * 1000
    if cpu_target is not None:
        row(
            name,
            "web CPU a delivery",
            f"{per_delivery:.3f} ms",
            f"<= {cpu_target} ms",
            per_delivery <= cpu_target,
        )
    else:
        row(name, "web CPU a delivery", f"{per_delivery:.3f} ms")
    row(name, "  of which not the moves' own", f"{spectators:.3f} ms")
    row(name, "web process", f"{use.web / use.seconds * 100:.1f}% of a core")
    row(
        name,
        "machine busy",
        f"{use.machine * 100:.1f}% of {os.cpu_count()} cores "
        f"(load generator {use.own / use.seconds * 100:.1f}% of a core)",
    )


async def idle_run(
    mode: Mode, port: int, pid: int, streams: int, polls: int, seconds: float
) -> tuple[Usage, tuple[float, float], list[LiveWatcher], list[Poller], int]:
    http = Http(port)
    await mode.prepare(http)
    quiet = mode.quiet
    targets = [(quiet[i % len(quiet)], None, "") for i in range(streams)]
    watchers = await open_live(port, targets)
    pollers = []
    for i in range(polls):
        game = quiet[i % len(quiet)]
        pollers.append(Poller(port, game, await last_seq(http, game)))
    http.close()
    tasks = [asyncio.create_task(p.run()) for p in pollers]
    deadline = time.monotonic() + 60
    while len(tcp_sockets(port, ESTABLISHED)) < streams + polls and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(SETTLE_SECONDS + 1)
    open_now = len(tcp_sockets(port, ESTABLISHED))
    progress(f"idle ({mode.name}): {open_now} connections open; measuring {seconds:.0f} s")
    profile = start_profile(pid, seconds, f"idle-{mode.name}")
    start = snapshot(pid)
    await asyncio.sleep(seconds)
    end = snapshot(pid)
    for task in tasks:
        task.cancel()
    for watcher in watchers:
        watcher.close()
    report_profile(profile, f"idle-{mode.name}")
    return usage(start, end), (start.at, end.at), watchers, pollers, open_now


def idle_scenario(mode: Mode, streams: int, polls: int, seconds: float) -> None:
    label = f"idle {mode.name}"
    print(f"\n== {label}: {streams} /live and {polls} long polls on {QUIET_GAMES} quiet games")
    with web_server(mode, "idle") as (port, pid):
        use, (start, end), watchers, pollers, open_now = run(
            idle_run(mode, port, pid, streams, polls, seconds)
        )
    keepalives = sum(1 for w in watchers for at in w.keepalives if start <= at <= end)
    answers = sum(1 for p in pollers for at in p.answers if start <= at <= end)
    note(f"{label}: {open_now} connections open; " + errors_of(watchers, pollers))
    print(f"  {usage_text(use)}")
    row(label, "connections", f"{streams} live + {polls} polls ({open_now} open)")
    share = use.web / use.seconds * 100
    row(label, "web CPU while idle", f"{share:.2f}% of a core", "<= 5%", share <= 5)
    row(
        label,
        "in the window",
        f"{keepalives} keep-alives, {answers} long polls answered "
        f"(timed out) over {use.seconds:.1f} s",
    )


def memory_scenario(
    mode: Mode, connections: int, history_moves: int, history_connections: int
) -> None:
    print(f"\n== memory: {connections} idle /live connections (service mode)")

    async def measure(port: int, pid: int) -> None:
        http = Http(port)
        await mode.prepare(http)
        http.close()
        before, _ = rss_mb(pid)
        # One stream a game first: the feeds started and the stream's code paths warm.
        quiet = mode.quiet
        warm = await open_live(port, [(game, None, "") for game in quiet])
        warmed, _ = rss_mb(pid)
        started = time.monotonic()
        rest = [(quiet[i % len(quiet)], None, "") for i in range(len(quiet), connections)]
        watchers = warm + await open_live(port, rest)
        took = time.monotonic() - started
        await asyncio.sleep(5)
        after, peak = rss_mb(pid)
        open_now = len(tcp_sockets(port, ESTABLISHED))
        note(f"memory: {open_now} connections open; " + errors_of(watchers, []))
        got = sum(1 for w in watchers if w.received)
        first = sum(w.bytes for w in warm) / max(1, len(warm))
        row(
            "memory",
            "connections",
            f"{connections} asked, {got} with their first frame ({first / 1024:.1f} KB with "
            f"the head), {open_now} open, connected in {took:.1f} s",
        )
        row(
            "memory",
            "web RSS",
            f"{before:.0f} MB fresh, {warmed:.0f} MB with {len(warm)} streams, "
            f"{after:.0f} MB with {len(watchers)} (peak {peak:.0f})",
        )
        grown = after - before
        row(
            "memory",
            "RSS growth from fresh",
            f"{grown:.0f} MB ({grown * 1024 / connections:.1f} KB a connection)",
            "<= 200 MB",
            grown <= 200,
        )
        marginal = (after - warmed) * 1024 / max(1, len(watchers) - len(warm))
        row(
            "memory",
            "  from the warm process",
            f"{after - warmed:.0f} MB ({marginal:.1f} KB a connection)",
        )
        for watcher in watchers:
            watcher.close()

    with web_server(mode, "memory") as (port, pid):
        run(measure(port, pid))
    if history_moves and history_connections:
        memory_with_history(mode, history_moves, history_connections)


def memory_with_history(mode: Mode, moves: int, connections: int) -> None:
    """The same on a game of ``moves`` moves (its catch-up frame is the whole game), each
    game on a fresh web process: the memory a connection keeps of its first frame."""

    async def play(port: int) -> tuple[int, int]:
        http = Http(port)
        await mode.prepare(http)
        fresh, _ = await mode.new_game(http)
        game, tokens = await mode.new_game(http)
        mover = Mover(Http(port), game, tokens, [], random.Random(5))
        while len(mover.moves) < moves and not mover.finished:
            await mover.move()
        http.close()
        mover.http.close()
        if mover.finished:  # its streams would end after their first frame
            note(f"memory with history: game {game} ended after {len(mover.moves)} moves")
        return fresh, game

    async def measure(port: int, pid: int, game: int) -> tuple[float, float]:
        warm = await open_live(port, [(game, None, "")] * 10)
        await asyncio.sleep(1)
        before, _ = rss_mb(pid)
        watchers = await open_live(port, [(game, None, "")] * connections)
        await asyncio.sleep(3)
        after, _ = rss_mb(pid)
        failed = sum(1 for w in watchers if w.error or w.closed or not w.received)
        if failed:
            note(f"memory with history: {failed} of {connections} streams failed or ended")
        first = watchers[0].bytes
        for watcher in warm + watchers:
            watcher.close()
        return (after - before) * 1024 / connections, first / 1024

    progress(f"memory: a game of {moves} moves")
    with web_server(mode, "history-moves") as (port, _):
        fresh, game = run(play(port))
    figures = []
    for name, which in (("just dealt", fresh), (f"after {moves} moves", game)):
        with web_server(mode, "history") as (port, pid):
            figures.append((name, *run(measure(port, pid, which))))
    for name, per_connection, first in figures:
        row(
            "memory",
            f"  a game {name}",
            f"{per_connection:.1f} KB a connection ({connections} on a fresh process; first"
            f" frame {first:.1f} KB with the head)",
        )


def embedded_scenario(mode: Mode, args: argparse.Namespace) -> None:
    watchers = args.page_watchers
    print(
        f"\n== embedded: {watchers} pages on /live?fragment=table, a move a second "
        "(embedded default)"
    )
    with web_server(mode, "pages") as (port, pid):
        found, use, per_move = run(
            moving_scenario(
                "embedded",
                mode,
                port,
                pid,
                streams=watchers,
                polls=0,
                query="?fragment=table",
                seconds=args.seconds,
                baseline_seconds=args.baseline_seconds,
            )
        )
    delivery_rows("embedded", found, use, per_move, p95_target=250, cpu_target=None)
    busy = use.machine * 100
    row("embedded", "machine busy (all processes)", f"{busy:.1f}%", "< 50%", busy < 50)
    # No other process of the platform runs in the embedded default: the rest is other work.
    cores = os.cpu_count() or 1
    ours = (use.web + use.own) / use.seconds / cores * 100
    others = use.others / use.seconds / cores * 100
    row(
        "embedded",
        "  web + load generator",
        f"{ours:.1f}% of the machine (other work {others:.1f}%)",
    )


def machine_row(label: str, use: Usage) -> None:
    """How busy the whole machine was over a window, and who was."""
    cores = os.cpu_count() or 1
    row(
        label,
        "machine busy",
        f"{use.machine * 100:.1f}% (web {use.web / use.seconds * 100:.1f}% of a core, load"
        f" generator {use.own / use.seconds * 100:.1f}%, everything else"
        f" {use.others / use.seconds / cores * 100:.1f}% of the machine)",
        "< 50%",
        use.machine < 0.5,
    )


def club_scenario(mode: Mode, args: argparse.Namespace) -> None:
    tables, spectators = args.club_tables, args.club_spectators
    label = f"club {mode.name}"
    print(
        f"\n== {label}: {tables} tables, 3 seat pages each, {spectators} spectator pages, "
        "a move 2-5 s after the one before"
    )

    async def play(
        port: int, pid: int
    ) -> tuple[Deliveries, Deliveries, Usage, int, list[LiveWatcher]]:
        http = Http(port)
        await mode.prepare(http)
        games = [await mode.new_game(http) for _ in range(tables)]
        targets: list[tuple[int, str | None, str]] = [
            (g, t, "?fragment=table") for g, tokens in games for t in tokens
        ]
        targets += [(games[i % tables][0], None, "?fragment=table") for i in range(spectators)]
        watchers = await open_live(port, targets)
        tournament = await mode.new_tournament(http)
        tabs = await open_live(port, [(-tournament, None, "")] * args.club_tabs, kind=TournamentTab)
        changes: list[Move] = []
        lag = LoopLag()
        lag_task = asyncio.create_task(lag.run())
        moves: list[Move] = []
        rng = random.Random(11)
        movers = [Mover(Http(port), g, tokens, moves, rng) for g, tokens in games]
        await asyncio.sleep(SETTLE_SECONDS)
        open_now = len(tcp_sockets(port, ESTABLISHED))
        progress(f"{label}: {open_now} connections open; playing {args.seconds:.0f} s")
        profile = start_profile(pid, args.seconds, f"club-{mode.name}")
        start = snapshot(pid)
        stop_at = start.at + args.seconds
        await asyncio.gather(
            *(m.thinking(2.0, 5.0, stop_at) for m in movers),
            mode.change_tournament(http, tournament, changes, stop_at),
        )
        end = snapshot(pid)
        await asyncio.sleep(GRACE_SECONDS)
        until = time.monotonic()
        lag_task.cancel()
        for watcher in watchers + tabs:
            watcher.close()
        for mover in movers:
            mover.http.close()
        http.close()
        found = deliveries(moves, watchers, start.at, end.at, until)
        tab_found = deliveries(changes, tabs, start.at, end.at, until)
        report_profile(profile, f"club-{mode.name}")
        print(
            f"  {lag_text(lag, start.at, end.at)}; refused moves "
            f"{sum(m.conflicts for m in movers)}, games finished "
            f"{sum(m.finished for m in movers)}"
        )
        return found, tab_found, usage(start, end), open_now, watchers + tabs

    with web_server(mode, "club") as (port, pid):
        found, tab_found, use, open_now, watchers = run(play(port, pid))
    note(f"{label}: {open_now} connections open; " + errors_of(watchers, []))
    print(f"  {usage_text(use)}")
    row(
        label,
        "moves",
        f"{found.moves} in {use.seconds:.1f} s "
        f"({found.moves / use.seconds:.1f}/s), {found.expected} deliveries",
    )
    row(label, "missing", str(found.missing), "0", found.missing == 0)
    row(label, "latency from before the POST", latency_text(found.from_sent))
    row(
        label,
        "p95 latency",
        f"{ms(found.from_sent, 0.95):.1f} ms",
        "<= 250 ms",
        ms(found.from_sent, 0.95) <= 250,
    )
    row(
        label,
        "tournament tabs",
        f"{tab_found.watchers} tabs x {tab_found.moves} changes (an entrant leaving or "
        f"entering again), missing {tab_found.missing}, "
        f"latency {latency_text(tab_found.from_sent)}",
        "0 missing, p95 <= 250 ms",
        tab_found.missing == 0 and ms(tab_found.from_sent, 0.95) <= 250,
    )
    machine_row(label, use)


@dataclass
class RoomChange:
    """An in-person table's result entered or confirmed: the status it now shows."""

    round: int
    code: str
    status: str  # pending after an entry, final after a confirmation
    sent: float  # just before the POST was written
    answered: float  # its answer read


def room_scores(rng: random.Random) -> list[int]:
    """A classic game's possible scores: whole numbers summing to zero, each within one
    hand's bounds (-8 to 13), in seat order."""
    while True:
        first, second = rng.randint(-8, 13), rng.randint(-8, 13)
        if -8 <= -(first + second) <= 13:
            return [first, second, -(first + second)]


async def room_table(
    port: int,
    tournament: int,
    number: int,
    table: dict[str, Any],
    tokens: dict[str, str],
    window: float,
    rng: random.Random,
    changes: list[RoomChange],
    refused: list[str],
) -> None:
    """One real table of round ``number``: a seated player enters its result at a moment
    within ``window`` seconds, another seated player confirms it 1-5 s later, each from a
    phone (a connection of its own)."""
    seated = [tokens[seat["username"]] for seat in table["seats"]]
    enters, confirms = rng.sample(seated, 2)
    path = f"/tournaments/{tournament}/rounds/{number}/tables/{table['code']}/result"
    scores = room_scores(rng)
    http = Http(port)
    await asyncio.sleep(rng.uniform(0, window))
    for status, token, suffix, body in (
        ("pending", enters, "", {"scores": scores}),
        ("final", confirms, "/confirm", {}),
    ):
        if status == "final":
            await asyncio.sleep(rng.uniform(1.0, 5.0))
        code, answer = await http.call("POST", path + suffix, token, body)
        if code != 200 or answer["status"] != status:
            refused.append(f"{table['code']}{suffix}: {code} {answer}")
            break
        changes.append(RoomChange(number, table["code"], status, http.sent_at, time.monotonic()))
    http.close()


def room_deliveries(changes: list[RoomChange], tabs: Sequence[RoomTab], until: float) -> Deliveries:
    """Each change against each tab: the first frame read after its POST was sent whose HTML
    shows the table at that status (or further on); missing if none came within
    ``GRACE_SECONDS`` (or by ``until``)."""
    from_sent: list[float] = []
    from_answer: list[float] = []
    missing = frames = 0
    for tab in tabs:
        times = [at for _, at in tab.received]
        frames += sum(1 for at in times if at <= until)
        for change in changes:
            wanted = RESULT_ORDER[change.status]
            at = bisect.bisect_left(times, change.sent)
            limit = min(until, change.sent + GRACE_SECONDS)
            while at < len(times) and times[at] <= limit:
                shown = tab.tables[at].get(change.code)
                if shown is not None and RESULT_ORDER.get(shown, -1) >= wanted:
                    break
                at += 1
            if at == len(times) or times[at] > limit:
                missing += 1
                continue
            from_sent.append(times[at] - change.sent)
            from_answer.append(times[at] - change.answered)
    expected = len(changes) * len(tabs)
    return Deliveries(len(changes), len(tabs), from_sent, from_answer, missing, frames, expected)


def room_advances(
    changes: list[RoomChange], codes: dict[int, list[str]], tabs: Sequence[RoomTab]
) -> tuple[list[float], int]:
    """From each round's last confirmation to the first frame of each tab that shows the
    next round's tables: (the times, the advances some tab never showed)."""
    found: list[float] = []
    missing = 0
    for number in sorted(codes):
        following = codes.get(number + 1)
        last = [c.sent for c in changes if c.round == number and c.status == "final"]
        if not following or not last:
            continue
        sent = max(last)
        for tab in tabs:
            shown = next(
                (
                    at
                    for (_, at), tables in zip(tab.received, tab.tables, strict=True)
                    if at >= sent and following[0] in tables
                ),
                None,
            )
            if shown is None:
                missing += 1
            else:
                found.append(shown - sent)
    return found, missing


def room_scenario(mode: Mode, args: argparse.Namespace) -> None:
    members, screens, pages = args.room_members, args.room_screens, args.room_pages
    fragment, rounds, window = args.room_screen_fragment, args.room_rounds, args.room_window
    label = f"room {mode.name}"
    print(
        f"\n== {label}: an in-person swiss of {members} members, {rounds} rounds, each "
        f"table's result entered within {window:.0f} s and confirmed 1-5 s later; "
        f"{screens} screen pages (fragment {fragment}), {pages} tournament pages (live)"
    )

    async def play(port: int, pid: int) -> dict[str, Any]:
        http = Http(port)
        await mode.enrol(http, members + 1)
        organiser = mode.tokens[members]  # not an entrant: a player's entry waits on another
        tokens = dict(zip(mode.names[:members], mode.tokens[:members], strict=True))
        body = {
            "name": f"Club room {random.randrange(10**6)}",
            "rules": "classic",
            "format": "swiss",
            "rounds": rounds,
            "venue": "in_person",
        }
        tournament = int((await http.ok("POST", "/tournaments", organiser, body))["id"])
        for token in tokens.values():
            await http.ok("POST", f"/tournaments/{tournament}/register", token, {})
        detail = await http.ok("POST", f"/tournaments/{tournament}/start", organiser, {})
        screen_tabs = await open_live(
            port, [(-tournament, None, f"?fragment={fragment}")] * screens, kind=room_tab(fragment)
        )
        page_tabs = await open_live(
            port, [(-tournament, None, "?fragment=live")] * pages, kind=room_tab("live")
        )
        lag = LoopLag()
        lag_task = asyncio.create_task(lag.run())
        await asyncio.sleep(SETTLE_SECONDS)
        open_now = len(tcp_sockets(port, ESTABLISHED))
        progress(f"{label}: {open_now} connections open; {rounds} rounds")
        profile = start_profile(pid, rounds * (window + 10), f"room-{mode.name}")
        rng = random.Random(13)
        changes: list[RoomChange] = []
        refused: list[str] = []
        codes: dict[int, list[str]] = {}
        start = snapshot(pid)
        for number in range(1, rounds + 1):
            while detail["current_round"] < number or detail["rounds"][-1]["status"] != "playing":
                if time.monotonic() > start.at + rounds * (window + 60):
                    raise RuntimeError(f"round {number} was not seated")
                await asyncio.sleep(0.5)
                detail = await http.ok("GET", f"/tournaments/{tournament}")
            tables = detail["rounds"][-1]["tables"]
            codes[number] = [table["code"] for table in tables]
            progress(f"{label}: round {number}, {len(tables)} tables")
            await asyncio.gather(
                *(
                    room_table(port, tournament, number, t, tokens, window, rng, changes, refused)
                    for t in tables
                )
            )
        end = snapshot(pid)
        await asyncio.sleep(GRACE_SECONDS)
        until = time.monotonic()
        lag_task.cancel()
        status = (await http.ok("GET", f"/tournaments/{tournament}"))["status"]
        http.close()
        for tab in screen_tabs + page_tabs:
            tab.close()
        report_profile(profile, f"room-{mode.name}")
        return {
            "screens": room_deliveries(changes, screen_tabs, until),
            "pages": room_deliveries(changes, page_tabs, until),
            "advances": room_advances(changes, codes, screen_tabs),
            "use": usage(start, end),
            "lag": lag.within(start.at, end.at),
            "open": open_now,
            "tabs": screen_tabs + page_tabs,
            "refused": refused,
            "status": status,
            "posts": [c.answered - c.sent for c in changes],
        }

    with mode.worker(), web_server(mode, "room") as (port, pid):
        found = run(play(port, pid))
    use: Usage = found["use"]
    screens_found: Deliveries = found["screens"]
    pages_found: Deliveries = found["pages"]
    advances, advance_missing = found["advances"]
    note(
        f"{label}: {found['open']} connections open; {errors_of(found['tabs'], [])}; "
        f"{len(found['refused'])} entries refused"
        + (f" (e.g. {found['refused'][:2]})" if found["refused"] else "")
        + f"; the tournament {found['status']} at the end"
    )
    print(f"  {usage_text(use)}")
    print(f"  the entries' and confirmations' POSTs themselves: {latency_text(found['posts'])}")
    print(f"  screens, from the POST's answer: {latency_text(screens_found.from_answer)}")
    row(
        label,
        "results",
        f"{screens_found.moves} entries and confirmations through the API over {rounds} rounds in "
        f"{use.seconds:.1f} s; {screens_found.expected} screen deliveries",
    )
    p95 = ms(screens_found.from_sent, 0.95)
    row(
        label,
        f"screens ({fragment}): missing",
        str(screens_found.missing),
        "0",
        screens_found.missing == 0,
    )
    row(label, "screens: from before the POST", latency_text(screens_found.from_sent))
    row(label, "screens: p95", f"{p95:.1f} ms", "<= 250 ms", p95 <= 250)
    pages_p95 = ms(pages_found.from_sent, 0.95)
    row(
        label,
        "tournament pages (live)",
        f"{pages_found.watchers} pages, missing {pages_found.missing}, "
        f"latency {latency_text(pages_found.from_sent)}",
        "0 missing, p95 <= 250 ms",
        pages_found.missing == 0 and pages_p95 <= 250,
    )
    row(
        label,
        "round advance to the screens",
        f"{latency_text(advances)}, never shown {advance_missing} (last confirmation to the "
        "next round's tables)",
    )
    deliveries_made = screens_found.expected + pages_found.expected
    row(
        label,
        "web CPU",
        f"{use.web / use.seconds * 100:.1f}% of a core, "
        f"{use.web / max(1, deliveries_made) * 1000:.3f} ms a delivery (screens and pages), "
        f"{use.web / max(1, screens_found.moves) * 1000:.1f} ms an entry or confirmation "
        "(its POST, the change read and rendered once, its frames; the advances included)",
    )
    machine_row(label, use)
    late = found["lag"]
    row(
        label,
        "load generator's loop late",
        f"p99 {ms(late, 0.99):.1f} ms, max {ms(late, 1.0):.1f} ms",
    )


# --- Modes --------------------------------------------------------------------------------


@contextlib.contextmanager
def embedded_mode() -> Iterator[Mode]:
    data = Path(tempfile.mkdtemp(prefix="watchers-embedded-"))
    keep = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env = {
        **keep,
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATA_DIR": str(data),
        "SECRET_KEY": "bench-only-secret-key-bench-only-secret-key",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "RATE_LIMIT_PER_MINUTE": "10000000",
    }
    try:
        migrate = [str(BIN / "python"), "manage.py", "migrate", "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=env, check=True)
        yield Mode("embedded", env)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SCENARIOS), help="scenarios, comma-separated")
    parser.add_argument("--spectators", type=int, default=1000, help="/live clients (live, idle)")
    parser.add_argument("--seconds", type=float, default=30.0, help="each measured window")
    parser.add_argument("--idle-seconds", type=float, default=30.0, help="the idle window")
    parser.add_argument("--baseline-seconds", type=float, default=10.0, help="moves alone")
    parser.add_argument("--page-watchers", type=int, default=200, help="embedded's pages")
    parser.add_argument("--idle-live", type=int, help="idle's /live clients (--spectators)")
    parser.add_argument("--idle-polls", type=int, help="idle's long polls (--spectators)")
    parser.add_argument("--embedded-idle", type=int, default=100, help="each kind, embedded")
    parser.add_argument("--connections", type=int, default=10000, help="memory's streams")
    parser.add_argument("--club-tabs", type=int, default=60, help="club's tournament tabs")
    parser.add_argument("--history-moves", type=int, default=150, help="memory, 2nd game")
    parser.add_argument("--history-connections", type=int, default=2000, help="0: skip it")
    parser.add_argument("--club-tables", type=int, default=20)
    parser.add_argument("--redis-db", type=int, default=9, help="service mode's, flushed")
    parser.add_argument("--database", default=DB_NAME, help="service mode's, made afresh")
    parser.add_argument("--club-spectators", type=int, default=100)
    parser.add_argument("--room-members", type=int, default=60, help="room's entrants")
    parser.add_argument("--room-rounds", type=int, default=3)
    parser.add_argument("--room-window", type=float, default=20.0, help="entries' spread, s")
    parser.add_argument("--room-screens", type=int, default=60, help="room's screen pages")
    parser.add_argument("--room-pages", type=int, default=60, help="room's tournament pages")
    parser.add_argument(
        "--room-screen-fragment",
        default="screen",
        choices=sorted(ROOM_PATTERNS),
        help="the screen pages' fragment (live: the tournament page's, as a stand-in)",
    )
    parser.add_argument(
        "--profile",
        nargs="?",
        const=shutil.which("py-spy") or "py-spy",
        help="sample the web process in each window with py-spy (its path; perturbs figures)",
    )
    args = parser.parse_args()
    global PY_SPY
    PY_SPY = args.profile
    only = set(args.only.split(","))
    unknown = only - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {sorted(unknown)}")

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the servers inherit it
    (ROOT / "var").mkdir(exist_ok=True)
    load_before = os.getloadavg()
    started = time.monotonic()
    if only & {"live", "poll", "idle", "memory", "club", "room"}:
        settings = {"RATE_LIMIT_PER_MINUTE": "10000000"}
        with service_platform(
            args.database,
            f"redis://127.0.0.1:6379/{args.redis_db}",
            worker_concurrency=1,
            settings=settings,
        ) as env:
            mode = Mode("service", env)
            if "live" in only:
                live_scenario(mode, args)
            if "poll" in only:
                poll_scenario(mode, args)
            if "idle" in only:
                live = args.spectators if args.idle_live is None else args.idle_live
                polls = args.spectators if args.idle_polls is None else args.idle_polls
                idle_scenario(mode, live, polls, args.idle_seconds)
            if "memory" in only:
                memory_scenario(
                    mode, args.connections, args.history_moves, args.history_connections
                )
            if "club" in only:
                club_scenario(mode, args)
            if "room" in only:
                room_scenario(mode, args)
    if only & {"embedded", "idle", "club", "room"}:
        with embedded_mode() as mode:
            if "embedded" in only:
                embedded_scenario(mode, args)
            if "idle" in only:
                idle_scenario(mode, args.embedded_idle, args.embedded_idle, args.idle_seconds)
            if "club" in only:
                club_scenario(mode, args)
            if "room" in only:
                room_scenario(mode, args)
    report(load_before, time.monotonic() - started)


def report(load_before: tuple[float, float, float], took: float) -> None:
    print("\n== figures")
    print(
        f"machine: {os.cpu_count()} cores; load average {load_before[0]:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end (1 minute); {took / 60:.1f} minutes"
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    print(f"open files limit (RLIMIT_NOFILE) of the load generator and the servers: {soft}/{hard}")
    print(
        "one web process (uvicorn as docker-compose.yml runs it, 1 worker); latency from just "
        "before the move's POST was written to the frame read by the load generator"
    )
    width = max(len(r.scenario) for r in ROWS) if ROWS else 10
    fig = max(len(r.figure) for r in ROWS) if ROWS else 10
    for r in ROWS:
        verdict = "" if r.met is None else ("met" if r.met else "NOT MET")
        target = f"  [{r.target}] {verdict}" if r.target else ""
        print(f"{r.scenario:<{width}}  {r.figure:<{fig}}  {r.value}{target}")
    for text in NOTES:
        print(f"note: {text}")


if __name__ == "__main__":
    main()
