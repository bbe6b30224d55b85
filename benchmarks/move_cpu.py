"""Where an accepted move's CPU goes, in-process: the ASGI app called directly, no HTTP load.

    .venv/bin/python benchmarks/move_cpu.py [--moves 200] [--rounds 3] [--profile]
                                            [--database sergeant_movecpu] [--redis-db 0]
                                            [--code DIR]

Service mode (PostgreSQL and Redis on 127.0.0.1), a fresh database (``--database``); no
Redis db is flushed: this run's stream wake-ups go on a channel of its own
(``REALTIME_CHANNEL``), its keys are its own tokens'. The process is set up as a web
worker is (``config.asgi``: startup objects frozen, the Redis subscription up), and plays
classic games through ``config.asgi.application``: registration, tables, moves and
streams are ASGI calls, as uvicorn makes them, without the network.

Measured, in rounds, each phase a block of ``--moves`` moves, the phases interleaved:

* ``me``: ``GET /api/v1/me`` (the issue's trivial request), one per move's slot;
* ``move, no stream``: a move of a game whose seats have no stream open (the ``POST``
  alone: the view, the service, the write, the publish);
* ``move + stream``: a move of a game whose three seats each read their
  ``GET /api/v1/stream``, as the load benchmark's clients do: the ``POST`` and the next
  seat's ``your_turn`` line delivered on its stream (the wake-up and what the stream does
  with it), as one operation, timed until the line has arrived and the background
  thread's publish has been sent.

For each: this process's CPU (``time.process_time``: every thread, so the request's thread,
the event loop, the background publish and the subscription's thread) per operation, and
the CPU of this run's PostgreSQL backends (``/proc``, by ``pg_stat_activity``). What each
seat needs to choose its action (a ``GET`` of the game) is done outside the timing.

``--code DIR``: run another checkout's code (``git worktree add /tmp/old <commit>``) on this
checkout's packages and harness; run the two alternately and compare their ratios to ``me``.

``--profile``: after the rounds, one more block of each move phase under cProfile, every
thread of the process profiled (the request's thread, the loop, the background thread);
the top functions by cumulative time are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import orjson  # noqa: E402
import psycopg  # noqa: E402
from api_load import choose  # noqa: E402
from common import BIN, fresh_database, processes_cpu  # noqa: E402


def setup(database: str, redis_db: int, code: Path) -> None:
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": fresh_database(database),
        "REDIS_URL": f"redis://127.0.0.1:6379/{redis_db}",
        "REALTIME_CHANNEL": f"sergeant-{database}-{os.getpid()}:changes",
        "DATA_DIR": f"/tmp/d-{database}",
        "RATE_LIMIT_PER_MINUTE": "100000000",
        "LOG_LEVEL": "WARNING",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECRET_KEY": "bench-only-secret-key-bench-only-secret-key",
        "DEBUG": "false",
        "DB_POOL_MAX_SIZE": "8",
    }
    os.environ.update(env)
    migrate = [str(BIN / "python"), "manage.py", "migrate", "-v0"]
    subprocess.run(migrate, cwd=code, env={**os.environ, "PYTHONPATH": str(code)}, check=True)
    sys.path.insert(0, str(code))


class Asgi:
    """ASGI calls to the app, as uvicorn makes them (a body in one message, then a
    disconnect once the response is out)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def scope(self, method: str, path: str, token: str | None, body: bytes) -> dict[str, Any]:
        headers = [(b"host", b"127.0.0.1"), (b"accept", b"application/json")]
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        if body:
            headers.append((b"content-type", b"application/json"))
            headers.append((b"content-length", str(len(body)).encode()))
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }

    async def call(
        self, method: str, path: str, token: str | None = None, json: Any = None
    ) -> tuple[int, Any]:
        body = orjson.dumps(json) if json is not None else b""
        done = asyncio.Event()
        sent = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    done.set()

        await self.app(self.scope(method, path, token, body), receive, send)
        done.set()
        data = b"".join(chunks)
        return status, orjson.loads(data) if data else None

    def stream(self, token: str, lines: asyncio.Queue[dict[str, Any]]) -> asyncio.Task[None]:
        """The caller's ``GET /api/v1/stream``, its lines put on ``lines`` as they come."""
        closed = asyncio.Event()
        sent = False
        pending = b""

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await closed.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal pending
            if message["type"] == "http.response.body":
                pending += message.get("body", b"")
                *whole, pending = pending.split(b"\n")
                for line in whole:
                    if line.strip():
                        lines.put_nowait(orjson.loads(line))

        scope = self.scope("GET", "/api/v1/stream", token, b"")
        return asyncio.get_running_loop().create_task(self.app(scope, receive, send))


