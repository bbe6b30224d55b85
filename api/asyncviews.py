"""For the async views (the waiting ones): database work off the event loop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from core.errors import DATABASE_DOWN, DomainError, database_unavailable

P = ParamSpec("P")
R = TypeVar("R")


def in_thread(function: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run ``function`` off the event loop, then hand its connection back (a long wait must
    not pin a database connection between looks).

    In a thread of the loop's pool, not in the one thread that runs every sync view of the
    process (``thread_sensitive``): a stream's look after a wake-up need not queue behind
    the moves, and the moves not behind it. Each look opens and hands back its own
    connection (from the pool), so no connection is shared between threads.

    A database that cannot be reached comes back as ``Unavailable`` (a 503). A
    ``DomainError`` comes back as a value and is raised again here, without the thread's
    frames: raised through asgiref's futures, its traceback held their frames, which held
    it, a cycle that kept the request (a 404 of a long poll, say) alive until the cycle
    collector's next full pass.
    """

    def run(*args: P.args, **kwargs: P.kwargs) -> tuple[R | None, DomainError | None]:
        try:
            return function(*args, **kwargs), None
        except DomainError as error:
            return None, error.with_traceback(None)
        except DATABASE_DOWN:  # 503 with Retry-After, not a 500
            return None, database_unavailable()
        finally:
            close_old_connections()

    in_thread = sync_to_async(run, thread_sensitive=False)

    @wraps(function)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        result, error = await in_thread(*args, **kwargs)
        if error is None:
            return result  # type: ignore[return-value]  # None only with an error
        try:
            raise error
        finally:
            del error  # a frame of the error's own traceback must not hold it (a cycle)

    return call
