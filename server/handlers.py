"""The platform's ASGI application (``config.asgi.application``), served by uvicorn so
that waiting clients hold no thread.

One handler (:class:`Handler`) serves every path, the API's and the pages', with
Django's one ``MIDDLEWARE``. A request to a sync view crosses to a kept thread once, for all
of Django's sync work; a request to an async view (the long polls and streams, which wait)
is served on the event loop and holds no thread, no request and no middleware while it
waits. Every response is timed (``Server-Timing: app;dur=<ms>``, :func:`timed`).
"""

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import queue
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import response_for_exception
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import Resolver404, ResolverMatch, get_resolver, set_script_prefix

from api.middleware import refusal
from server.gc_tuning import freeze_startup_objects
from server.head_limits import head_refusal, send_refusal

MAX_IDLE_REQUEST_THREADS = 64
T = TypeVar("T")


class RequestThread(concurrent.futures.Executor):
    """A thread that runs one request's sync work at a time, kept for the next request.

    An executor, with a cheaper crossing for the loop's own calls (:meth:`run`): a plain
    queue and ``call_soon_threadsafe`` rather than ``run_in_executor``'s concurrent future,
    semaphore and chained asyncio future (server/README.md has what it saves).

    A daemon thread: at the process's exit it is not waited for. uvicorn's graceful shutdown
    (``--timeout-graceful-shutdown``) waits for the requests in flight first; sync work still
    running after it (a write waiting for SQLite's lock, say) is abandoned, and its
    transaction rolled back by the database.
    """

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="api-request", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            call()
            # The call holds its request, its answer and their future until the next call
            # comes, which for an idle thread may be long: let them go now.
            del call

    def run(self, function: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """``function(*args)`` in this thread, in a copy of the caller's context, awaited on
        the caller's loop.

        What asgiref's ``sync_to_async`` does for a call with this executor, without what
        this path does not use: working the executor out, carrying context variables set in
        the thread back (nothing the sync views set is read after them), and the main loop
        noted for an ``async_to_sync`` in the thread (none is made there).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        context = contextvars.copy_context()

        # A closed loop (the process is ending) has no one left to tell: RuntimeError.
        def call() -> None:
            try:
                result = context.run(function, *args)
            except BaseException as error:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_settle, future, None, error)
            else:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_settle, future, result, None)

        self._calls.put(call)
        return future

    def submit(
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def call() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:
                future.set_exception(error)

        self._calls.put(call)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Let the thread end after the calls already sent (``cancel_futures`` is ignored)."""
        self._calls.put(None)
        if wait:
            self._thread.join()


async def send_until_disconnect(sending: Coroutine[Any, Any, None], receive: Any) -> None:
    """Await ``sending`` (a streaming response's) until it ends or the client leaves.

    After the request's body, the only message ``receive`` can give is ``http.disconnect``:
    its arrival cancels the sending, whose stream ends (the server's ``send`` would
    otherwise drop the stream's messages without a word until the stream's own end).
    """
    sender = asyncio.current_task()
    assert sender is not None
    sending_now = True

    def client_left(_: object) -> None:
        if sending_now:  # (a callback runs a step after the future is done)
            sender.cancel()

    left = asyncio.ensure_future(receive())
    left.add_done_callback(client_left)
    try:
        await sending
    except asyncio.CancelledError:
        if not left.done() or sender.uncancel():  # cancelled from elsewhere too
            raise
    finally:
        sending_now = False
        left.cancel()


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.cancelled():  # the request was cancelled while its thread worked
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]  # a T when there is no error


