"""Load benchmark of the games API on PostgreSQL: moves/s and latency against a baseline.

    .venv/bin/python benchmarks/api_load.py [--clients 66] [--seconds 20] [--rounds 3]
                                            [--workers 2] [--hands N]
                                            [--poll-games] [--think-ms 1000,500]
                                            [--move-seconds 60] [--code DIR]
                                            [--database sergeant_bench] [--redis-db 12]
                                            [--against DIR [--against-database
                                             sergeant_bench_b] [--against-redis-db 15]]
                                            [--baseline-only] [--settle 2]

It creates a fresh PostgreSQL database (``--database``, ``sergeant_bench``) and flushes a
Redis db (``--redis-db``, 12), starts uvicorn (ASGI) on loopback, then measures in one run:

1. the baseline: ``--clients`` concurrent clients calling ``GET /api/v1/me`` (a trivial
   authenticated endpoint) for ``--seconds``: requests/s, p50, p99;
2. games: the same number of clients, three per table, each reading its NDJSON stream and,
   on ``your_turn`` (which carries the seat's view), posting a random legal action:
   accepted moves/s and the p50/p99 latency of ``POST /games/{id}/actions``. Games are
   full games of ``classic`` (random play: 205-5158 moves, median 1030, 20 hands, over 30
   seeds), or ``--hands N`` hands (one hand: about 50 moves, so that tables finish and
   open games all through a phase: the heaviest mix of table work per move). A table
   starts its next game when its seats' streams say ``game_finish`` (with
   ``--poll-games``, the old way: each table polls ``GET /games/{id}`` every 0.5 s, 44
   requests/s at 66 clients whatever the move rate, which the figures then also pay for).
   Moves/s and the CPU per move are counted from the moment every table has dealt
   its first game (before it, no move is possible yet; see ``play_games``); moves/s over
   the whole phase is printed too;
   Then paced runs (``--think-ms``): the same, but each client thinks 0.5-1.5 x T before
   each move, and the tables open at random moments over the first 2 x T, as a site's
   tables do, rather than all in one instant. Their p99 is also given for the moves sent
   from 2 x T + 3 s after the first one, when every table is open and dealt (the steady
   state);
3. a long game (``all-sixteen``, no other load): the latency of moves 10 and 1000 (medians
   of the 21 moves around each), the early moves made in a second game, alternately with
   the late ones, so that both see the same load.

After an unmeasured warm-up of both, the baseline and the games alternate for ``--rounds``
rounds, and their figures are pooled (each round's rates and CPU per operation are printed
too); the paced runs and the long game come after. Each measured phase is followed by
``--settle`` seconds of silence in which the server's CPU is read (with the connections
still open to it, its workers' memory, its database's and Redis db's sizes): any work a
phase left running into the next shows there. Each phase also prints how its connections
and CPU fell on uvicorn's workers. ``--baseline-only``: rounds of ``GET /me`` alone, no
games (the machine's own drift).

One baseline then one games phase, as before, gave ratios that differed from run to run:
the machine's speed drifts with its other tenants, and the games were measured cold (a
baseline right after games was also slower than one on a server that had played none, in
rates; its CPU per request is the same).

The baseline and the games also report the CPU time per operation of the server side,
read from ``/proc`` (``CpuMeter``: the uvicorn processes; the PostgreSQL backends of the
server's own database, by ``pg_stat_activity``; PostgreSQL's processes of no database and
Redis, which are shared, counted whole for the phase running) and of the load generator:
a cost, steadier between runs on a shared machine than any throughput.

Every latency is also given as the server measured it (``Server-Timing``, server/handlers.py):
the time in Django, thread hand-offs included; the rest went to uvicorn's event loop, the
network and the load generator, which shares the 2 cores with the server. How late the load
generator's own event loop was during the paced runs is printed too.

``--code DIR`` serves another checkout (say ``git worktree add /tmp/old <commit>``) with
this checkout's packages: alternate runs of the two to compare versions on one machine.

``--against DIR`` serves two checkouts side by side in one run: A (this one, or ``--code``)
and B (DIR), each on its own fresh database and Redis db, on this checkout's packages, with
one load generator. Every phase runs on A then B (B then A in even rounds), never both at
once; each server's figures are printed, then B ÷ A of the server CPU per ``GET /me`` and
per move (pooled and per round), of the rates and of the paced runs' steady p99.

Needs PostgreSQL and Redis on 127.0.0.1 (``make test`` with CI=true starts them).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import psycopg
from common import (
    BIN,
    ESTABLISHED,
    ROOT,
    free_port,
    fresh_database,
    percentile,
    processes_cpu,
    start_uvicorn,
    stop,
    tcp_sockets,
)

DB_NAME = "sergeant_bench"
REDIS_DB = 12
#: The second server's of a side-by-side run (``--against``).
AGAINST_DB_NAME = "sergeant_bench_b"
AGAINST_REDIS_DB = 15
#: Silence after each measured phase (``--settle``).
SETTLE_SECONDS = 2.0
#: When, into a measured phase, the connections each worker holds are counted.
SPLIT_AFTER_SECONDS = 3.0


def start_server(
    env: dict[str, str], port: int, workers: int, code: Path, redis_url: str, log_name: str
) -> subprocess.Popen[bytes]:
    """uvicorn serving the checkout at ``code`` (this one by default), with this checkout's
    virtual environment: another checkout's code is measured on the same packages."""
    env = {**env, "PYTHONPATH": str(code)}
    subprocess.run(
        [str(BIN / "python"), "manage.py", "migrate", "-v0"], cwd=code, env=env, check=True
    )
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    return start_uvicorn(env, port, log_name=f"{log_name}-uvicorn.log", workers=workers, code=code)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    option = rng.choice(view["legal_actions"])
    if option["type"] in ("discard", "give"):
        action = {"type": option["type"], "cards": rng.sample(view["your_hand"], option["count"])}
        if option["type"] == "give":
            action["to"] = option["to"]
        return action
    return dict(option)


