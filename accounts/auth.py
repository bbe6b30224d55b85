"""API tokens: ``Authorization: Token <key>``, stored hashed, revocable, with scopes.

A key is ``smk_`` + 40 URL-safe random characters; the database keeps its SHA-256 only, so a
leaked database does not leak usable tokens. Scopes: ``play`` (sit at tables and act),
``bot`` (a bot account's token), ``organise`` (tables for others, tournaments).

A person logged in to the web pages uses the API from the page without a key: logging in
issues a token for the browser session (its id kept in the session, never the key), and a
request with the session cookie and no ``Authorization`` header is that token's, with
Django's CSRF check on unsafe methods (:func:`authenticate_session`). Logging out revokes it.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from rest_framework import authentication, permissions
from rest_framework.request import Request

from accounts.models import ApiToken, Credentials, Player
from accounts.ratelimit import WINDOW, caller_key, count_ahead, hit, token_key
from accounts.token_cache import UNKNOWN, Entry, Unknown, tokens, version_key, version_of
from core.errors import NotAllowed, NotAuthenticated, RateLimited

KEY_PREFIX = "smk_"
HUMAN_SCOPES = (ApiToken.Scope.PLAY, ApiToken.Scope.ORGANISE)
BOT_SCOPES = (ApiToken.Scope.PLAY, ApiToken.Scope.BOT)
# Writing last_used_at on every request would turn every read into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def issue_token(player: Player, scopes: Iterable[str], name: str = "") -> tuple[ApiToken, str]:
    """A new token for ``player``; returns the row and the key (shown to the user once)."""
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    token = ApiToken.objects.create(
        player=player,
        name=name,
        key_hash=hash_key(key),
        key_prefix=key[:12],
        scopes=sorted(set(scopes)),
    )
    return token, key


def token_for_key(key: str) -> ApiToken | None:
    """The live token with this key, with its player, or None, as the database has it now
    (a request's authentication may use this process's kept tokens instead:
    :func:`authenticate_header`)."""
    return _live_token_where("key_hash", hash_key(key))


def _token_and_entry(key: str, request: HttpRequest | None) -> tuple[ApiToken, Entry] | None:
    """The live token with this key and its entry in this process's cache of live tokens
    (accounts/token_cache.py), looked up when the cache has none it may trust. The token's
    version is read in the round trip that counts ``request`` against the rate limit
    (:func:`_version`).
    """
    key_hash = hash_key(key)
    entry = tokens.get(key_hash)
    if entry is not None and _version(entry.token_id, request) == entry.version:
        return entry.token(), entry
    generation = tokens.generation
    token = _live_token_where("key_hash", key_hash)
    if token is None:
        return None
    # Read after the row: a change committed before the row was read has moved it on
    # already, or moves it on after, and then the next request looks the token up again.
    version = _version(token.pk, request) if tokens.is_current() else UNKNOWN
    entry = Entry.of(
        token,
        last_used_due=_last_used_due(token.last_used_at),
        version=None if isinstance(version, Unknown) else version,
    )
    if not isinstance(version, Unknown):
        tokens.put(key_hash, entry, generation)
    return token, entry


def _version(token_id: int, request: HttpRequest | None) -> bytes | Unknown | None:
    """The token's version in Redis (:func:`accounts.token_cache.version_of`), read as
    ``request`` is counted against the token's rate limit when there is a request."""
    if request is None:
        return version_of(token_id)
    answered, version = count_ahead(request, token_key(token_id), also_get=version_key(token_id))
    return version if answered else UNKNOWN


def _last_used_due(last_used_at: datetime | None) -> float:
    """When (``time.monotonic()``) a token last used at ``last_used_at`` is written again."""
    now = time.monotonic()
    if last_used_at is None:
        return now
    return now + (LAST_USED_RESOLUTION - (timezone.now() - last_used_at)).total_seconds()


def _note_use(entry: Entry) -> None:
    """Write the token's last_used_at, at most once every LAST_USED_RESOLUTION per process
    and, by its condition, once in that time whatever the processes."""
    now = time.monotonic()
    if now < entry.last_used_due:
        return
    entry.last_used_due = now + LAST_USED_RESOLUTION.total_seconds()
    used_at = timezone.now()
    ApiToken.objects.filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lte=used_at - LAST_USED_RESOLUTION),
        pk=entry.token_id,
    ).update(last_used_at=used_at)


def _live_tokens() -> QuerySet[ApiToken]:
    """The tokens that work: not revoked, their account active."""
    return ApiToken.objects.filter(revoked_at__isnull=True, player__is_active=True)


def _live_token_where(column: str, value: object) -> ApiToken | None:
    """The live token whose ``column`` is ``value``, with its player, whose
    :attr:`~accounts.models.Player.credentials` are the token's."""
    token = _live_tokens().select_related("player").filter(**{column: value}).first()
    if token is None:
        return None
    token.player.credentials = Credentials(token.pk, frozenset(token.scopes))
    return token


def token_is_live(token_id: int) -> bool:
    """Whether the token ``token_id`` still works (not revoked, its account active): what a
    waiting client checks again while it waits (realtime.revocation)."""
    return _live_tokens().filter(pk=token_id).exists()


def live_token_ids(token_ids: Collection[int]) -> set[int]:
    """Which of ``token_ids`` still work, in one query: what a game's live feed checks
    before it hands a change to the clients that opened it with those tokens."""
    if not token_ids:
        return set()
    return set(_live_tokens().filter(pk__in=list(token_ids)).values_list("pk", flat=True))


