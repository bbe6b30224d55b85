"""Everything that changes accounts and their tokens. Views call one of these each."""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.auth import BOT_SCOPES, HUMAN_SCOPES, SESSION_TOKEN_NAME, issue_token, session_store
from accounts.models import ApiToken, Player
from accounts.ratelimit import hit
from accounts.signals import announce_revoked_on_commit
from core.errors import Conflict, Invalid, NotAllowed, NotAuthenticated, NotFound, RateLimited

HOUSE_BOTS = ("house:random", "house:heuristic", "house:strong")
GUEST_PREFIX = "guest-"
#: A guest's browser session may play, nothing more (no organising).
GUEST_SCOPES = (ApiToken.Scope.PLAY,)


def register_player(username: str, *, password: str, email: str = "") -> tuple[Player, str]:
    """A new human account and its first token (scopes play and organise)."""
    player = create_person(username, password=password, email=email)
    _, key = issue_token(player, HUMAN_SCOPES, name="registration")
    return player, key


def create_person(username: str, *, password: str, email: str = "") -> Player:
    """A new human account, without a token (the web pages' sign-up)."""
    _refuse_guest_name(username)
    player = Player(username=username, email=email)
    try:
        validate_password(password, player)
    except DjangoValidationError as error:
        raise Invalid(
            "invalid", "The password is too weak.", fields={"password": list(error.messages)}
        ) from error
    player.set_password(password)
    _save_new_account(player)
    return player


def _save_new_account(player: Player) -> None:
    """Save a new account; usernames are unique regardless of letter case."""
    taken = Conflict("username_taken", f"'{player.username}' is taken.")
    if Player.objects.filter(username__iexact=player.username).exists():
        raise taken
    try:
        with transaction.atomic():
            player.save()
    except IntegrityError as error:
        raise taken from error


def person_with_password(username: str, *, password: str) -> Player:
    """The active human account with this username and password; 401 otherwise."""
    player = Player.objects.filter(username=username, is_bot=False, is_active=True).first()
    if player is None or not player.check_password(password):
        raise NotAuthenticated("invalid_credentials", "Wrong username or password.")
    return player


def open_browser_session(player: Player) -> ApiToken:
    """The API token of a new browser session (its id goes into the session, not its key:
    the page reaches the API with the session cookie, see accounts.auth). A guest's may
    only play."""
    scopes = GUEST_SCOPES if player.is_guest else HUMAN_SCOPES
    token, _ = issue_token(player, scopes, name=SESSION_TOKEN_NAME)
    return token


# --- Guests ----------------------------------------------------------------------------------


def create_guest(*, address: str) -> Player:
    """A guest account for a visitor's browser session: ``guest-`` and a random part, no
    usable password (it lives in the session alone). Rate-limited per client address
    (``GUEST_CREATIONS_PER_HOUR``): RateLimited beyond."""
    limit = settings.GUEST_CREATIONS_PER_HOUR
    wait = hit(f"guest:{address}", limit, 3600)
    if wait is not None:
        raise RateLimited(
            "rate_limited",
            "Too many guest accounts from this address; sign up, or try again later.",
            retry_after=math.ceil(wait),
        )
    for _ in range(5):
        guest = Player(username=GUEST_PREFIX + secrets.token_hex(5), is_guest=True)
        guest.set_unusable_password()
        try:
            _save_new_account(guest)
        except Conflict:
            continue  # the random part was taken: draw again
        return guest
    raise Conflict("username_taken", "Could not find a free guest name; try again.")


def convert_guest(guest: Player, *, username: str, password: str, email: str = "") -> Player:
    """Make a guest account a person's own, in place: the chosen username and password, the
    guest flag cleared, so every game it played stays on the new profile."""
    if not guest.is_guest:
        raise Conflict("not_a_guest", "This account has signed up already.")
    _refuse_guest_name(username)
    try:
        validate_password(password, Player(username=username, email=email))
    except DjangoValidationError as error:
        raise Invalid(
            "invalid", "The password is too weak.", fields={"password": list(error.messages)}
        ) from error
    taken = Conflict("username_taken", f"'{username}' is taken.")
    if Player.objects.filter(username__iexact=username).exclude(pk=guest.pk).exists():
        raise taken
    guest.username, guest.email, guest.is_guest = username, email, False
    guest.set_password(password)
    try:
        with transaction.atomic():
            guest.save(update_fields=["username", "email", "password", "is_guest"])
    except IntegrityError as error:
        raise taken from error
    return guest


def _refuse_guest_name(username: str) -> None:
    if username.lower().startswith(GUEST_PREFIX):
        message = f"Names starting with '{GUEST_PREFIX}' are kept for guests."
        raise Invalid("invalid", message, fields={"username": [message]})


