"""Streams and long polls end when the token they were opened with stops working, and every
web process forgets what it kept of a token that stopped working or changed.

A waiting client was let in by its token once, at the start; a token revoked meanwhile (by
its owner, a log-out, the end of a browser session, its account deactivated) must not go
on receiving what it could see. So each waiting view keeps a :class:`TokenWatch`, asked
before anything is sent:

* Revocation announces itself (``accounts.signals.tokens_revoked``, connected in
  config/wiring.py to :func:`wake_waiters_of_revoked_tokens`) with a wake-up on the token's
  channel (``hub.token_channel``), which every web process hears in service mode and the
  revoking process hears in the embedded default. A waiter registered with that channel as
  its alarm wakes and checks the token at once.
* A wake-up can be lost (Redis drops a message, or, in the embedded default, another
  process revoked): so the last check is trusted for at most :data:`TOKEN_RECHECK_SECONDS`,
  and nothing is sent on an older one. A waiter looks at least every ``recheck_seconds()``
  (0.2 s embedded, 5 s in service mode), so it ends by its next look at the latest.

The same wake-ups, heard from another process, drop the tokens' entries from this
process's cache of live tokens (accounts/token_cache.py: :func:`forget_tokens_changed_elsewhere`),
which is trusted only while they are heard (:func:`token_cache_is_current`). They are
published before the revoking request answers (not left to the background thread), so that
once a revocation has answered, the other web processes have been sent it.

A check is one small query; on the hot path (a line carried by a wake-up) the watch costs
a clock read, and at most one check a second.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from accounts.auth import token_is_live
from accounts.models import Player
from accounts.signals import TokensChanged, TokensRevoked
from accounts.token_cache import tokens
from api.asyncviews import in_thread
from core import redis_client
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
    """``tokens_revoked`` (after commit): wake every waiter of these tokens, and have every
    web process forget them, here and in the other web processes."""
    _publish_now([hub.token_channel(token_id) for token_id in event.token_ids])


def announce_changed_tokens(sender: Any, *, event: TokensChanged, **kwargs: Any) -> None:
    """``tokens_changed`` (after commit): the other web processes forget these tokens (their
    waiters, woken, find them still working)."""
    _publish_now([hub.token_channel(token_id) for token_id in event.token_ids])


def _publish_now(channels: list[str]) -> None:
    # In the request, unless Redis is known to be down (a publish would wait for nothing):
    # a revocation that has answered has then been sent to every process.
    if redis_client.unavailable():
        hub.publish_soon(channels)
    else:
        hub.publish(channels)


def forget_tokens_changed_elsewhere(channels: Iterable[str] | None) -> None:
    """A change another process made (``hub.on_changes_elsewhere``): forget the tokens it
    names; forget every token when wake-ups may have been missed (None)."""
    if channels is None:
        tokens.clear()
        return
    changed = [token for token in map(hub.token_of_channel, channels) if token is not None]
    if changed:
        tokens.forget(changed)


def token_cache_is_current() -> bool:
    """Whether this process's cache of live tokens may be trusted: every change another
    process announces reaches it (the subscription, started here if it is not yet)."""
    if hub.hears_changes_elsewhere():
        return True
    hub.start_hearing_changes_elsewhere()
    return False
