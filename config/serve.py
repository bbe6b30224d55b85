"""The web server: uvicorn, each of its worker processes on a listening socket of its own.

    python -m config.serve config.asgi:application [any of uvicorn's options]

It is the ``uvicorn`` command (the same options, ``UVICORN_*`` variables and
``WEB_CONCURRENCY``) but for one thing. With ``--workers N``, uvicorn binds one socket and
its workers share it: which worker accepts a connection is a race, and a worker that wakes
first takes every connection waiting at that moment. A burst of connections (every bot and
stream reconnecting after a restart, or a proxy opening its pool) then lands on one worker
while the other sits idle, and keeps it so for as long as the connections live: 66
connections opened at once fell 66/0 in 3 bursts of 30, 22 fell 22/0 in 8 of 30
(docs/decisions/0055). Here each worker binds its own socket with ``SO_REUSEPORT`` and
the kernel spreads the new connections over them by a hash of their addresses.

How, within uvicorn: its supervisor hands the socket of ``Config.bind_socket`` to every
worker it starts (and restarts) by pickling it into the new process. The socket bound here
holds the port, so that a port in use still fails at once, but never listens; pickled, it
becomes in each worker a new socket bound to the same address, which that worker's server
then listens on. One worker (the default), a Unix socket or ``--fd``: uvicorn's own way.

``SO_REUSEPORT`` lets any process of the same user bind the port too and take a share of
its connections: the server's user must not be shared with anything untrusted.
"""

from __future__ import annotations

import importlib
import socket
from typing import Any

from uvicorn.config import Config


def worker_listener(family: int, address: Any) -> socket.socket:
    """A socket of the port's reuse group, bound to ``address``: a worker's own listener
    (its server calls ``listen`` on it), or the supervisor's placeholder."""
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    return sock


class PortPlaceholder(socket.socket):
    """The supervisor's socket: pickled into a worker, a listener of the worker's own."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (worker_listener, (self.family, self.getsockname()))


class WorkerListenersConfig(Config):
    """uvicorn's configuration whose multi-process socket gives each worker its own."""

    def bind_socket(self) -> socket.socket:
        if self.uds is not None or self.fd is not None or not hasattr(socket, "SO_REUSEPORT"):
            return super().bind_socket()
        family = socket.AF_INET6 if self.host and ":" in self.host else socket.AF_INET
        placeholder = PortPlaceholder(family=family)
        placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        placeholder.bind((self.host, self.port))
        return placeholder


def main() -> None:
    # uvicorn's command builds its Config by the module's global name: the one change made
    # to it. (``uvicorn.main`` the attribute is the command; the module is in sys.modules.)
    uvicorn_main = importlib.import_module("uvicorn.main")
    uvicorn_main.Config = WorkerListenersConfig  # type: ignore[attr-defined]
    uvicorn_main.main()


if __name__ == "__main__":  # the workers, started by spawning, import this module again
    main()
