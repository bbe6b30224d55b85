"""Fixtures backed by real processes: a Celery worker on the suite's own database and queue."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F

from core.heartbeats import HEARTBEAT_KEY, MOVE_TIMER_KEY, heartbeat_store
from tests.support import (
    ROOT,
    VENV_BIN,
    celery_worker_command,
    clean_env,
    start_process,
    stop_process_group,
    wait_until,
)

# The browser fixtures (Playwright driving Debian's chromium) of the pages' tests.
pytest_plugins = ["tests.browser"]


def database_url_of_current_connection() -> str:
    """A DATABASE_URL for the database this test process uses (the test database)."""
    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def suite_process_env(django_db_blocker: Any) -> dict[str, str]:
    """The environment of a process that must share this suite's database, broker, cache."""
    with django_db_blocker.unblock():
        database_url = database_url_of_current_connection()
    env = clean_env(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATA_DIR=str(settings.DATA_DIR),
        DATABASE_URL=database_url,
        SECRET_KEY=settings.SECRET_KEY,
    )
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    return env


#: Test files that use none of the suite's database, Redis, worker or server: pure Python (the
#: engine, the bots' strategies, the rating model, seating and standings), or processes and
#: files of their own whose settings they choose (the settings, the migrations' upgrade),
#: or the code and docs as text (the apps' boundaries, the API reference, the benchmark's
#: report, the botmatch command's report): marked ``pure``. Each runs the same in either mode.
#: CI runs the suite in service mode and on the embedded default side by side; the service
#: run, the longer one, skips these (``-m "not pure"``), as the embedded run covers them.
PURE_TEST_FILES = {
    "test_api_reference.py",
    "test_app_boundaries.py",
    "test_benchmark_page_load.py",
    "test_bot_inference.py",
    "test_bot_random.py",
    "test_bot_strategies.py",
    "test_bot_strong_inference.py",
    "test_bot_strong_search.py",
    "test_botmatch.py",
    "test_league_table.py",
    "test_migrations_upgrade.py",
    "test_python_versions.py",
    "test_ratings_skill.py",
    "test_request_thread.py",
    "test_settings.py",
    "test_tournament_results.py",
    "test_tournament_seating.py",
    "test_tournament_standings.py",
}


#: CI's two runs split two heavy kinds of test between them, each kind run once: the pages'
#: tests in a browser (marked ``page``) on the embedded default, which ``make run`` serves,
#: and the API's fuzzing (marked ``fuzz``) in service mode, the deployment's. Each covers
#: what does not depend on the mode: a page is the same template and script over either
#: mode's API, and the schema the same; what does differ between the modes (the database,
#: the live channel's transport, the worker) is tested in both by the rest of the suite.
FUZZ_TEST_FILES = {"test_schemathesis.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent.name == "engine" or item.path.name in PURE_TEST_FILES:
            item.add_marker(pytest.mark.pure)
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.page)
        if item.path.name in FUZZ_TEST_FILES:
            item.add_marker(pytest.mark.fuzz)


