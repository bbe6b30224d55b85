"""Sends that a request should not wait for, run by one daemon thread per process.

After a move commits, the wake-ups of waiting clients (a Redis publish) used to run in the
request's thread; under ASGI every sync view of a process runs in one thread, so each of
them delayed every other request of that process. A wake-up is best effort already: a lost
one costs a waiter one re-look (at most ``SERVICE_MODE_RECHECK_SECONDS`` later). Work still
queued when the process exits normally is run by an ``atexit`` hook.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

_queue: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
_lock = threading.Lock()
_thread: threading.Thread | None = None
_thread_pid = 0


def run_soon(work: Callable[[], None]) -> None:
    """Run ``work`` on the background thread, in submission order; errors are logged."""
    _ensure_thread()
    _queue.put(work)


def _ensure_thread() -> None:
    global _thread, _thread_pid
    # A forked process (Celery's prefork pool) inherits the object but not the thread.
    if _thread is not None and _thread_pid == os.getpid() and _thread.is_alive():
        return
    with _lock:
        if _thread is None or _thread_pid != os.getpid() or not _thread.is_alive():
            _thread = threading.Thread(target=_run_forever, name="after-commit-sends", daemon=True)
            _thread_pid = os.getpid()
            _thread.start()


#: A send slower than this is logged: every wake-up queued behind it waits as long.
SLOW_SECONDS = 1.0


def _run(work: Callable[[], None]) -> None:
    started = time.perf_counter()
    try:
        work()
    except Exception:
        logger.exception("background send %s failed", _name(work))
    spent = time.perf_counter() - started
    if spent > SLOW_SECONDS:
        logger.warning("background send %s took %.1f s", _name(work), spent)


def _name(work: Callable[[], None]) -> str:
    """The work's function name only: its arguments may hold stream lines (a seat's cards)."""
    function = getattr(work, "func", work)
    return str(getattr(function, "__qualname__", type(function).__name__))


def _run_forever() -> None:
    while True:
        _run(_queue.get())


@atexit.register
def drain() -> None:
    """Run whatever is still queued (in the calling thread)."""
    while True:
        try:
            work = _queue.get_nowait()
        except queue.Empty:
            return
        _run(work)
