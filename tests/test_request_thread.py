"""The thread a request's sync work runs on (config.asgi.RequestThread): answers come back to
the loop, errors too, and a finished request's objects are not kept by an idle thread."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from server.handlers import RequestThread


class Thing:
    """An object a weak reference can follow."""


def test_it_answers_on_the_loop_in_its_own_thread() -> None:
    thread = RequestThread()

    async def ask() -> tuple[int, str]:
        import threading

        return await thread.run(lambda x: (x * 2, threading.current_thread().name), 21)

    assert asyncio.run(ask()) == (42, "api-request")
    thread.shutdown()


def test_it_raises_the_calls_error_on_the_loop() -> None:
    thread = RequestThread()

    def fail() -> None:
        raise LookupError("nothing here")

    async def ask() -> None:
        await thread.run(fail)

    with pytest.raises(LookupError, match="nothing here"):
        asyncio.run(ask())
    assert asyncio.run(_answer(thread)) == "still working"
    thread.shutdown()


async def _answer(thread: RequestThread) -> str:
    return await thread.run(lambda: "still working")


def test_it_lets_go_of_a_finished_requests_objects_while_idle() -> None:
    thread = RequestThread()
    gc.disable()  # only reference counts may free them here
    try:
        request = Thing()
        asked = weakref.ref(request)

        async def ask(argument: Thing) -> weakref.ref[Thing]:
            return weakref.ref(await thread.run(lambda _: Thing(), argument))

        answer = asyncio.run(ask(request))
        del request
        deadline = time.monotonic() + 2
        while (asked() is not None or answer() is not None) and time.monotonic() < deadline:
            time.sleep(0.01)

        assert asked() is None
        assert answer() is None
    finally:
        gc.enable()
        thread.shutdown()


def test_it_runs_asgirefs_calls_as_the_executor_of_a_thread_sensitive_context() -> None:
    thread = RequestThread()

    async def ask() -> str:
        import threading

        async with ThreadSensitiveContext(executor=thread):
            return await sync_to_async(lambda: threading.current_thread().name)()

    assert asyncio.run(ask()) == "api-request"
    thread.shutdown()