class WorkerInfo:
    """A Celery worker of the suite: the suite's own (``name`` "worker", with the beat that
    runs the periodic tasks, and the move timer), or one a test starts beside or instead of it.

    Tests may :meth:`kill` the worker the hard way (SIGKILL, losing whatever it held) and
    :meth:`start` it again; ``pid`` is the current process's.
    """

    def __init__(self, env: dict[str, str], log_dir: Path, name: str = "worker") -> None:
        self.env = env
        self.hostname = f"test-{name}-{os.getpid()}@localhost"
        self.log_path = log_dir / f"celery-{name}.log"
        self.beat_log_path = log_dir / "celery-beat.log"
        self.timer_log_path = log_dir / "movetimer.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.timer: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        heartbeat_store().delete(HEARTBEAT_KEY)
        process = self.process = start_process(
            celery_worker_command(self.hostname),
            self.env,
            self.log_path,
            cwd=ROOT,
        )

        def ready() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"worker exited:\n{self.log_path.read_text()}")
            beat = heartbeat_store().get(HEARTBEAT_KEY)
            return bool(beat and beat["hostname"] == self.hostname)

        wait_until(ready, timeout=60, interval=0.1, what="the Celery worker to be ready")

    def start_beat(self) -> None:
        """Start beat (the periodic tasks) and the move timer, and wait for the timer's
        first look (GET /healthz checks it)."""
        self.beat = start_process(
            [
                str(VENV_BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                f"--schedule={self.log_path.parent / 'celerybeat-schedule'}",
            ],
            self.env,
            self.beat_log_path,
            cwd=ROOT,
        )
        self.start_timer()

    def start_timer(self) -> None:
        """Start the move timer (``manage.py movetimer``) and wait for its first look."""
        heartbeat_store().delete(MOVE_TIMER_KEY)
        timer = self.timer = start_process(
            [str(VENV_BIN / "python"), "manage.py", "movetimer"],
            self.env,
            self.timer_log_path,
            cwd=ROOT,
        )

        def looked() -> bool:
            if timer.poll() is not None:
                raise RuntimeError(f"the move timer exited:\n{self.timer_log_path.read_text()}")
            return heartbeat_store().get(MOVE_TIMER_KEY) is not None

        wait_until(looked, timeout=60, interval=0.1, what="the move timer's first look")

    def kill_timer(self) -> None:
        """SIGKILL the move timer (games/timekeeper.py)."""
        if self.timer is not None:
            stop_process_group(self.timer, signal.SIGKILL)

    def kill(self) -> None:
        """SIGKILL the worker: tasks it had taken are lost."""
        if self.process is not None:
            stop_process_group(self.process, signal.SIGKILL)

    def stop(self) -> None:
        for process in (self.process, self.beat, self.timer):
            if process is not None:
                stop_process_group(process)


@pytest.fixture(scope="session")
def celery_worker(django_db_setup: Any, django_db_blocker: Any) -> Iterator[WorkerInfo]:
    """A real ``celery worker`` process on the test database, the suite's broker and queue,
    with ``celery beat`` beside it for the periodic tasks, and the move timer."""
    from config.celery_app import app

    env = suite_process_env(django_db_blocker)
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        shutil.rmtree(settings.CELERY_FS_DIR / "in", ignore_errors=True)
        (settings.CELERY_FS_DIR / "in").mkdir(parents=True)
    else:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(settings.CELERY_TASK_DEFAULT_QUEUE)

    worker = WorkerInfo(env, settings.DATA_DIR / "logs")
    try:
        worker.start()
        worker.start_beat()
        yield worker
    finally:
        worker.stop()


@dataclass(frozen=True)
class LiveServer:
    url: str
    log_path: Path
    process: subprocess.Popen[bytes] | None = None


@pytest.fixture(scope="session")
def api_server(django_db_setup: Any, django_db_blocker: Any) -> Iterator[LiveServer]:
    """A real uvicorn (ASGI) server on the test database, the suite's cache and broker."""
    with serving_api(django_db_blocker, "uvicorn.log") as server:
        yield server


@contextlib.contextmanager
def serving_api(
    django_db_blocker: Any, log_name: str, *, behind_proxy: bool = False, **env: str
) -> Iterator[LiveServer]:
    """Serve the API with uvicorn on the test database, the suite's cache and broker, with
    ``env`` added to its environment: as platform/Procfile serves it, or as docker-compose.yml
    does behind nginx (``behind_proxy``)."""
    from tests.support import deployed_web_server, free_port

    port = free_port()
    log_path = settings.DATA_DIR / "logs" / log_name
    process = start_process(
        [
            *deployed_web_server(behind_proxy),
            *("--host", "127.0.0.1", "--port", str(port), "--no-access-log"),
        ],
        {**suite_process_env(django_db_blocker), **env},
        log_path,
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited:\n{log_path.read_text()}")
        import httpx

        return httpx.get(url + "/api/v1/schema/", timeout=10).status_code == 200

    try:
        wait_until(up, timeout=60, interval=0.1, what="uvicorn to serve")
        yield LiveServer(url=url, log_path=log_path, process=process)
    finally:
        stop_process_group(process)


# Request lines of httpx drown the output of a failing test.
logging.getLogger("httpx").setLevel(logging.WARNING)


@pytest.fixture(autouse=True)
def _games_at_rest_before_the_flush(
    request: pytest.FixtureRequest, _django_db_marker: None
) -> Iterator[None]:
    """After a transactional test, end the games still in play before the tables are emptied.

    The suite's worker (and its beat) outlive each test: house bots and the move
    timer would go on writing to those games while pytest-django's flush truncates the
    tables, and PostgreSQL then breaks the flush as a deadlock. Every writer leaves a
    finished game alone, and writes only if the game's version is still the one it read:
    this update bumps the version, so once it has committed (it waits for any writer
    holding the row) no change read before it can be written, and only a write already
    under way can still be running; the pause lets it finish.
    """
    yield
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not (marker.kwargs.get("transaction") or marker.args[:1] == (True,)):
        return
    from arena.models import Arena, ArenaEntry, ArenaGame
    from challenges.models import Challenge
    from games.models import Game
    from quickplay.models import Seek
    from tournaments.models import Tournament

    # The arena's seating (on the worker, and beat's sweep) would seat its bots again and
    # settle its games: its bots leave and its games count as settled first, under the
    # arenas' row locks, so a seating under way commits before.
    with transaction.atomic():
        list(Arena.objects.select_for_update())
        left = ArenaEntry.objects.filter(active=True).update(active=False)
        ArenaGame.objects.filter(settled=False).update(settled=True)

    # A running tournament's beat sweep would score rounds of the games ended here,
    # beat's quick-play matching would seat the open seeks, and its challenges sweep expire
    # the pending challenges.
    running = Tournament.objects.filter(status=Tournament.Status.RUNNING)
    stopped = running.update(status=Tournament.Status.FINISHED)
    stopped += Seek.objects.filter(status=Seek.Status.OPEN).update(status=Seek.Status.CANCELED)
    pending = Challenge.objects.filter(status=Challenge.Status.PENDING)
    stopped += pending.update(status=Challenge.Status.CANCELED)
    if (
        Game.objects.filter(status=Game.Status.PLAYING).update(
            status=Game.Status.FINISHED, version=F("version") + 1
        )
        or stopped
        or left
    ):
        time.sleep(0.3)
    # A rating the worker is still writing for a game the test ended holds its pools' rows
    # while it waits for others the flush would hold: waiting for those rows first lets it
    # commit before the flush starts, rather than PostgreSQL break one of the two.
    from ratings.models import RatingPool

    with transaction.atomic():
        list(RatingPool.objects.select_for_update().values_list("pk", flat=True))