async def call(
    http: aiohttp.ClientSession, method: str, path: str, token: str | None = None, **kwargs: Any
) -> tuple[Any, float, float]:
    """(the JSON body, seconds to the whole body, seconds the server says it spent) of a
    request that must succeed."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    started = time.perf_counter()
    async with http.request(method, path, headers=headers, **kwargs) as response:
        body = await response.read()
        latency = time.perf_counter() - started
        response.raise_for_status()
        return orjson.loads(body), latency, server_seconds(response.headers)


async def register(http: aiohttp.ClientSession, name: str) -> str:
    body = {"username": name, "password": "bench-password-1"}
    account, _, _ = await call(http, "POST", "/api/v1/accounts/register", json=body)
    return str(account["token"])


def server_seconds(headers: Mapping[str, str]) -> float:
    """The time the server says it spent (``Server-Timing: app;dur=<ms>``, server/handlers.py)."""
    return float(headers["Server-Timing"].partition("dur=")[2]) / 1000


def p99_ms(seconds: list[float]) -> float:
    return percentile(seconds, 0.99) * 1000 if seconds else float("nan")


def figures(
    latencies: list[float],
    server: list[float],
    elapsed: float,
    window: tuple[int, float] | None = None,
) -> dict[str, Any]:
    """The figures of a phase; its rate is over ``window`` (operations, seconds) when given,
    else over the whole phase."""
    window_count, window_seconds = window or (len(latencies), elapsed)
    return {
        "per_second": window_count / max(window_seconds, 1e-9),
        "whole_per_second": len(latencies) / elapsed,
        "window_count": window_count,
        "window_seconds": window_seconds,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "server_p50_ms": percentile(server, 0.5) * 1000,
        "server_p99_ms": percentile(server, 0.99) * 1000,
        "count": len(latencies),
        "elapsed": elapsed,
        "samples": (latencies, server),
    }


def pooled(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of several measured rounds of one phase, as if they were one run."""
    latencies = [x for r in rounds for x in r["samples"][0]]
    server = [x for r in rounds for x in r["samples"][1]]
    window = (sum(r["window_count"] for r in rounds), sum(r["window_seconds"] for r in rounds))
    result = figures(latencies, server, sum(r["elapsed"] for r in rounds), window)
    count = max(1, result["window_count"])
    parts = {
        part: sum(r["server_parts_ms"][part] * r["window_count"] for r in rounds) / count
        for part in CpuMeter.PARTS
    }
    result["server_parts_ms"] = parts
    result["server_cpu_ms"] = sum(parts.values())
    result["client_cpu_ms"] = sum(r["client_cpu_ms"] * r["window_count"] for r in rounds) / count
    result["rejected"] = sum(r.get("rejected", 0) for r in rounds)
    return result


#: Idle connections are dropped by the client well before uvicorn's keep-alive timeout (5 s):
#: with both at 5 s, a request sent on a connection the server was closing at that instant
#: failed (a read error, seen once in a profiled run).
KEEPALIVE_EXPIRY = 2.0


def _nothing() -> None:
    pass


def own_client(base_url: str, connections: int = 100) -> aiohttp.ClientSession:
    """A simulated client's own connections, as a real client has (one shared pool made the
    load generator look through every connection for each request).

    aiohttp, not httpx: sending the same ``POST`` to a server answering at once from a
    trivial ASGI app, httpx cost this process several times aiohttp's CPU a request. The
    load generator shares the 2 cores with the server, and its own event loop's delays are
    in every latency measured here.
    """
    return aiohttp.ClientSession(
        base_url,
        connector=aiohttp.TCPConnector(limit=connections, keepalive_timeout=KEEPALIVE_EXPIRY),
        timeout=aiohttp.ClientTimeout(total=60),
        cookie_jar=aiohttp.DummyCookieJar(),
    )


async def baseline(
    base_url: str, tokens: list[str], seconds: float, window_opened: Callable[[], None] = _nothing
) -> dict[str, Any]:
    """``GET /me`` in a closed loop; it has no opening: its window is the whole phase."""
    latencies: list[float] = []
    server: list[float] = []
    stop = time.monotonic() + seconds

    async def client(token: str) -> None:
        async with own_client(base_url) as own:
            while time.monotonic() < stop:
                _, latency, in_server = await call(own, "GET", "/api/v1/me", token)
                latencies.append(latency)
                server.append(in_server)

    started = time.monotonic()
    await asyncio.gather(*(client(t) for t in tokens))
    return figures(latencies, server, time.monotonic() - started)


def game_rules(hands: int | None) -> dict[str, Any]:
    """What the tables play: full games of ``classic`` (the issue's "full games"), or
    ``hands`` hands each. With one hand (about 50 moves), every table finishes games and
    opens new ones inside each phase's window; with three, about 20 s a game at 66
    clients, none ended inside a phase; a full game lasts minutes."""
    return {"preset": "classic"} if hands is None else {"preset": "classic", "max_hands": hands}


