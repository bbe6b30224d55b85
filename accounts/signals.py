"""What the accounts app announces, after commit, for other apps to consume.

``accounts`` imports none of its consumers: config/wiring.py connects realtime delivery to
:data:`tokens_revoked`, so that the streams and long polls opened with a revoked token end.
Sent with ``send_robust``: the revocation is committed whatever a receiver does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.dispatch import Signal


@dataclass(frozen=True)
class TokensRevoked:
    """API tokens stopped working (revoked by their owner, a log-out, a session's end)."""

    token_ids: tuple[int, ...]


#: Sent with ``event=TokensRevoked(...)`` once the revocation is committed.
tokens_revoked = Signal()


def announce_revoked_on_commit(token_ids: Iterable[int]) -> None:
    """Send :data:`tokens_revoked` for ``token_ids`` once the surrounding transaction
    commits (at once outside one); nothing for none."""
    event = TokensRevoked(tuple(sorted(set(token_ids))))
    if event.token_ids:
        transaction.on_commit(lambda: tokens_revoked.send_robust(sender=None, event=event))
