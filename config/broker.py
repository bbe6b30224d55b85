"""The embedded default's Celery transport: kombu's filesystem transport, made safe for
several producers and quicker to stop.

- kombu writes a message file in place (create, then write), while a consumer takes any
  file whose name matches, without a lock: a worker could take a file still empty and die
  on it (seen once the web server, the worker and beat all produced). Here a message is
  written under a name no consumer matches and renamed into place, atomically.
- Celery's worker loop for polling transports waits in ``drain_events(timeout=2.0)`` and
  only notices a shutdown request between calls, so a stop (Ctrl-C on ``make run``)
  lingered for seconds, past honcho's 5 s grace before SIGKILL. Capping each wait keeps
  stops prompt; the messages are still polled every ``polling_interval``.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps

MAX_DRAIN_WAIT_SECONDS = 0.25


class Channel(filesystem.Channel):
    # kombu's filesystem channel names the base's ``message`` ``payload``, as here.
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        # Same final name as kombu (ordering by time, then the queue the consumer matches).
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        writing = os.path.join(self.data_folder_out, f"writing-{uuid.uuid4()}.partial")
        try:
            with open(writing, "wb") as f:
                f.write(dumps(payload).encode())
            os.replace(writing, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add message {name!r} to the queue folder") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        if timeout is not None:
            timeout = min(timeout, MAX_DRAIN_WAIT_SECONDS)
        return super().drain_events(connection, timeout=timeout, **kwargs)
