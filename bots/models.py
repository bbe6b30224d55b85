"""Bot accounts: how the platform reaches an external bot (it polls, or we push a webhook)."""

from __future__ import annotations

from django.db import models

from games.models import Player


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