def invalid_token() -> NotAuthenticated:
    """401 ``invalid_token``: a token that does not work (unknown, revoked, its account
    deactivated), when it is sent or while a request made with it waits."""
    return NotAuthenticated("invalid_token", "The token is unknown or revoked.")


def parse_authorization(header: str) -> str | None:
    """The key of an ``Authorization: Token <key>`` header; raises 401 on other shapes."""
    if not header:
        return None
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "token":
        raise NotAuthenticated("not_authenticated", "Use the header 'Authorization: Token <key>'.")
    return parts[1]


def authenticate_header(
    header: str, request: HttpRequest | None = None
) -> tuple[Player, ApiToken] | None:
    """The (player, token) of an Authorization header; None without one; 401 if invalid.
    With the ``request``, the request is counted against the token's rate limit too (its
    throttle takes that count: accounts/ratelimit.py)."""
    key = parse_authorization(header)
    if key is None:
        return None
    found = _token_and_entry(key, request)
    if found is None:
        raise invalid_token()
    token, entry = found
    _note_use(entry)
    return token.player, token


#: The session's entry holding the id of the browser session's API token.
SESSION_TOKEN_KEY = "api_token_id"
SESSION_TOKEN_NAME = "web session"


def session_store(session_key: str | None) -> SessionBase:
    store: type[SessionBase] = import_module(settings.SESSION_ENGINE).SessionStore
    return store(session_key)


def live_token(token_id: object) -> ApiToken | None:
    """The live token with this id, with its player, or None."""
    if not isinstance(token_id, int):
        return None
    return _live_token_where("id", token_id)


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request: HttpRequest, reason: str) -> str:
        return reason


def _csrf_failure(request: HttpRequest) -> str | None:
    """Why Django's CSRF protection refuses this request, or None (as the pages' middleware
    decides it: safe methods pass; others need the token of the CSRF cookie in a header)."""
    check = _CsrfCheck(lambda _: None)
    check.process_request(request)
    reason = check.process_view(request, lambda _: None, (), {})
    return reason if isinstance(reason, str) else None


def authenticate_session(request: HttpRequest) -> tuple[Player, ApiToken] | None:
    """The (player, token) of the browser session whose cookie came with the request; None
    without a logged-in session; 403 ``csrf_failed`` for an unsafe method without the CSRF
    token, so that another site cannot act with a visitor's cookie."""
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return None
    token = live_token(session_store(session_key).get(SESSION_TOKEN_KEY))
    if token is None:
        return None
    if (reason := _csrf_failure(request)) is not None:
        raise NotAllowed("csrf_failed", f"CSRF check failed: {reason}")
    return token.player, token


def authenticate_request(request: HttpRequest) -> tuple[Player, ApiToken] | None:
    """The caller of an API request: its ``Authorization`` header's token, else its browser
    session's (:func:`authenticate_session`); None for an anonymous request."""
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if header:
        return authenticate_header(header, request)
    return authenticate_session(request)


class TokenAuthentication(authentication.BaseAuthentication):
    """DRF authentication for ``Authorization: Token <key>`` (or a logged-in browser's
    session, :func:`authenticate_request`)."""

    def authenticate(self, request: Request) -> tuple[Player, ApiToken] | None:
        return authenticate_request(request._request)

    def authenticate_header(self, request: Request) -> str:
        return "Token"


def require_scope(scope: str) -> type[permissions.BasePermission]:
    """A permission class: an authenticated caller whose token carries ``scope``."""

    class HasScope(permissions.BasePermission):
        required_scope = scope  # for the schema (api.schema)

        def has_permission(self, request: Request, view: Any) -> bool:
            token = request.auth
            if not isinstance(token, ApiToken):
                raise NotAuthenticated("not_authenticated", "This needs a token.")
            if scope not in token.scopes:
                raise insufficient_scope(scope)
            return True

    HasScope.__name__ = f"HasScope_{scope}"
    return HasScope


def insufficient_scope(scope: str) -> NotAllowed:
    """403 ``insufficient_scope``: the token lacks ``scope``."""
    return NotAllowed(
        "insufficient_scope", f"This token lacks the '{scope}' scope.", required_scope=scope
    )


class IsAuthenticated(permissions.BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        if not isinstance(request.auth, ApiToken):
            raise NotAuthenticated("not_authenticated", "This needs a token.")
        return True


def authenticate_and_limit(request: HttpRequest) -> Player | None:
    """For the async views, which the REST framework does not run: the caller of the
    request's token (None without one; 401 if invalid), counted against the rate limit
    (429 past it), as the REST framework's authentication and throttle do for the others."""
    found = authenticate_request(request)
    token = found[1] if found else None
    wait = hit(
        caller_key(token, request.META.get("REMOTE_ADDR", "")),
        settings.RATE_LIMIT_PER_MINUTE,
        WINDOW,
        request=request,
    )
    if wait is not None:
        retry = int(wait + 0.999)
        raise RateLimited(
            "rate_limited", f"Too many requests; retry in {retry} s.", retry_after=retry
        )
    return found[0] if found else None


def caller(request: Request) -> Player:
    """The authenticated account of a view that requires one (its permission checked it)."""
    assert isinstance(request.user, Player)
    return request.user
