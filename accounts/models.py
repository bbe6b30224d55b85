"""Accounts: people, the bot accounts they own, house bots, and the API tokens of each.

The tables keep the names they had when these models lived in the games app
(``games_player``, ``games_apitoken``): docs/decisions says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractUser
from django.db import models

from core.json_codec import JSONField


@dataclass(frozen=True)
class Credentials:
    """The API token a request was made with: its id and its scopes."""

    token_id: int
    scopes: frozenset[str]


class Player(AbstractUser):
    """An account: a human, a bot account owned by a human, or a house bot (``house:...``)."""

    is_bot = models.BooleanField(default=False)
    owner = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="bots"
    )
    # A guest: an account made for a visitor's browser session (named guest-...), never
    # rated, removed after a while unless the visitor signs up from it (docs/web.md).
    is_guest = models.BooleanField(default=False)
    # Whether the table page shows hints during the person's first games (they may turn
    # them off).
    hints = models.BooleanField(default=True)

    #: The token this instance was reached with in an API request (set by accounts.auth),
    #: whose scopes narrow what it may do and see; None for an account not reached through
    #: a token (a person logged in to the web pages, an account a task loads), which has
    #: every right of the account.
    credentials: Credentials | None = None

    class Meta:
        db_table = "games_player"

    def __str__(self) -> str:
        return self.username

    @property
    def is_house_bot(self) -> bool:
        return self.username.startswith(HOUSE_BOT_PREFIX)

    @property
    def api_token_id(self) -> int | None:
        """The token this instance was reached with (None: not through a token)."""
        return self.credentials.token_id if self.credentials is not None else None

    @property
    def may_play(self) -> bool:
        """Whether this caller may play: act in its games and see its seats' private data
        (hands, legal actions, turns). A token needs the ``play`` scope for it."""
        return self.credentials is None or ApiToken.Scope.PLAY in self.credentials.scopes


HOUSE_BOT_PREFIX = "house:"


class ApiToken(models.Model):
    """A revocable API token. Only the SHA-256 of the key is stored; the key is shown once."""

    class Scope(models.TextChoices):
        PLAY = "play"
        BOT = "bot"
        ORGANISE = "organise"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    key_prefix = models.CharField(max_length=12)
    scopes = JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_apitoken"

    def __str__(self) -> str:
        return f"{self.key_prefix}… ({self.player})"