def refuse_guest(player: Player, *, doing: str) -> None:
    """NotAllowed ``guests_may_not`` if ``player`` is a guest: a guest plays unrated games
    and nothing more until they sign up."""
    if player.is_guest:
        raise NotAllowed("guests_may_not", f"A guest may not {doing}; sign up first.")


def set_hints(player: Player, *, on: bool) -> None:
    """Turn the table's hints for the person's first games on or off."""
    player.hints = on
    player.save(update_fields=["hints"])


def close_browser_session(*, token_id: object) -> None:
    """Revoke a browser session's token (logging out): the API refuses the cookie at once,
    and the streams and long polls it opened end."""
    if isinstance(token_id, int):
        _revoke(ApiToken.objects.filter(pk=token_id))


def _revoke(tokens: QuerySet[ApiToken]) -> int:
    """Revoke the live ones of ``tokens``; returns how many. Once committed, the streams and
    long polls waiting with them are told to end (accounts.signals)."""
    with transaction.atomic():
        ids = list(tokens.filter(revoked_at__isnull=True).values_list("pk", flat=True))
        revoked = ApiToken.objects.filter(pk__in=ids, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        announce_revoked_on_commit(ids)
    return revoked


def end_expired_browser_sessions() -> int:
    """Delete the expired browser sessions and revoke the API tokens of sessions that can no
    longer be alive (a session lasts at most SESSION_COOKIE_AGE from its log-in); returns
    how many tokens were revoked."""
    session_store(None).clear_expired()
    oldest_alive = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    return _revoke(ApiToken.objects.filter(name=SESSION_TOKEN_NAME, created_at__lt=oldest_alive))


def log_in(username: str, *, password: str, scopes: Iterable[str] | None, name: str) -> str:
    """A new token for a human who gives the right password."""
    player = person_with_password(username, password=password)
    wanted = set(scopes) if scopes is not None else set(HUMAN_SCOPES)
    if not wanted <= set(HUMAN_SCOPES):
        raise Invalid(
            "invalid",
            "Unknown or unavailable scope.",
            fields={"scopes": sorted(wanted - set(HUMAN_SCOPES))},
        )
    _, key = issue_token(player, wanted, name=name or "login")
    return key


def create_bot_player(owner: Player, *, username: str) -> tuple[Player, str]:
    """A bot account owned by a human, and its token (scopes play and bot)."""
    if owner.is_bot:
        raise NotAllowed("bots_cannot_own_bots", "A bot account cannot create bots.")
    refuse_guest(owner, doing="create bots")
    bot = Player(username=username, is_bot=True, owner=owner)
    bot.set_unusable_password()
    _save_new_account(bot)
    _, key = issue_token(bot, BOT_SCOPES, name="bot")
    return bot, key


def owned_bot(owner: Player, *, username: str) -> Player:
    """The bot account ``username``, if ``owner`` owns it (404 if there is no such bot)."""
    bot = Player.objects.filter(username=username, is_bot=True, owner__isnull=False).first()
    if bot is None:
        raise NotFound("not_found", f"No bot account '{username}'.")
    if bot.owner_id != owner.pk:
        raise NotAllowed("not_bot_owner", "Only its owner may do this with a bot.")
    return bot


def rotate_bot_token(owner: Player, *, username: str) -> str:
    """A fresh token for the owner's bot ``username``; every other token of the bot is
    revoked with it (they stop working at once, and their streams and long polls end)."""
    with transaction.atomic():
        bot = owned_bot(owner, username=username)
        _revoke(ApiToken.objects.filter(player=bot))
        _, key = issue_token(bot, BOT_SCOPES, name="bot")
    return key


def new_token(player: Player, *, scopes: Iterable[str], name: str) -> tuple[ApiToken, str]:
    """A new token with ``scopes`` (those the account may have: a bot's or a human's)."""
    refuse_guest(player, doing="make API tokens")
    allowed = set(BOT_SCOPES if player.is_bot else HUMAN_SCOPES)
    wanted = set(scopes)
    if not wanted or not wanted <= allowed:
        raise Invalid(
            "invalid",
            "Unknown or unavailable scope.",
            fields={"scopes": sorted(wanted - allowed) or ["at least one scope is needed"]},
        )
    return issue_token(player, wanted, name=name)


def revoke_token(player: Player, *, token_id: int) -> None:
    """Revoke one of the player's live tokens: it stops working at once, and the streams and
    long polls it opened end within a second or two."""
    if not _revoke(ApiToken.objects.filter(pk=token_id, player=player)):
        raise NotFound("not_found", "No such live token.")


def house_bot(username: str) -> Player:
    """The account of a house bot (made on first use)."""
    if username not in HOUSE_BOTS:
        raise Invalid("unknown_bot", f"No house bot '{username}'.", known=list(HOUSE_BOTS))
    player, created = Player.objects.get_or_create(username=username, defaults={"is_bot": True})
    if created:
        player.set_unusable_password()
        player.save(update_fields=["password"])
    return player