#: The tables' move time unless ``--move-seconds`` says otherwise: docs/api.md's default.
MOVE_SECONDS = 60
#: A stream stays open for its whole phase; only its connecting is bounded.
STREAM_TIMEOUT = aiohttp.ClientTimeout(total=None, connect=60)


async def new_game(
    http: aiohttp.ClientSession, tokens: list[str], rules: Any, move_seconds: int
) -> int:
    options = {"rules": rules, "move_seconds": move_seconds}
    table, _, _ = await call(http, "POST", "/api/v1/tables", tokens[0], json=options)
    for token in tokens[1:]:
        path = f"/api/v1/tables/{table['id']}/join"
        table, _, _ = await call(http, "POST", path, token, json={})
    return int(table["game"])


async def loop_lag(samples: list[tuple[float, float]]) -> None:
    """How late the load generator's event loop wakes from 5 ms sleeps: (moment, lateness).

    The load generator shares the 2 cores with the server; while its loop is late, moves
    due are sent late and in a burst, and responses are read late: its lateness is in the
    latencies measured here but not the server's doing.
    """
    while True:
        asked = time.monotonic()
        await asyncio.sleep(0.005)
        now = time.monotonic()
        samples.append((now, now - asked - 0.005))


STALL_PROBE = """
import os, time
try:
    os.nice(-20)
except PermissionError:  # not root: at the default priority
    pass
while True:
    asked = time.monotonic()
    time.sleep(0.001)
    now = time.monotonic()
    if now - asked > 0.021:
        print(f"{asked:.4f} {now:.4f}", flush=True)
"""


