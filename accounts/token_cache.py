"""The live tokens this web process authenticated lately, so that a request skips their query.

Every API request looked its token up (one joined query, a large part of a ``GET /me``'s
CPU). Here a web process keeps each token it found live with its account, keyed by the
key's hash, and trusts the entry only while no change to either can have gone unheard:

* every change that makes a token stop working or changes what an entry holds (revocation,
  log-out, rotation, an account deactivated or edited, a token or an account deleted) is
  announced after commit (``accounts.signals``) and forgotten here at once; the other web
  processes hear it over Redis (realtime.revocation) and forget it too;
* entries are used only while this process's Redis subscription is up
  (:attr:`TokenCache.is_current`, set by config/wiring.py), and all are dropped when it
  (re)subscribes, since announcements may have been missed in between. Without Redis (the
  embedded default) nothing is kept: the worker's and ``manage.py``'s changes would go
  unheard there;
* a wake-up over Redis reaches another process a little after the change's answer; so
  that a request sent after that answer is refused in every process at once, each change
  also moves the token's version in Redis on before answering (:func:`bump_versions`),
  and an entry is used only while the version is still the one it was read under (one
  ``GET`` a request, in the rate limit's round trip: :func:`accounts.ratelimit.count_ahead`);
* a lookup that started before a change was forgotten does not keep what it read (the
  generation it started at has passed: :meth:`TokenCache.put`);
* an entry is used for ``settings.TOKEN_CACHE_SECONDS`` (1 s) at most, then looked up again: what no
  announcement covers (a change made in SQL by hand, an announcement lost because the
  revoking process could not reach Redis) takes effect within that.

Nothing is kept from inside a transaction: a row read there may never be committed.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from accounts.models import ApiToken, Credentials, Player
from core import redis_client

#: Tokens kept at most (the least recently used go first): an entry is about 2 KB.
MAX_TOKENS = 4096


@dataclass
class Entry:
    """A live token's row and its account's, as loaded (rebuilt into fresh instances for
    each request, which may change them)."""

    token_id: int
    token_values: list[Any]
    player_values: list[Any]
    expires: float  # time.monotonic()
    last_used_due: float  # time.monotonic() at which last_used_at is written again
    version: bytes | None  # the token's version in Redis when it was read (see versions)

    @classmethod
    def of(cls, token: ApiToken, *, last_used_due: float, version: bytes | None) -> Entry:
        return cls(
            token.pk,
            _values(token),
            _values(token.player),
            time.monotonic() + settings.TOKEN_CACHE_SECONDS,
            last_used_due,
            version,
        )

    def token(self) -> ApiToken:
        """Fresh instances of the token and its player, as :func:`accounts.auth.token_for_key`
        returns them."""
        token = ApiToken.from_db(connection.alias, _attnames(ApiToken), list(self.token_values))
        player = Player.from_db(connection.alias, _attnames(Player), list(self.player_values))
        token.player = player
        player.credentials = Credentials(token.pk, frozenset(token.scopes))
        return token


_attnames_of: dict[type[Any], list[str]] = {}


def _attnames(model: type[ApiToken] | type[Player]) -> list[str]:
    names = _attnames_of.get(model)
    if names is None:
        names = _attnames_of[model] = [field.attname for field in model._meta.concrete_fields]
    return names


def _values(instance: ApiToken | Player) -> list[Any]:
    values = [getattr(instance, name) for name in _attnames(type(instance))]
    # The one mutable field: a list, copied so that no request changes another's.
    return [list(value) if isinstance(value, list) else value for value in values]


class TokenCache:
    def __init__(self) -> None:
        #: Whether every announcement made by another process reaches this one now.
        self.is_current: Callable[[], bool] = lambda: False
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self._key_of: dict[int, str] = {}  # token id -> its key's hash
        self._generation = 0

    @property
    def generation(self) -> int:
        """Taken before a lookup and given back to :meth:`put`: it moves on whenever
        something is forgotten."""
        return self._generation

    def get(self, key_hash: str) -> Entry | None:
        if not self.is_current():
            return None
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is None:
                return None
            if entry.expires <= time.monotonic():
                self._drop(key_hash)
                return None
            self._entries.move_to_end(key_hash)
            return entry

    def put(self, key_hash: str, entry: Entry, generation: int) -> None:
        """Keep ``entry``, read since :attr:`generation` was ``generation``, unless something
        was forgotten meanwhile (it may be what was read) or it may never be committed."""
        if connection.in_atomic_block or not self.is_current():
            return
        with self._lock:
            if generation != self._generation:
                return
            self._entries[key_hash] = entry
            self._entries.move_to_end(key_hash)
            self._key_of[entry.token_id] = key_hash
            while len(self._entries) > MAX_TOKENS:
                self._drop(next(iter(self._entries)))

    def forget(self, token_ids: Iterable[int]) -> None:
        """Drop these tokens' entries (they stopped working or changed)."""
        with self._lock:
            self._generation += 1
            for token_id in token_ids:
                key_hash = self._key_of.get(token_id)
                if key_hash is not None:
                    self._drop(key_hash)

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()
            self._key_of.clear()

    def _drop(self, key_hash: str) -> None:
        entry = self._entries.pop(key_hash)
        self._key_of.pop(entry.token_id, None)

    def __len__(self) -> int:
        return len(self._entries)


#: This process's live tokens (used by accounts.auth).
tokens = TokenCache()


class Unknown:
    """Redis could not be asked: nothing kept may be trusted, nothing read may be kept."""


UNKNOWN = Unknown()
#: A version outlives every entry read under it by far (entries live TOKEN_CACHE_SECONDS),
#: so a key that expired and starts again at 1 cannot match an entry read before.
VERSION_SECONDS = 86400


def version_key(token_id: int) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:token-version:{token_id}"


def version_of(token_id: int) -> bytes | Unknown | None:
    """The token's version in Redis: it moves on (:func:`bump_versions`) before the process
    that changed the token answers, so a request that starts after that answer, in any
    process, finds its kept entry out of date even if the wake-up (realtime.revocation) has
    not reached its process yet. One ``GET``: far cheaper than the token's query."""
    if redis_client.unavailable():
        return UNKNOWN
    try:
        version = redis_client.shared_redis().get(version_key(token_id))
    except redis.RedisError as error:
        redis_client.went_down(error)
        return UNKNOWN
    assert version is None or isinstance(version, bytes)
    return version


def bump_versions(token_ids: Iterable[int]) -> None:
    """Move the versions of these tokens on (after the change's commit, before its answer).
    Without Redis nothing is kept anywhere, and a process that cannot reach it trusts
    nothing it kept (its subscription is down too, :attr:`TokenCache.is_current`)."""
    if not settings.REDIS_URL or redis_client.unavailable():
        return
    try:
        pipe = redis_client.shared_redis().pipeline(transaction=False)
        for token_id in token_ids:
            pipe.incr(version_key(token_id))
            pipe.expire(version_key(token_id), VERSION_SECONDS)
        pipe.execute()
    except redis.RedisError as error:
        redis_client.went_down(error)
