"""Streams and long polls end when the token they were opened with stops working.

A waiting client was let in by its token once, at the start; a token revoked meanwhile (by
its owner, a log-out, the end of a browser session) must not go on receiving what it could
see. So each waiting view keeps a :class:`TokenWatch`, asked before anything is sent:

* Revocation announces itself (``accounts.signals.tokens_revoked``, connected in
  config/wiring.py to :func:`wake_waiters_of_revoked_tokens`) with a wake-up on the token's
  channel (``hub.token_channel``), which every web process hears in service mode and the
  revoking process hears in the embedded default. A waiter registered with that channel as
  its alarm wakes and checks the token at once.
* A wake-up can be lost (Redis drops a message, or, in the embedded default, another
  process revoked): so the last check is trusted for at most :data:`TOKEN_RECHECK_SECONDS`,
  and nothing is sent on an older one. A waiter looks at least every ``recheck_seconds()``
  (0.2 s embedded, 5 s in service mode), so it ends by its next look at the latest.

A check is one small query; on the hot path (a line carried by a wake-up) the watch costs
a clock read, and at most one check a second.
"""

from __future__ import annotations

import time
from typing import Any

from accounts.auth import token_is_live
from accounts.models import Player
from accounts.signals import TokensRevoked
from api.asyncviews import in_thread
from realtime import hub

#: The longest a waiting client goes on sending on its token's last check.
TOKEN_RECHECK_SECONDS = 1.0


class TokenWatch:
    """Whether the token a waiting client was let in with still works (see the module)."""

    def __init__(self, caller: Player | None) -> None:
        credentials = caller.credentials if caller is not None else None
        self.token_id = credentials.token_id if credentials is not None else None
        self.checked_at = time.monotonic()  # the caller was authenticated just now

    @property
    def alarm(self) -> str | None:
        """The channel a revocation of the token wakes (None without a token)."""
        return hub.token_channel(self.token_id) if self.token_id is not None else None

    async def revoked(self, waiter: hub.Waiter) -> bool:
        """Whether the token no longer works: checked again after a wake-up on
        :attr:`alarm`, or when the last check is :data:`TOKEN_RECHECK_SECONDS` old."""
        if self.token_id is None:
            return False
        alarmed = waiter.take_alarm()
        started = time.monotonic()
        if not alarmed and started - self.checked_at < TOKEN_RECHECK_SECONDS:
            return False
        live = await in_thread(token_is_live)(self.token_id)
        self.checked_at = started
        return not live


def wake_waiters_of_revoked_tokens(sender: Any, *, event: TokensRevoked, **kwargs: Any) -> None:
    """``tokens_revoked`` (after commit): wake every waiter of these tokens, here and in the
    other web processes."""
    hub.publish_soon([hub.token_channel(token_id) for token_id in event.token_ids])
