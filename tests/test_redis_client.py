"""The hot paths' Redis client (core/redis_client.py): a connection per thread, at most
``MAX_THREAD_CLIENTS`` of them, that survives Redis closing it and is never a parent's."""

from __future__ import annotations

import multiprocessing
import threading
from typing import Any

import pytest
import redis
from django.conf import settings

from core import redis_client

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="only service mode uses Redis")


def in_thread(work: Any) -> Any:
    """``work()`` in a new thread that ends after it; its result."""
    results = []
    thread = threading.Thread(target=lambda: results.append(work()))
    thread.start()
    thread.join()
    return results[0]


def test_it_gives_each_thread_a_connection_of_its_own() -> None:
    mine = redis_client.shared_redis().client_id()

    assert redis_client.shared_redis().client_id() == mine  # kept
    assert in_thread(lambda: redis_client.shared_redis().client_id()) != mine


def test_it_sends_a_command_again_when_redis_closed_the_threads_connection() -> None:
    client = redis_client.shared_redis()
    killer = redis.Redis.from_url(settings.REDIS_URL)
    killer.client_kill_filter(_id=client.client_id())

    assert client.ping() is True
    killer.close()


def test_it_lets_threads_past_the_limit_share_one_pooled_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_client, "_thread_clients", 0)
    monkeypatch.setattr(redis_client, "MAX_THREAD_CLIENTS", 2)
    release = threading.Event()
    clients: list[Any] = []

    def hold() -> None:
        clients.append(redis_client.shared_redis())
        release.wait(10)

    threads = [threading.Thread(target=hold) for _ in range(4)]
    for thread in threads:
        thread.start()
    while len(clients) < 4:
        threading.Event().wait(0.01)
    try:
        single = [client for client in clients if client.connection is not None]
        pooled = [client for client in clients if client.connection is None]
        assert len(single) == 2
        assert len(pooled) == 2 and pooled[0] is pooled[1]
        assert all(client.ping() for client in clients)
    finally:
        release.set()
        for thread in threads:
            thread.join()
    clients.clear()
    # The threads that held a connection have ended: their places are free again.
    assert redis_client._thread_clients == 0


def name_in_child(queue: Any) -> None:
    queue.put(redis_client.shared_redis().client_getname())


def test_a_forked_process_does_not_use_its_parents_connection() -> None:
    redis_client.shared_redis().client_setname("the-parent")
    fork = multiprocessing.get_context("fork")
    names = fork.Queue()
    child = fork.Process(target=name_in_child, args=(names,))
    child.start()
    child.join(30)

    assert names.get(timeout=5) is None  # a connection of its own, not named
    assert redis_client.shared_redis().client_getname() == "the-parent"