class MachineStalls:
    """Moments when the machine ran nothing of ours: a process of its own, at the highest
    priority it may take, sleeps 1 ms at a time and reports each wake-up over 20 ms late.

    The same loop at ``nice -20`` saw no late wake-up on the idle machine, nor with both
    cores busy with pure computation (with or without fsyncs), but many in a run of this
    benchmark: the machine's other tenants. The monotonic clock is the machine's, shared
    with the probe.
    """

    def __enter__(self) -> MachineStalls:
        self.process = subprocess.Popen(
            [sys.executable, "-c", STALL_PROBE], stdout=subprocess.PIPE, text=True
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        output, _ = self.process.communicate()
        self.stalls = [tuple(map(float, line.split())) for line in output.splitlines()]

    def during(self, start: float, end: float) -> bool:
        return any(began < end and ended > start for began, ended in self.stalls)


async def play_games(
    http: aiohttp.ClientSession,
    base_url: str,
    tokens: list[str],
    seconds: float,
    poll: bool,
    move_seconds: int,
    rules: dict[str, Any],
    think: float = 0.0,
    window_opened: Callable[[], None] = _nothing,
) -> dict[str, Any]:
    """The clients play games for ``seconds``; tables start a new game when one ends.

    Throughput is counted over a window that opens when every table has dealt its first
    game: before that, the clients connect their streams and the tables are created and
    joined, a few requests in a row per table with no move possible yet, which a site whose
    tables play on does not have.
    Tables that start a next game inside the window count it. ``window_opened`` is called
    at that moment (the CPU meter reads there). Latencies are of every move.
    """
    latencies: list[float] = []
    server: list[float] = []
    moments: list[float] = []  # when each measured move was sent
    finished: defaultdict[int, asyncio.Event] = defaultdict(asyncio.Event)
    rejected = 0
    stop = time.monotonic() + seconds
    tables = [tokens[i : i + 3] for i in range(0, len(tokens) - len(tokens) % 3, 3)]
    first_deals = 0
    window_from: float | None = None

    async def seat(token: str, rng: random.Random) -> None:
        nonlocal rejected
        headers = {"Authorization": f"Token {token}"}
        acted_at: dict[int, int] = {}
        async with (
            own_client(base_url) as own,
            own.get("/api/v1/stream", headers=headers, timeout=STREAM_TIMEOUT) as stream,
        ):
            stream.raise_for_status()
            async for line in stream.content:
                if time.monotonic() > stop:
                    return
                if not line.strip():
                    continue
                message = orjson.loads(line)
                if message["type"] == "game_finish":
                    finished[message["game"]].set()
                if message["type"] != "your_turn":
                    continue
                game = message["game"]
                if message["version"] < acted_at.get(game, -1):
                    continue  # a turn this client already took from its last response
                view = message["view"]  # the line carries the seat's view: no GET needed
                while view["status"] == "playing" and view["your_seat"] in view["to_act"]:
                    if think:
                        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
                    began = time.monotonic()
                    try:
                        view, latency, in_server = await call(
                            own,
                            "POST",
                            f"/api/v1/games/{game}/actions",
                            token,
                            json={**choose(view, rng), "expected_version": view["version"]},
                        )
                    except aiohttp.ClientResponseError:
                        rejected += 1
                        break
                    latencies.append(latency)
                    server.append(in_server)
                    moments.append(began)
                    acted_at[game] = view["version"]

    async def table_runner(group: list[str], opens_after: float) -> None:
        nonlocal first_deals, window_from
        await asyncio.sleep(opens_after)
        while time.monotonic() < stop:
            game = await new_game(http, group, rules, move_seconds)
            if window_from is None:
                first_deals += 1
                if first_deals == len(tables):
                    window_from = time.monotonic()
                    window_opened()
            deadline = time.monotonic() + 600
            if not poll:
                wait = max(0.0, min(stop, deadline) - time.monotonic())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(finished[game].wait(), wait)
                continue
            while time.monotonic() < min(stop, deadline):
                state, _, _ = await call(http, "GET", f"/api/v1/games/{game}")
                if state["status"] == "finished":
                    break
                await asyncio.sleep(0.5)

    rng = random.Random(1)
    started = time.monotonic()
    lateness: list[tuple[float, float]] = []
    with MachineStalls() as machine:
        lag_meter = asyncio.create_task(loop_lag(lateness))
        seats = [asyncio.create_task(seat(t, random.Random(rng.random()))) for t in tokens]
        await asyncio.sleep(0.5)
        # Paced tables open at random moments over the first two think times: opened all in
        # the same instant, every table's creation and joins at once held every early move up.
        await asyncio.gather(*(table_runner(group, rng.uniform(0, 2 * think)) for group in tables))
        elapsed = time.monotonic() - started
        for task in [*seats, lag_meter]:
            task.cancel()
        await asyncio.gather(*seats, lag_meter, return_exceptions=True)
    # The opening (every table created, joined and dealt within 2 x think) is a burst a
    # site does not see; the moves sent from 2 x think + 3 s after the first show the
    # steady state (the opening's p99 is far above the steady one).
    steady_from = min(moments, default=0.0) + 2 * think + 3
    steady = [(lat, at) for lat, at in zip(latencies, moments, strict=True) if at >= steady_from]
    unstalled = [lat for lat, at in steady if not machine.during(at, at + lat)]
    stalls = [ended - began for began, ended in machine.stalls if ended >= steady_from]
    in_window = sum(1 for at in moments if window_from is not None and at >= window_from)
    window = (in_window, started + elapsed - window_from) if window_from is not None else None
    return {
        **figures(latencies, server, elapsed, window),
        "rejected": rejected,
        "steady_p99_ms": p99_ms([lat for lat, _ in steady]),
        "steady_count": len(steady),
        "steady_loop_late_ms": [late * 1000 for at, late in lateness if at >= steady_from],
        "unstalled_p99_ms": p99_ms(unstalled),
        "unstalled_count": len(unstalled),
        "stalls_ms": [stall * 1000 for stall in stalls],
    }


class _Player:
    """One seat-by-seat walk through a game by random legal actions (the long-game phase)."""

    def __init__(
        self, http: aiohttp.ClientSession, game: int, tokens: list[str], seed: int
    ) -> None:
        self.http, self.game, self.rng = http, game, random.Random(seed)
        self.tokens = tokens
        self.to_act: list[int] = []
        self.moves = 0

    async def start(self) -> None:
        view, _, _ = await call(self.http, "GET", f"/api/v1/games/{self.game}", self.tokens[0])
        self.to_act = view["to_act"]

    async def move(self) -> float:
        """Plays the next move; returns the latency of its POST alone."""
        (seat,) = self.to_act
        url, token = f"/api/v1/games/{self.game}", self.tokens[seat]
        view, _, _ = await call(self.http, "GET", url, token)
        action = choose(view, self.rng)
        view, latency, _ = await call(self.http, "POST", f"{url}/actions", token, json=action)
        if view["status"] != "playing":
            raise RuntimeError("a long game ended early; raise max_hands")
        self.to_act = view["to_act"]
        self.moves += 1
        return latency


async def long_game(
    http: aiohttp.ClientSession, tokens: list[str], moves: int, move_seconds: int
) -> dict[str, Any]:
    """Moves 0-20 of a new game and moves ``moves - 21`` .. ``moves - 1`` of a long one,
    measured alternately (one move of each in turn), so both samples see the same load:
    on a shared machine, measuring the two ends of one game 20 s apart compared the load
    of two moments more than the two moves."""
    rules = {"preset": "all-sixteen", "max_hands": 200}
    late = _Player(http, await new_game(http, tokens[:3], rules, move_seconds), tokens[:3], 3)
    await late.start()
    while late.moves < moves - 21:
        await late.move()
    early = _Player(http, await new_game(http, tokens[3:], rules, move_seconds), tokens[3:], 4)
    await early.start()
    early_ms: list[float] = []
    late_ms: list[float] = []
    for _ in range(21):
        early_ms.append(await early.move() * 1000)
        late_ms.append(await late.move() * 1000)
    return {"move_10_ms": statistics.median(early_ms), "move_1000_ms": statistics.median(late_ms)}


class CpuMeter:
    """CPU seconds spent by one server's side and by this load generator, per measured phase:
    what an operation costs the machine, a figure far steadier between runs than throughput
    on a shared machine.

    The parts: ``uvicorn``, the server's processes (its master and workers); ``postgres``,
    the backends of the server's own database (``pg_stat_activity`` gives their pids by
    ``datname``; autovacuum workers on that database included), so that another database's
    work (another server of a side-by-side run, other tenants' tests) is not counted;
    ``postgres-shared``, PostgreSQL's processes of no database (WAL writer, checkpointer,
    background writer, launchers), and ``redis-server``, one process for every Redis db:
    those two are shared, and counted whole for the phase running while they spent it (the
    phases of the two servers of a side-by-side run never overlap, but other tenants' work
    on the same PostgreSQL and Redis is in these two parts). Differences are taken process
    by process: a backend that starts in a phase counts all its CPU there, one that ends
    loses what it spent in the phase before it ended.
    """

    PARTS = ("uvicorn", "postgres", "postgres-shared", "redis-server")

    def __init__(self, server_pid: int, port: int, database: str) -> None:
        self.server_pid, self.port, self.database = server_pid, port, database
        self.catalog = psycopg.connect(
            "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
        )

    def pids(self) -> tuple[set[int], set[int]]:
        """(the backends of the server's database, PostgreSQL's processes of none)."""
        rows = self.catalog.execute(
            "SELECT pid, datname FROM pg_stat_activity WHERE datname = %s OR datname IS NULL",
            (self.database,),
        ).fetchall()
        return {pid for pid, name in rows if name}, {pid for pid, name in rows if not name}

    def read(self) -> dict[str, dict[int, float]]:
        """CPU seconds so far of each process of each server part, and of this load generator
        ("client")."""
        own_db, shared = self.pids()
        server = self.server_pid

        def part(pid: int, parent: int, command: str) -> str | None:
            if server in (pid, parent):
                return "uvicorn"
            if pid in own_db:
                return "postgres"
            if pid in shared:
                return "postgres-shared"
            return "redis-server" if command == "redis-server" else None

        found: dict[str, dict[int, float]] = {name: {} for name in self.PARTS}
        wanted: dict[int, str] = {}

        def include(pid: int, parent: int, command: str) -> bool:
            name = part(pid, parent, command)
            if name is not None:
                wanted[pid] = name
            return name is not None

        for pid, seconds in processes_cpu(include).items():
            found[wanted[pid]][pid] = seconds
        own = resource.getrusage(resource.RUSAGE_SELF)
        return {**found, "client": {0: own.ru_utime + own.ru_stime}}

    @staticmethod
    def spent(
        before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]
    ) -> dict[str, float]:
        """CPU seconds of each part between two readings, process by process."""
        return {
            part: sum(seconds - before[part].get(pid, 0.0) for pid, seconds in pids.items())
            for part, pids in after.items()
        }

    async def measure(self, phase: Callable[..., Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """Runs the phase and adds its CPU per operation in its window. ``phase`` is given
        the function to call when its window opens (where the CPU is read again)."""
        before = self.read()

        def window_opened() -> None:
            before.update(self.read())

        split: list[int] = []
        sampling = asyncio.get_running_loop().call_later(
            SPLIT_AFTER_SECONDS, lambda: split.extend(self.connections_by_worker())
        )
        result: dict[str, Any] = await phase(window_opened=window_opened)
        sampling.cancel()
        after = self.read()
        count = max(1, result["window_count"])
        spent = {part: s * 1000 / count for part, s in self.spent(before, after).items()}
        workers = self.workers()
        result["worker_cpu_s"] = sorted(
            (after["uvicorn"].get(pid, 0.0) - before["uvicorn"].get(pid, 0.0) for pid in workers),
            reverse=True,
        )
        result["worker_connections"] = split
        result["server_cpu_ms"] = sum(spent[part] for part in self.PARTS)
        result["server_parts_ms"] = {part: spent[part] for part in self.PARTS}
        result["client_cpu_ms"] = spent["client"]
        return result

    def workers(self) -> list[int]:
        """The pids of the server's worker processes (uvicorn's children but its
        multiprocessing resource tracker)."""

        def worker(pid: int, parent: int, _: str) -> bool:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as command:
                return parent == self.server_pid and b"resource_tracker" not in command.read()
            return False

        return sorted(processes_cpu(worker))

    def connections_by_worker(self) -> list[int]:
        """How many established TCP connections each worker holds, most first: uvicorn's
        workers share one listening socket, and which one accepts a connection is a race."""
        established = tcp_sockets(self.port, ESTABLISHED)
        counts = []
        for pid in self.workers():
            held = 0
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    with contextlib.suppress(OSError):
                        held += os.readlink(f"/proc/{pid}/fd/{fd}") in established
            counts.append(held)
        return sorted(counts, reverse=True)

    async def idle(self, seconds: float) -> dict[str, float]:
        """The server's CPU, in ms per second, by part, over ``seconds`` in which this load
        generator sends nothing: work a phase left running into the next one."""
        before = self.read()
        await asyncio.sleep(seconds)
        spent = self.spent(before, self.read())
        return {part: spent[part] * 1000 / seconds for part in self.PARTS}


class Server:
    """One server under load: its process, database, Redis db, clients and figures."""

    def __init__(self, label: str, code: Path, database: str, redis_db: int, workers: int) -> None:
        self.label, self.code, self.database = label, code, database
        self.redis_url = f"redis://127.0.0.1:6379/{redis_db}"
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": fresh_database(database),
            "REDIS_URL": self.redis_url,
            "DATA_DIR": str(ROOT / "var" / database),
            "RATE_LIMIT_PER_MINUTE": "1000000",
            "LOG_LEVEL": "WARNING",
        }
        self.process = start_server(env, self.port, workers, code, self.redis_url, database)
        try:
            self.cpu = CpuMeter(self.process.pid, self.port, database)
        except BaseException:
            stop(self.process)
            raise
        self.tokens: list[str] = []
        self.long_tokens: list[str] = []
        self.rounds: dict[str, list[dict[str, Any]]] = {"baseline": [], "games": []}
        self.states: list[dict[str, Any]] = []  # after each measured phase
        self.paced: dict[int, dict[str, Any]] = {}
        self.long: dict[str, float] | None = None

    def stop(self) -> None:
        self.cpu.catalog.close()
        stop(self.process)

    async def state(self, after: str, settle: float) -> dict[str, Any]:
        """What the server holds and does right after a phase: its CPU over ``settle``
        seconds of silence, the connections still open to it, its workers' memory, its
        database's and Redis db's sizes."""
        idle = await self.cpu.idle(settle)
        rss = 0
        for pid in processes_cpu(lambda pid, parent, _: self.process.pid in (pid, parent)):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
                rss += next(int(x.split()[1]) for x in status if x.startswith("VmRSS:"))
        import redis

        with redis.Redis.from_url(self.redis_url) as client:
            redis_keys = client.dbsize()
            redis_mb = int(client.info("memory")["used_memory"]) / 2**20
        rows = self.cpu.catalog.execute(
            "SELECT pg_database_size(%s), count(*) FILTER (WHERE state = 'active') "
            "FROM pg_stat_activity WHERE datname = %s",
            (self.database, self.database),
        ).fetchone()
        assert rows is not None
        return {
            "after": after,
            "idle_ms_per_s": idle,
            "connections": len(tcp_sockets(self.port, ESTABLISHED)),
            "rss_mb": rss / 1024,
            "database_mb": rows[0] / 2**20,
            "active_backends": rows[1],
            "redis_keys": redis_keys,
            "redis_mb": redis_mb,
        }


async def run(args: argparse.Namespace, servers: list[Server]) -> None:
    gc.disable()  # collected between phases (progress())
    async with contextlib.AsyncExitStack() as stack:
        sessions = {
            s.label: await stack.enter_async_context(own_client(s.base_url, args.clients * 2))
            for s in servers
        }
        games: dict[str, Callable[..., Awaitable[dict[str, Any]]]] = {}
        for s in servers:
            http = sessions[s.label]
            s.tokens = [await register(http, f"load{i}") for i in range(args.clients)]
            s.long_tokens = [await register(http, f"long{i}") for i in range(6)]
            games[s.label] = partial(
                play_games,
                http,
                s.base_url,
                s.tokens,
                seconds=args.seconds,
                poll=args.poll_games,
                move_seconds=args.move_seconds,
                rules=game_rules(args.hands),
            )
        # Unmeasured warm-up of both phases: the database pools fill, lazy imports and caches
        # settle (without the games' warm-up, the first games round was the slowest of three
        # in every run).
        warm_up = min(5.0, args.seconds)
        for s in servers:
            await baseline(s.base_url, s.tokens, warm_up)
            if not args.baseline_only:
                await games[s.label](seconds=warm_up)
            await s.cpu.idle(args.settle)

        def phase(kind: str, s: Server) -> Callable[..., Awaitable[dict[str, Any]]]:
            if kind == "baseline":
                return partial(baseline, s.base_url, s.tokens, args.seconds)
            return games[s.label]

        # The machine's speed drifts (other tenants): the phases alternate, so that each
        # round's ratios compare phases measured next to each other; two servers take turns
        # in each kind of phase, the first of them alternating from round to round.
        kinds = ("baseline",) if args.baseline_only else ("baseline", "games")
        for number in range(1, args.rounds + 1):
            order = servers if number % 2 else servers[::-1]
            for kind in kinds:
                for s in order:
                    progress(
                        f"{kind}, round {number}" + (f", {s.label}" if len(servers) > 1 else "")
                    )
                    s.rounds[kind].append(await s.cpu.measure(phase(kind, s)))
                    # Silence after each phase: it lets what the phase left running end
                    # before the next one, and shows whether anything did (Server.state).
                    s.states.append(await s.state(f"{kind} {number}", args.settle))
        if args.baseline_only:
            return
        for think in args.think_ms:
            for s in servers:
                progress(f"paced, think {think} ms" + (f", {s.label}" if len(servers) > 1 else ""))
                s.paced[think] = await games[s.label](think=think / 1000)
                await s.cpu.idle(args.settle)
        for s in servers:
            progress("long game" + (f", {s.label}" if len(servers) > 1 else ""))
            s.long = await long_game(sessions[s.label], s.long_tokens, 1010, args.move_seconds)


def progress(phase: str) -> None:
    """A line on stderr as each phase starts, for whoever attaches a profiler to the server.

    The load generator's own cycle collector runs only here, between phases (it is off
    from the start of the run): its passes paused this process mid-phase, and a pause
    delays the moves due and the responses read, in the server's figures.
    """
    gc.collect()
    print(f"{time.strftime('%H:%M:%S')} {phase}", file=sys.stderr, flush=True)


def server_line(result: dict[str, Any]) -> str:
    return (
        f"  of which in Django:                       p50 {result['server_p50_ms']:6.1f} ms   "
        f"p99 {result['server_p99_ms']:6.1f} ms   (Server-Timing)"
    )


def report(args: argparse.Namespace, s: Server) -> None:
    """The figures of one server."""
    log = (ROOT / "var" / f"{s.database}-uvicorn.log").read_text(errors="replace")
    if refused := log.count("too many clients"):
        # PostgreSQL's max_connections is shared with everything else on the machine: a pool
        # that cannot grow makes requests wait for a connection, which the rates then show.
        print(f"WARNING: PostgreSQL refused this server {refused} connection(s) (its log)")
    base = pooled(s.rounds["baseline"])
    print(
        f"baseline GET /me:        {base['per_second']:8.1f} req/s   "
        f"p50 {base['p50_ms']:6.1f} ms   p99 {base['p99_ms']:6.1f} ms"
    )
    print(server_line(base))
    parts = "; ".join(f"{p} {base['server_parts_ms'][p]:.2f}" for p in CpuMeter.PARTS)
    print(f"  server CPU per GET /me: {base['server_cpu_ms']:.2f} ms ({parts})")
    print(
        "  by round:              "
        + "; ".join(
            f"{r['per_second']:.0f} req/s, {r['server_cpu_ms']:.2f} ms "
            f"(load generator {r['client_cpu_ms']:.2f} ms; {split(r)})"
            for r in s.rounds["baseline"]
        )
    )
    if not args.baseline_only:
        report_games(s, base)
    print("after each phase (silence of --settle s: server CPU ms/s uvicorn/postgres/shared/redis,")
    print("  connections open to the server, uvicorn RSS, database size, Redis keys, memory):")
    for st in s.states:
        idle = "/".join(f"{st['idle_ms_per_s'][p]:.0f}" for p in CpuMeter.PARTS)
        print(
            f"  {st['after']:<11} idle {idle} ms/s; {st['connections']} connections, "
            f"{st['active_backends']} active backends; RSS {st['rss_mb']:.0f} MB; "
            f"database {st['database_mb']:.1f} MB; Redis db {st['redis_keys']} keys "
            f"(all dbs {st['redis_mb']:.1f} MB)"
        )


def split(phase: dict[str, Any]) -> str:
    """How a phase's work fell on the server's workers: connections each held 3 s in, and
    CPU seconds each spent."""
    connections = "/".join(str(n) for n in phase["worker_connections"])
    cpu = "/".join(f"{s:.1f}" for s in phase["worker_cpu_s"])
    return f"workers: {connections} connections, {cpu} s CPU"


def report_games(s: Server, base: dict[str, Any]) -> None:
    games = pooled(s.rounds["games"])
    print(
        f"moves POST /actions:     {games['per_second']:8.1f} moves/s "
        f"p50 {games['p50_ms']:6.1f} ms   p99 {games['p99_ms']:6.1f} ms   "
        f"({games['count']} moves, {games['rejected']} rejected)"
    )
    print(
        f"  moves/s from the moment every table had dealt; over the whole phases, openings "
        f"included: {games['whole_per_second']:.1f}"
    )
    print(server_line(games))
    ratio, whole_ratio = (games[k] / base["per_second"] for k in ("per_second", "whole_per_second"))
    # Three decimals and a verdict: rounded to two, 0.898 printed as a met "0.90".
    print(
        f"moves/s vs baseline:     {ratio:8.3f}  (target ≥ 0.90 in every round: "
        f"{'met' if ratio >= 0.9 else 'NOT met'} pooled; whole phases, openings "
        f"included: {whole_ratio:.3f})"
    )
    print(
        "  by round:              "
        + "; ".join(
            f"{m['per_second'] / b['per_second']:.2f} ({b['per_second']:.0f} req/s, "
            f"{m['per_second']:.0f} moves/s; whole phase "
            f"{m['whole_per_second'] / b['per_second']:.2f})"
            for b, m in zip(s.rounds["baseline"], s.rounds["games"], strict=True)
        )
    )
    print(
        f"CPU per operation:       GET /me {base['server_cpu_ms']:.1f} ms server + "
        f"{base['client_cpu_ms']:.1f} ms load generator; move {games['server_cpu_ms']:.1f} ms "
        f"+ {games['client_cpu_ms']:.1f} ms; server ratio "
        f"{base['server_cpu_ms'] / games['server_cpu_ms']:.2f}"
    )
    print(
        "  server CPU by part:    "
        + "; ".join(
            f"{part} {base['server_parts_ms'][part]:.2f} / {games['server_parts_ms'][part]:.2f} ms"
            for part in CpuMeter.PARTS
        )
        + "  (GET /me / move)"
    )
    print(
        "  server ratio by round: "
        + "; ".join(
            f"{b['server_cpu_ms'] / m['server_cpu_ms']:.3f}"
            for b, m in zip(s.rounds["baseline"], s.rounds["games"], strict=True)
        )
        + "  (CPU per GET /me ÷ per move: the rate ratio if both got the same CPU)"
    )
    print(
        "  move CPU by round:     "
        + "; ".join(f"{r['server_cpu_ms']:.2f} ms ({split(r)})" for r in s.rounds["games"])
    )
    for think, paced in s.paced.items():
        print(
            f"paced, think {think:4d} ms:  {paced['per_second']:8.1f} moves/s "
            f"p50 {paced['p50_ms']:6.1f} ms   p99 {paced['p99_ms']:6.1f} ms   "
            f"({paced['count']} moves, {paced['rejected']} rejected; target p99 ≤ 50 ms)"
        )
        print(
            f"  from {2 * think / 1000 + 3:.0f} s after the first move (steady state): "
            f"p99 {paced['steady_p99_ms']:6.1f} ms ({paced['steady_count']} moves)"
        )
        print(server_line(paced))
        stalls = paced["stalls_ms"]
        print(
            f"  machine stalls (steady state): {len(stalls)} over 20 ms, the longest "
            f"{max(stalls, default=0):.0f} ms; moves during none: p99 "
            f"{paced['unstalled_p99_ms']:6.1f} ms ({paced['unstalled_count']} moves)"
        )
        late = paced["steady_loop_late_ms"] or [float("nan")]
        print(
            "  load generator's event loop (steady state): late by "
            f"p99 {percentile(late, 0.99):5.1f} ms, at most {max(late):5.1f} ms  (5 ms sleeps)"
        )
    if s.long is not None:
        long = s.long
        print(
            f"long game: move 10 {long['move_10_ms']:.1f} ms, move 1000 "
            f"{long['move_1000_ms']:.1f} ms, ratio {long['move_1000_ms'] / long['move_10_ms']:.2f}"
            "  (target ≤ 1.20)"
        )


def compare(args: argparse.Namespace, a: Server, b: Server) -> None:
    """B against A: the CPU per GET /me, round by round and pooled, and the rates."""
    kinds = ("baseline",) if args.baseline_only else ("baseline", "games")
    names = {"baseline": "GET /me", "games": "move"}
    for kind in kinds:
        by_round = [
            rb["server_cpu_ms"] / ra["server_cpu_ms"]
            for ra, rb in zip(a.rounds[kind], b.rounds[kind], strict=True)
        ]
        rates = [
            rb["per_second"] / ra["per_second"]
            for ra, rb in zip(a.rounds[kind], b.rounds[kind], strict=True)
        ]
        pa, pb = pooled(a.rounds[kind]), pooled(b.rounds[kind])
        cpu_ratio = pb["server_cpu_ms"] / pa["server_cpu_ms"]
        print(
            f"B ÷ A, server CPU per {names[kind]}: pooled {cpu_ratio:.3f}"
            f"; by round {', '.join(f'{x:.3f}' for x in by_round)}"
            f"  (uvicorn alone: pooled "
            f"{pb['server_parts_ms']['uvicorn'] / pa['server_parts_ms']['uvicorn']:.3f})"
        )
        print(
            f"B ÷ A, {names[kind]} rate:           pooled {pb['per_second'] / pa['per_second']:.3f}"
            f"; by round {', '.join(f'{x:.3f}' for x in rates)}"
        )
    for think in a.paced:
        print(
            f"paced, think {think} ms, steady p99: A {a.paced[think]['steady_p99_ms']:.1f} ms, "
            f"B {b.paced[think]['steady_p99_ms']:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=66)
    parser.add_argument("--seconds", type=float, default=20.0, help="per phase and round")
    parser.add_argument(
        "--rounds", type=int, default=3, help="baseline and games phases, alternately"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--poll-games", action="store_true", help="tables poll GET /games/{id} for the end"
    )
    parser.add_argument(
        "--think-ms",
        type=lambda text: [int(t) for t in text.split(",") if t],
        default=[1000, 500],
        help="paced runs: each client thinks 0.5-1.5 x this long before a move (list)",
    )
    parser.add_argument(
        "--move-seconds", type=int, default=MOVE_SECONDS, help="the tables' move time"
    )
    parser.add_argument(
        "--hands", type=int, default=None, help="hands a game (default: full games)"
    )
    parser.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="serve another checkout of the platform (to compare versions, run by run)",
    )
    parser.add_argument("--database", default=DB_NAME, help="the benchmark's database (dropped)")
    parser.add_argument("--redis-db", type=int, default=REDIS_DB, help="its Redis db (flushed)")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="side by side: also serve this checkout (B) and alternate the phases with it",
    )
    parser.add_argument("--against-database", default=AGAINST_DB_NAME)
    parser.add_argument("--against-redis-db", type=int, default=AGAINST_REDIS_DB)
    parser.add_argument(
        "--baseline-only", action="store_true", help="rounds of GET /me alone, no games"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE_SECONDS,
        help="seconds of silence after each phase (its server's idle CPU is measured there)",
    )
    args = parser.parse_args()
    if args.against is not None and (
        args.against_database == args.database or args.against_redis_db == args.redis_db
    ):
        parser.error("the two servers need their own database and Redis db")

    servers: list[Server] = []
    started, cpu_before = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)
    try:
        servers.append(Server("A", args.code.resolve(), args.database, args.redis_db, args.workers))
        if args.against is not None:
            servers.append(
                Server(
                    "B",
                    args.against.resolve(),
                    args.against_database,
                    args.against_redis_db,
                    args.workers,
                )
            )
        asyncio.run(run(args, servers))
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        for s in servers:
            s.stop()

    client_cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (
        cpu_before.ru_utime + cpu_before.ru_stime
    )
    print(
        f"server: uvicorn --workers {args.workers}, PostgreSQL, Redis; {args.clients} clients; "
        f"tables {'poll their games' if args.poll_games else 'learn the end from the streams'}"
    )
    print(f"games: {'full games' if args.hands is None else f'{args.hands} hand(s)'} of classic")
    for s in servers:
        print(f"\n== {s.label}: {s.code} (database {s.database}, {s.redis_url})")
        report(args, s)
    if len(servers) == 2:
        print()
        compare(args, *servers)
    print(
        f"load generator CPU:      {client_cpu:.1f} s over {time.monotonic() - started:.1f} s "
        "(it shares the machine with the server)"
    )


if __name__ == "__main__":
    main()
