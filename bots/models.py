"""Bot accounts: how the platform reaches an external bot (it polls, or we push a webhook)."""

from __future__ import annotations

from django.db import models

from accounts.models import Player


class BotAccount(models.Model):
    class Mode(models.TextChoices):
        POLL = "poll"
        WEBHOOK = "webhook"

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="bot_account")
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.POLL)
    webhook_url = models.URLField(max_length=500, blank=True)
    # Shared secret for the X-Signature HMAC of webhook bodies (shown once, at creation).
    webhook_secret = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.player} ({self.mode})"


class WebhookDelivery(models.Model):
    """One push of a game view to a webhook bot, and what came of it (the game's bot log)."""

    class Outcome(models.TextChoices):
        APPLIED = "applied"  # the answer's action was accepted
        DEFERRED = "deferred"  # 2xx without an action: the bot will act through the API
        STALE = "stale"  # the game moved on before the answer was applied
        ILLEGAL = "illegal"  # the answered action was refused (left to the deadline)
        BAD_RESPONSE = "bad_response"  # not JSON, no usable action, too large, HTTP error
        UNREACHABLE = "unreachable"  # refused address, connect/read timeout, network error

    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    bot = models.ForeignKey(BotAccount, on_delete=models.CASCADE, related_name="deliveries")
    seat = models.PositiveSmallIntegerField()
    version = models.PositiveIntegerField()
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    detail = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["game", "id"])]

    def __str__(self) -> str:
        return f"game {self.game_id} v{self.version} seat {self.seat}: {self.outcome}"