class Table:
    """Three players at a classic game; with ``streams``, each reads its stream."""

    def __init__(self, asgi: Asgi, name: str, streams: bool, seed: int) -> None:
        self.asgi, self.name, self.streams = asgi, name, streams
        self.rng = random.Random(seed)
        self.tokens: list[str] = []
        self.queues: list[asyncio.Queue[dict[str, Any]]] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.game = 0

    async def open(self) -> None:
        for i in range(3):
            body = {"username": f"{self.name}{i}", "password": "bench-password-1"}
            status, account = await self.asgi.call("POST", "/api/v1/accounts/register", json=body)
            assert status == 201, (status, account)
            self.tokens.append(account["token"])
            self.queues.append(asyncio.Queue())
        if self.streams:
            self.tasks = [
                self.asgi.stream(t, q) for t, q in zip(self.tokens, self.queues, strict=True)
            ]
        await self.new_game()

    async def new_game(self) -> None:
        options = {"rules": {"preset": "classic"}, "move_seconds": 3600}
        status, table = await self.asgi.call("POST", "/api/v1/tables", self.tokens[0], options)
        assert status == 201, table
        for token in self.tokens[1:]:
            path = f"/api/v1/tables/{table['id']}/join"
            status, table = await self.asgi.call("POST", path, token, {})
            assert status == 200, table
        self.game = int(table["game"])
        for q in self.queues:  # game_start and the first your_turn come on the streams
            while not q.empty():
                q.get_nowait()

    async def next_action(self) -> tuple[int, dict[str, Any]]:
        """(the seat to act, its action), chosen from a GET of its view (not timed)."""
        status, view = await self.asgi.call("GET", f"/api/v1/games/{self.game}", self.tokens[0])
        assert status == 200, view
        if view["status"] != "playing":
            await self.new_game()
            return await self.next_action()
        (seat,) = view["to_act"]
        status, view = await self.asgi.call("GET", f"/api/v1/games/{self.game}", self.tokens[seat])
        return seat, {**choose(view, self.rng), "expected_version": view["version"]}

    async def move(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        path = f"/api/v1/games/{self.game}/actions"
        status, view = await self.asgi.call("POST", path, self.tokens[seat], action)
        assert status == 200, view
        if self.streams and view["status"] == "playing":
            (after,) = view["to_act"]
            while True:  # the next seat's your_turn line of this version
                line = await asyncio.wait_for(self.queues[after].get(), 10)
                if line["type"] == "your_turn" and line["version"] == view["version"]:
                    break
        return view

    def drain(self) -> None:
        for q in self.queues:
            while not q.empty():
                q.get_nowait()


async def sent_in_background() -> None:
    """Until the background thread has run what was queued (the move's publish)."""
    from core import background

    loop = asyncio.get_running_loop()
    done = loop.create_future()
    background.run_soon(lambda: loop.call_soon_threadsafe(done.set_result, None))
    await done


PUBLISHER = """
import sys, redis
client = redis.Redis.from_url(sys.argv[1])
for line in sys.stdin.buffer:
    client.publish(sys.argv[2], bytes.fromhex(line.decode()))
"""


class Publisher:
    """Another process publishing on the changes' channel (as the other web worker does): its
    CPU is not this process's."""

    def __init__(self, channel: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", PUBLISHER, os.environ["REDIS_URL"], channel],
            stdin=subprocess.PIPE,
        )

    def send(self, payload: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(payload.hex().encode() + b"\n")
        self.process.stdin.flush()


class PgCpu:
    """CPU seconds of the PostgreSQL backends of one database (by ``pg_stat_activity``)."""

    def __init__(self, database: str) -> None:
        self.database = database
        self.catalog = psycopg.connect(
            "host=127.0.0.1 user=postgres dbname=postgres", autocommit=True
        )

    def read(self) -> dict[int, float]:
        rows = self.catalog.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,)
        ).fetchall()
        pids = {pid for (pid,) in rows}
        return processes_cpu(lambda pid, _parent, _name: pid in pids)

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        return sum(s - before.get(pid, 0.0) for pid, s in after.items())


def threads_cpu() -> dict[str, float]:
    """CPU seconds so far of this process's threads, by kind (their names' first word: the
    event loop ``MainThread``, ``api-request`` (a sync view's), ``after-commit-sends`` (the
    background publish), ``pubsub-listener``, ``asyncio``/``ThreadPoolExecutor`` (the
    waiting views' looks); a thread that ended is not counted."""
    tick = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    found: dict[str, float] = {}
    for entry in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        name = names.get(int(entry), "other")
        kind = name.split("_")[0].split("-0")[0].rstrip("0123456789").rstrip("-_")
        found[kind] = found.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


