"""What the accounts app announces, after commit, for other apps to consume.

``accounts`` imports none of its consumers: config/wiring.py connects realtime delivery to
:data:`tokens_revoked` and :data:`tokens_changed`, so that the streams and long polls
opened with a token that stopped working end, and so that every web process forgets what
it kept of the tokens (accounts/token_cache.py; this process forgets them here, before
the signal). Sent with ``send_robust``: the change is committed whatever a receiver does.

Revocation through the services announces itself; so does any change saved through the
ORM (the admin's among them) to an account or a token (:func:`connect_model_changes`):
an account deactivated, a token edited or deleted, an account deleted with its tokens.
A bulk ``QuerySet.update()`` or SQL by hand announces nothing: it takes effect within
``settings.TOKEN_CACHE_SECONDS`` in the web processes (at once in the embedded default).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import Signal

from accounts.models import ApiToken, Player
from accounts.token_cache import bump_versions, tokens


@dataclass(frozen=True)
class TokensRevoked:
    """API tokens stopped working (revoked by their owner, a log-out, a session's end, their
    account deactivated, deleted)."""

    token_ids: tuple[int, ...]


@dataclass(frozen=True)
class TokensChanged:
    """API tokens that still work changed, or their account did (scopes, username...)."""

    token_ids: tuple[int, ...]


#: Sent with ``event=TokensRevoked(...)`` once the revocation is committed.
tokens_revoked = Signal()
#: Sent with ``event=TokensChanged(...)`` once the change is committed.
tokens_changed = Signal()


def announce_revoked_on_commit(token_ids: Iterable[int]) -> None:
    """Send :data:`tokens_revoked` for ``token_ids`` once the surrounding transaction
    commits (at once outside one); nothing for none."""
    event = TokensRevoked(tuple(sorted(set(token_ids))))
    if event.token_ids:
        transaction.on_commit(lambda: _announce(tokens_revoked, event))


def announce_changed_on_commit(token_ids: Iterable[int]) -> None:
    """Send :data:`tokens_changed` for ``token_ids`` once the surrounding transaction
    commits (at once outside one); nothing for none."""
    event = TokensChanged(tuple(sorted(set(token_ids))))
    if event.token_ids:
        transaction.on_commit(lambda: _announce(tokens_changed, event))


def _announce(signal: Signal, event: TokensRevoked | TokensChanged) -> None:
    tokens.forget(event.token_ids)
    bump_versions(event.token_ids)
    signal.send_robust(sender=None, event=event)


def _player_saved(sender: Any, *, instance: Player, created: bool, **kwargs: Any) -> None:
    if created or set(kwargs.get("update_fields") or ()) == {"last_login"}:
        return  # a new account has no token yet; a log-in changes nothing a token carries
    live = ApiToken.objects.filter(player_id=instance.pk, revoked_at__isnull=True)
    ids = list(live.values_list("pk", flat=True))
    if instance.is_active:
        announce_changed_on_commit(ids)
    else:
        announce_revoked_on_commit(ids)


def _token_saved(sender: Any, *, instance: ApiToken, created: bool, **kwargs: Any) -> None:
    if created or set(kwargs.get("update_fields") or ()) == {"last_used_at"}:
        return
    if instance.revoked_at is None:
        announce_changed_on_commit([instance.pk])
    else:
        announce_revoked_on_commit([instance.pk])


def _token_deleted(sender: Any, *, instance: ApiToken, **kwargs: Any) -> None:
    announce_revoked_on_commit([instance.pk])


def connect_model_changes() -> None:
    """Announce the changes saved through the ORM (called once, by the app's ``ready``)."""
    post_save.connect(_player_saved, sender=Player, dispatch_uid="accounts.player_saved")
    post_save.connect(_token_saved, sender=ApiToken, dispatch_uid="accounts.token_saved")
    post_delete.connect(_token_deleted, sender=ApiToken, dispatch_uid="accounts.token_deleted")
