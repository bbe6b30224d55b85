"""A TCP proxy whose connections a test can cut, as a dropped network would.

A browser's offline mode stops new requests but leaves an open stream (EventSource) running;
a page that follows a game over a stream is cut off for real by going through this proxy and
cutting it: every open connection is closed and new ones are closed at once until restored.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.support import free_port


class CuttableProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", self.port)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        except asyncio.CancelledError:  # the proxy is closing: end quietly
            pass
        finally:
            for end in (writer, up_writer):
                self._writers.discard(end)
                end.close()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        writer.close()

    def cut(self) -> None:
        """Close every open connection, and each new one at once, until :meth:`restore`."""

        def cut_now() -> None:
            self._cut = True
            for writer in list(self._writers):
                writer.transport.abort()

        self._loop.call_soon_threadsafe(cut_now)

    def restore(self) -> None:
        self._loop.call_soon_threadsafe(setattr, self, "_cut", False)

    def close(self) -> None:
        async def shut() -> None:
            self._cut = True
            for writer in list(self._writers):
                writer.transport.abort()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(shut(), self._loop)
        self._thread.join(5)