THREADS: dict[str, dict[str, float]] = {}


async def block(
    count: int, prepare: Callable[[], Any], act: Callable[[Any], Any], pg: PgCpu
) -> tuple[float, float]:
    """(process CPU ms, PostgreSQL CPU ms) per operation over ``count`` operations; only
    ``act`` is timed (each after its own ``prepare``)."""
    cpu = 0.0
    pg_before = pg.read()
    pg_untimed = 0.0
    threads: dict[str, float] = {}
    for _ in range(count):
        p0 = pg.read()
        prepared = await prepare()
        p1 = pg.read()
        pg_untimed += PgCpu.spent(p0, p1)
        t0 = threads_cpu()
        started = time.process_time()
        await act(prepared)
        await sent_in_background()
        cpu += time.process_time() - started
        for kind, seconds in threads_cpu().items():
            threads[kind] = threads.get(kind, 0.0) + seconds - t0.get(kind, 0.0)
    pg_total = PgCpu.spent(pg_before, pg.read())
    block.threads = {k: v * 1000 / count for k, v in threads.items()}  # type: ignore[attr-defined]
    return cpu * 1000 / count, (pg_total - pg_untimed) * 1000 / count


class ThreadProfiles:
    """cProfile of a move's work in each thread it runs in: the event loop (around the
    timed call), the request's thread (a ``POST``'s sync work) and the background thread
    (the publish). A profile is enabled and disabled in its own thread."""

    def __init__(self) -> None:
        self.profiles: dict[int, cProfile.Profile] = {}
        self.on = False
        import config.asgi as asgi_module
        from core import background

        self.background, self.handler = background, asgi_module.application
        self.original_run, self.original_respond = background._run, self.handler._respond

        def run(work: Any) -> None:
            with self.here():
                self.original_run(work)

        def respond(request: Any, scope: Any) -> Any:
            if request.method != "POST":
                return self.original_respond(request, scope)
            with self.here():
                return self.original_respond(request, scope)

        background._run = run
        self.handler._respond = respond

    @contextlib.contextmanager
    def here(self) -> Iterator[None]:
        if not self.on:
            yield
            return
        profile = self.profiles.setdefault(
            threading.get_ident(), cProfile.Profile(time.thread_time)
        )
        profile.enable()
        try:
            yield
        finally:
            profile.disable()

    def close(self) -> pstats.Stats:
        self.background._run = self.original_run
        self.handler._respond = self.original_respond
        stats: pstats.Stats | None = None
        for profile in self.profiles.values():
            stats = pstats.Stats(profile) if stats is None else stats.add(profile)
        assert stats is not None
        return stats


