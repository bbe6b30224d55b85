"""The embedded default's Celery transport: kombu's filesystem transport, quicker to stop.

Celery's worker loop for polling transports waits in ``drain_events(timeout=2.0)`` and only
notices a shutdown request between calls, so a stop (Ctrl-C on ``make run``) lingered for
seconds, past honcho's 5 s grace before SIGKILL. Capping each wait keeps stops prompt; the
messages are still polled every ``polling_interval``.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import filesystem

MAX_DRAIN_WAIT_SECONDS = 0.25


class Transport(filesystem.Transport):
    def drain_events(self, connection: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        if timeout is not None:
            timeout = min(timeout, MAX_DRAIN_WAIT_SECONDS)
        return super().drain_events(connection, timeout=timeout, **kwargs)
