"""The hot paths' Redis client (core/redis_client.py): one a process, its connections in
redis-py's pool, which survives Redis closing one and never lends a parent's to a child."""

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


def test_it_shares_one_client_whose_pool_lends_a_connection_to_each_thread_at_once() -> None:
    client = redis_client.shared_redis()
    release = threading.Event()
    ids: list[int] = []

    def hold_a_connection() -> None:
        connection = client.connection_pool.get_connection()
        try:
            connection.send_command("CLIENT", "ID")
            ids.append(connection.read_response())
            release.wait(10)
        finally:
            client.connection_pool.release(connection)

    threads = [threading.Thread(target=hold_a_connection) for _ in range(3)]
    for thread in threads:
        thread.start()
    while len(ids) < 3:
        threading.Event().wait(0.01)
    release.set()
    for thread in threads:
        thread.join()

    assert in_thread(redis_client.shared_redis) is client
    assert len(set(ids)) == 3  # a connection each while they overlapped
    assert client.ping() is True  # and kept in the pool for the next command


def test_it_sends_the_next_command_on_a_new_connection_when_redis_closed_the_kept_one() -> None:
    client = redis_client.shared_redis()
    killer = redis.Redis.from_url(settings.REDIS_URL)
    killer.client_kill_filter(_id=client.client_id())

    assert client.ping() is True
    killer.close()


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