class Handler(ASGIHandler):
    """Django's ASGI handler for every path, with two changes: a request's sync work is done
    in one crossing to a kept thread, and the waiting views hold nothing while they wait.

    Django runs each request's sync code (the middleware, the view, the request signals'
    receivers) in a thread of its own: a ``ThreadSensitiveContext`` per request, whose
    executor, and so thread, is started for the request and joined after it, and whose
    database wrapper is built anew in every new thread; and it crosses to it once for each
    piece of that work, and once more for each sync-only hook of the middleware. Here a
    request to a sync view goes to a thread of a pool of :class:`RequestThread` that outlive
    the requests (the pool grows to the number of requests served at once and keeps up to
    ``MAX_IDLE_REQUEST_THREADS`` idle) once, for all of it, and the middleware runs there
    in Django's sync mode (:class:`SyncHandler`), as under WSGI.

    A request to an async view (a long poll, a stream) is served by :meth:`handle_waiting`.

    Every response carries ``Server-Timing: app;dur=<ms>``, the time from the request
    reaching Django to its response starting (thread hand-offs included): what a client
    measures beyond it was spent in the server's event loop, the network or the client.

    Django's own async middleware chain, which ``ASGIHandler`` builds, is not used.
    """

    def __init__(self) -> None:
        super().__init__()
        self._idle_executors: list[RequestThread] = []  # only touched on the loop
        self._sync_views = SyncHandler()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        refused = head_refusal(scope)
        if refused is not None:
            await send_refusal(send, *refused)
            return
        send_timed = timed(send)
        sync, match = sync_view_route(scope)
        if not sync:
            await self.handle_waiting(scope, receive, send_timed, match)
            return
        executor = self._idle_executors.pop() if self._idle_executors else RequestThread()
        # Not if the request was cancelled or failed: its thread may still be at work.
        idle_again = False
        try:
            await self.handle_sync(scope, receive, send_timed, match, executor)
            idle_again = True
        finally:
            if idle_again and len(self._idle_executors) < MAX_IDLE_REQUEST_THREADS:
                self._idle_executors.append(executor)
            else:  # after a burst (many streams at once), let the extra threads go
                executor.shutdown(wait=False)

    async def handle_waiting(
        self, scope: dict[str, Any], receive: Any, send: Any, match: ResolverMatch | None
    ) -> None:
        """A request to an async view (a long poll, a stream), which may wait long.

        It holds no thread: its database work crosses to a pooled thread
        (``api.asyncviews.in_thread``). It runs without the middleware, whose sync hooks
        would each cross to a thread, and whose sync-only members (WhiteNoise) would hold
        one for the whole wait: these views authenticate by themselves, and the API's guard
        (known host, bounded body, no NUL: ``api.middleware.refusal``) is applied here. And
        it holds little memory while it waits: the request is let go once the view has
        answered, and one task waits for the client to leave. No ``request_started`` (its
        receivers are for the database connections of the loop's thread, which these views
        never open); ``response.close()`` sends ``request_finished`` as Django does.
        """
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        request, response = self.create_request(scope, body_file)
        if request is not None:
            assert match is not None  # only a resolved path is routed here
            response = await waiting_view_response(request, match)
            del request
        body_file.close()
        del body_file
        if not response.streaming:
            try:
                await self.send_response(response, send)
            finally:
                await sync_to_async(response.close)()
            return
        # Closed before it streams: its closers (the request's) and the request with them
        # are let go now rather than when the stream ends. Its content still streams (the
        # stream's generator is closed by ``send_response``).
        await sync_to_async(response.close)()
        await send_until_disconnect(self.send_response(response, send), receive)

    async def handle_sync(
        self,
        scope: dict[str, Any],
        receive: Any,
        send: Any,
        match: ResolverMatch | None,
        executor: RequestThread,
    ) -> None:
        """A request to a sync view, its sync work done in ``executor``'s thread."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        request, response = self.create_request(scope, body_file)
        try:
            if request is not None:
                request.resolver_match = match
                response = await executor.run(self._respond, request, scope)
            await self.send_response(response, send)
            if response.streaming:  # its content was read just now, by send_response
                await executor.run(response.close)
        finally:
            body_file.close()

    def _respond(self, request: HttpRequest, scope: dict[str, Any]) -> HttpResponseBase:
        """Django's sync work for a request, in the request's thread (see the class)."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        response = self._sync_views.get_response(request)
        response._handler_class = self.__class__
        release_rest_framework_cycles(response)
        if not response.streaming:  # the content is all in memory: close before sending
            response.close()
        return response


async def waiting_view_response(request: HttpRequest, match: ResolverMatch) -> HttpResponseBase:
    """The async view's response to ``request``, past the API's guard; an exception becomes
    Django's response for it, as the middleware chain would make it."""
    try:
        refused = refusal(request)  # an unknown host raises DisallowedHost, as on the pages
        if refused is not None:
            return refused
        request.resolver_match = match
        response: HttpResponseBase = await match.func(request, *match.args, **match.kwargs)
    except Exception as error:
        response = await sync_to_async(response_for_exception, thread_sensitive=False)(
            request, error
        )
    return response


class SyncHandler(BaseHandler):
    """Django's middleware and views in its sync mode, for ``Handler._respond``; its
    requests come resolved already (``sync_view_route``)."""

    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        return request.resolver_match or super().resolve_request(request)


def timed(send: Any) -> Any:
    """``send`` that adds ``Server-Timing: app;dur=<ms>`` to the response's start: the time
    from now (the request reaching Django) to the response starting."""
    arrived = time.perf_counter()

    async def send_timed(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            spent_ms = (time.perf_counter() - arrived) * 1000
            timing = (b"server-timing", b"app;dur=%.1f" % spent_ms)
            message = {**message, "headers": [*message.get("headers", ()), timing]}
        await send(message)

    return send_timed


def release_rest_framework_cycles(response: HttpResponseBase) -> None:
    """Break the reference cycles a Django REST framework view leaves, once it has rendered.

    Its response's ``renderer_context`` holds the response, the view and the request; the
    view holds the request (and, with a ``get`` but no ``head``, its own bound ``get`` as
    ``head``), whose ``parser_context`` holds the view and the request. Left alone, each
    request's objects waited for the cycle collector, and its full passes over them were
    the slowest moves (see server/gc_tuning.py).
    """
    context = getattr(response, "renderer_context", None)
    if not context:
        return
    response.renderer_context = None
    if (view := context.get("view")) is not None:
        vars(view).clear()
    if (rest_request := context.get("request")) is not None:
        rest_request.parser_context.clear()


def sync_view_route(scope: dict[str, Any]) -> tuple[bool, ResolverMatch | None]:
    """(whether the request's view is sync, how its path resolves): a path that resolves to
    no view takes the sync path, unresolved, so that resolving it there raises Django's 404.
    The path is the one ``ASGIRequest`` resolves (``path_info``)."""
    return _route(settings.ROOT_URLCONF, scope["path"].removeprefix(get_script_prefix(scope)))


@functools.lru_cache(maxsize=4096)
def _route(urlconf: str, path: str) -> tuple[bool, ResolverMatch | None]:
    """Kept per path: resolving it on the loop was a noticeable part of the loop's work for
    a ``GET /me``. A match is only read: a view's arguments are unpacked from it, and no
    ``process_view`` of the middleware changes them."""
    try:
        match = get_resolver(urlconf).resolve(path)
    except Resolver404:
        return True, None
    return not iscoroutinefunction(match.func), match


def make_application() -> Handler:
    """The ASGI application, once Django is set up; what was loaded to build it is then
    hidden from the cycle collector (:func:`server.gc_tuning.freeze_startup_objects`)."""
    handler = Handler()
    freeze_startup_objects()
    return handler
