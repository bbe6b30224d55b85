"""The Redis client of the hot paths (service mode: rate limits, token versions, pub/sub
publishes), and what the request paths do when Redis is down.

A client per thread, each holding one connection (redis-py's ``single_connection_client``):
the request threads are kept between requests (server/handlers.py), and so are their clients
and connections. A process-wide client pooling its connections costs more CPU a command
(taking a connection from the pool and giving it back is a large part of a command's client
work). A thread's client is closed with the thread. At most ``MAX_THREAD_CLIENTS`` threads
of a process hold one: past that (a process holding thousands of streams, each on a thread
of its own), threads share one pooled client, so that Redis connections and file
descriptors do not grow with the streams. (Django's cache objects are per thread too, but
made anew in every thread that asks, so they are not used on the hot paths.)

Redis is never the truth (the database is): a request that cannot reach it goes on without
it (:func:`unavailable`, :func:`went_down`). Its client waits at most
``REDIS_CONNECT_TIMEOUT`` to connect and ``REDIS_SOCKET_TIMEOUT`` for a reply and does not
retry, and after a failure the request paths leave Redis alone for ``DOWN_PAUSE_SECONDS``,
so a dead or unreachable Redis costs a request at most one short wait, not redis-py's
default of 5 s per try and ten tries.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from typing import Any

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

#: Threads that may hold a connection of their own (the request threads kept idle,
#: server/handlers.py's MAX_IDLE_REQUEST_THREADS, and as many at work).
MAX_THREAD_CLIENTS = 128

#: This thread's client (a :class:`_Held`).
_local = threading.local()
_lock = threading.Lock()
_thread_clients = 0  # held by threads of this process now
_pooled: dict[str, redis.Redis] = {}  # by URL: the client the threads past the limit share

#: After a failed call, the request paths skip Redis this long (then the next call tries).
DOWN_PAUSE_SECONDS = 1.0
#: A dependency's failure is logged at most once per this many seconds (not per request).
LOG_INTERVAL_SECONDS = 60.0


def client_options() -> dict[str, Any]:
    """Short waits and no retries: a caller that cannot reach Redis goes on without it."""
    return {
        "socket_connect_timeout": settings.REDIS_CONNECT_TIMEOUT,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), 0),
        "health_check_interval": 10,
    }


def shared_redis() -> redis.Redis:
    """This thread's client of ``settings.REDIS_URL`` (made anew should the setting change,
    or in a forked process, which must not use its parent's socket)."""
    held: _Held | None = getattr(_local, "held", None)
    if held is None or held.url != settings.REDIS_URL or held.pid != os.getpid():
        held = _local.held = _Held.make(settings.REDIS_URL)
    return held.client


class _Held:
    """A thread's client; when the thread ends (and this with it), the client's connection
    is closed and its place freed for another thread."""

    def __init__(self, client: redis.Redis, url: str, *, own: bool) -> None:
        self.client, self.url, self.pid, self.own = client, url, os.getpid(), own

    @classmethod
    def make(cls, url: str) -> _Held:
        global _thread_clients
        with _lock:
            own = _thread_clients < MAX_THREAD_CLIENTS
            if own:
                _thread_clients += 1
            elif url not in _pooled:
                _pooled[url] = redis.Redis.from_url(url, **client_options())  # connects later
        if not own:
            return cls(_pooled[url], url, own=False)
        try:
            client = redis.Redis.from_url(
                url,
                single_connection_client=True,  # connects now: may raise
                **{
                    **client_options(),
                    # The pool checks a connection before lending it; a kept one is not
                    # checked, so a connection Redis closed (a restart, an idle timeout) is
                    # found broken by the next command: that one is sent again, once, on a
                    # new connection. A timeout is not retried.
                    "retry": Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
                },
            )
        except BaseException:
            _release_place()
            raise
        return cls(client, url, own=True)

    def __del__(self) -> None:
        if not self.own or self.pid != os.getpid():  # a parent's: its socket is not ours
            return
        # Suppressed: closing a connection to a Redis that went away, or at the process's
        # exit, once this module's globals are gone.
        with contextlib.suppress(Exception):
            _release_place()
            self.client.close()


def _release_place() -> None:
    global _thread_clients
    with _lock:
        _thread_clients -= 1


def _forget_parents_clients() -> None:
    global _lock, _thread_clients
    _lock = threading.Lock()  # another thread of the parent may have held it
    _thread_clients = 0
    _pooled.clear()


os.register_at_fork(after_in_child=_forget_parents_clients)


class ThrottledLog:
    """Logs a recurring failure at most once per ``interval`` seconds, with how many were
    not logged meanwhile: an outage must not write a line per request."""

    def __init__(self, what: str, interval: float = LOG_INTERVAL_SECONDS) -> None:
        self.what = what
        self.interval = interval
        self._lock = threading.Lock()
        self._last = -float("inf")
        self._unlogged = 0

    def failed(self, error: BaseException) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._last < self.interval:
                self._unlogged += 1
                return
            self._last, unlogged, self._unlogged = now, self._unlogged, 0
        logger.warning(
            "%s: %s: %s (%d more failure(s) since the last report)",
            self.what,
            type(error).__name__,
            error,
            unlogged,
        )


_down_until = 0.0
_redis_failures = ThrottledLog("Redis unreachable; requests go on without it")


def unavailable() -> bool:
    """Whether a request path should skip Redis now (it failed less than
    ``DOWN_PAUSE_SECONDS`` ago)."""
    return time.monotonic() < _down_until


def went_down(error: BaseException) -> None:
    """Record that a call failed: skip Redis for a while, and log it (throttled)."""
    global _down_until
    _down_until = time.monotonic() + DOWN_PAUSE_SECONDS
    _redis_failures.failed(error)
