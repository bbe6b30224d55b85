"""The web server: uvicorn, each of its worker processes on a listening socket of its own.

    python -m server.serve config.asgi:application [any of uvicorn's options]

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
holds the port but never listens; pickled, it becomes in each worker a new socket bound to
the same address, which that worker's server then listens on. A port that another server
serves fails at start, as with uvicorn. One worker (the default), ``--reload``,
``--limit-max-requests``, a Unix socket, ``--fd`` or a system other than Linux: uvicorn's
own way (see ``bind_socket`` for why).

``SO_REUSEPORT`` lets any process of the same user bind the port too and take a share of
its connections: the server's user must not be shared with anything untrusted.
"""

from __future__ import annotations

import importlib
import logging
import socket
import sys
from typing import Any

from uvicorn.config import Config
from uvicorn.server import STARTUP_FAILURE

logger = logging.getLogger("uvicorn.error")


#: The supervisor's claim on its port, held for the process's life: a module global, so
#: that pickling the configuration into a worker does not carry it along.
_port_claims: list[socket.socket] = []


def reuse_port_socket(family: int, kind: type[socket.socket] = socket.socket) -> socket.socket:
    """An unbound socket that may join the port's reuse group."""
    sock = kind(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


def worker_listener(family: int, address: Any) -> socket.socket:
    """A worker's own socket of the port's reuse group, bound to ``address`` (its server
    calls ``listen`` on it)."""
    sock = reuse_port_socket(family)
    try:
        sock.bind(address)
    except OSError as exc:
        # uvicorn stops on a worker's STARTUP_FAILURE but starts again a worker that exits
        # otherwise: a port taken meanwhile would be tried twice a second forever.
        sock.close()
        logger.error(exc)
        sys.exit(STARTUP_FAILURE)
    return sock


class PortPlaceholder(socket.socket):
    """The supervisor's socket: pickled into a worker, a listener of the worker's own."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (worker_listener, (self.family, self.getsockname()))


class WorkerListenersConfig(Config):
    """uvicorn's configuration whose multi-process socket gives each worker its own."""

    def bind_socket(self) -> socket.socket:
        if (
            # Linux spreads a port's connections over its sockets; elsewhere the socket bound
            # last may get them all.
            sys.platform != "linux"
            or self.uds is not None
            or self.fd is not None
            # One process at a time: nothing to spread, and while it restarts the shared
            # socket keeps new connections queued where a socket of its own would refuse them.
            or self.should_reload
            # Workers that restart after N requests may all be down at once: the same.
            or self.limit_max_requests is not None
        ):
            return super().bind_socket()
        ipv6 = bool(self.host) and ":" in self.host
        family = socket.AF_INET6 if ipv6 else socket.AF_INET
        try:
            # SO_REUSEPORT would let a second server of the same user on this port join the
            # group and silently take half of its connections. A bind without it fails on a
            # port that any server listens on, as with uvicorn; a claim on the port's name
            # fails on one that another of these supervisors holds, its workers listening
            # yet or not (an abstract Unix socket: the kernel frees it with the process).
            with socket.socket(family=family) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((self.host, self.port))
                address = probe.getsockname()  # port 0: the port the system chose
            claim = socket.socket(socket.AF_UNIX)
            _port_claims.append(claim)
            claim.bind(f"\0sergeant-major web server {self.host}:{address[1]}")
            placeholder = reuse_port_socket(family, PortPlaceholder)
            placeholder.bind(address)
        except OSError as exc:  # as uvicorn's own: the error logged, the start failed
            logger.error(exc)
            sys.exit(STARTUP_FAILURE)
        logger.info(
            "Uvicorn running on %s://%s:%d (Press CTRL+C to quit), a listening socket a worker",
            "https" if self.is_ssl else "http",
            f"[{self.host}]" if ipv6 else self.host,
            address[1],
        )
        return placeholder


def main() -> None:
    # uvicorn's command builds its Config by the module's global name: the one change made
    # to it. (``uvicorn.main`` the attribute is the command; the module is in sys.modules.)
    uvicorn_main = importlib.import_module("uvicorn.main")
    uvicorn_main.Config = WorkerListenersConfig  # type: ignore[attr-defined]
    uvicorn_main.main()


if __name__ == "__main__":  # the workers, started by spawning, import this module again
    main()