async def run(args: argparse.Namespace) -> None:
    from asgiref.sync import sync_to_async

    import config.asgi
    from accounts.models import Player
    from games import game_cache
    from realtime import hub
    from realtime.stream import stream_line

    asgi = Asgi(config.asgi.application)
    with hub.listening(hub.player_channel(0)):
        assert await hub.wait_subscribed(10)
    pg = PgCpu(args.database)
    me = Table(asgi, "me", streams=False, seed=1)
    quiet = Table(asgi, "quiet", streams=False, seed=2)
    streamed = Table(asgi, "streamed", streams=True, seed=3)
    for table in (me, quiet, streamed):
        await table.open()
    await asyncio.sleep(0.5)
    streamed_players = await sync_to_async(
        lambda: [
            p.pk
            for p in Player.objects.filter(username__startswith="streamed").order_by("username")
        ]
    )()

    async def nothing() -> None:
        return None

    async def get_me(_: Any) -> None:
        status, _ = await asgi.call("GET", "/api/v1/me", me.tokens[0])
        assert status == 200

    def mover(table: Table) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        async def prepare() -> tuple[int, dict[str, Any]]:
            table.drain()
            return await table.next_action()

        async def act(prepared: tuple[int, dict[str, Any]]) -> None:
            await table.move(*prepared)

        return prepare, act

    def mover_without_kept_row(table: Table) -> tuple[Callable[[], Any], Callable[[Any], Any]]:
        prepare, act = mover(table)

        async def prepare_cold() -> Any:
            prepared = await prepare()
            game_cache.written_here.clear()  # as after the other worker's move
            return prepared

        return prepare_cold, act

    publisher = Publisher(hub.REDIS_CHANNEL)

    sample: dict[str, Any] = {}
    sample_line = b""

    @sync_to_async
    def new_message_id() -> int:
        # The line's message written as a move writes it (a stream that looks at the
        # database instead of taking the carried line finds it there), not timed.
        from realtime.models import PlayerMessage

        message = PlayerMessage.objects.create(
            player_id=streamed_players[0], type="your_turn", payload=sample["payload"]
        )
        return int(message.pk)

    async def take_sample_line() -> None:
        # A real your_turn line of seat 0 of the streamed table, as a move's wake-up carries it.
        nonlocal sample_line
        from realtime.models import PlayerMessage

        @sync_to_async
        def newest() -> bytes:
            message = PlayerMessage.objects.filter(type="your_turn").order_by("-id").first()
            assert message is not None
            sample["payload"] = message.payload
            return stream_line(message.type, message.payload)

        sample_line = await newest()

    async def hear(message_id: int) -> None:
        """A move's wake-up published by another process (the other worker): heard by the
        subscription, its line sent on seat 0's stream of the streamed table."""
        queue = streamed.queues[0]
        streamed.drain()
        channel = hub.player_channel(streamed_players[0])
        channels = [hub.game_channel(streamed.game), channel]
        wire = hub.wire_message(channels, {channel: [(message_id, sample_line)]}, "elsewhere")
        publisher.send(wire)
        await asyncio.wait_for(queue.get(), 10)

    phases: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "me": (nothing, get_me),
        "move, no stream": mover(quiet),
        "move + stream": mover(streamed),
        "move, row not kept": mover_without_kept_row(quiet),
        "line from elsewhere": (new_message_id, hear),
    }
    # Warm-up, unmeasured (the moves first: the sample line is a real move's).
    for name in ("move + stream", "move, no stream"):
        await block(20, *phases[name], pg)
    await take_sample_line()
    for prepare, act in phases.values():
        await block(max(20, args.moves // 5), prepare, act, pg)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in phases}
    for number in range(args.rounds):
        order = list(phases) if number % 2 == 0 else list(reversed(phases))
        for name in order:
            results[name].append(await block(args.moves, *phases[name], pg))
            for kind, ms in block.threads.items():  # type: ignore[attr-defined]
                THREADS.setdefault(name, {}).setdefault(kind, 0.0)
                THREADS[name][kind] += ms / args.rounds
        print(
            f"round {number + 1}: "
            + "; ".join(
                f"{n} {results[n][-1][0]:.2f} (+pg {results[n][-1][1]:.2f})" for n in phases
            ),
            flush=True,
        )
    print(
        f"\nms of CPU per operation, {args.rounds} rounds of {args.moves}"
        " (this process; +pg: its backends)"
    )
    for name, rows in results.items():
        own = [r[0] for r in rows]
        pgs = [r[1] for r in rows]
        print(
            f"  {name:18} {sum(own) / len(own):6.2f}  ({', '.join(f'{x:.2f}' for x in own)})"
            f"   +pg {sum(pgs) / len(pgs):5.2f}"
        )
    print("\n  by thread (ms a operation, /proc ticks of 10 ms: rough; the timed part only)")
    for name, kinds in THREADS.items():
        shown = ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]) if v >= 0.005
        )
        print(f"  {name:18} {shown}")
    for name in ("move, no stream", "move + stream", "move, row not kept"):
        ratios = [m[0] / b[0] for m, b in zip(results[name], results["me"], strict=True)]
        print(f"  {name} / me: {', '.join(f'{r:.2f}' for r in ratios)}")
    pairs = zip(results["move + stream"], results["move, no stream"], strict=True)
    delivery = ", ".join(f"{s[0] - q[0]:.2f}" for s, q in pairs)
    print(f"  a line's delivery (move + stream - move, no stream): {delivery}")

    if args.profile:
        for name in args.profile_phases.split(";"):
            prepare, act = phases[name]
            profiles = ThreadProfiles()
            for _ in range(args.moves):
                prepared = await prepare()
                profiles.on = True
                with profiles.here():
                    await act(prepared)
                    await sent_in_background()
                profiles.on = False
            out = io.StringIO()
            stats = profiles.close()
            stats.stream = out  # type: ignore[attr-defined]
            stats.sort_stats(args.sort).print_stats(args.profile_lines)
            print(f"\n=== profile: {name}, {args.moves} moves (thread CPU s over all) ===")
            print(out.getvalue())
    for table in (me, quiet, streamed):
        for task in table.tasks:
            task.cancel()
    publisher.process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--profile-lines", type=int, default=60)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument(
        "--profile-phases",
        default="move, no stream;move + stream",
        help="phases to profile, separated by ;",
    )
    parser.add_argument("--database", default="sergeant_movecpu")
    parser.add_argument("--redis-db", type=int, default=0)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code runs")
    args = parser.parse_args()
    setup(args.database, args.redis_db, args.code.resolve())
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
