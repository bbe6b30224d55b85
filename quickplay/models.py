"""Quick play: a seek is one account's wish to be seated at the next compatible table.

A seek is ``open`` until the matching service (quickplay.services.match_seeks) seats it
(``seated``, with its ``game``), its player leaves the queue (``canceled``) or its time runs
out (``expired``, at ``expires_at``: quickplay.services.expiry_of). An open seek past its
``expires_at`` is never seated and shows as expired before beat's sweep
(quickplay.services.expire_due_seeks) has marked it so. One account has at most one open
seek (the constraint below), so a table made of open seeks never seats one account twice.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from accounts.models import Player
from core.json_codec import JSONField
from games.models import Game


class Seek(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        SEATED = "seated"
        CANCELED = "canceled"
        EXPIRED = "expired"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seeks")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    #: The rules as the engine normalises them (``Rules.to_dict()``), so equal rules match.
    rules = JSONField()
    rated = models.BooleanField()
    move_seconds = models.PositiveIntegerField()
    #: Seeks that may share a table have the same group: a digest of rules, rated and move
    #: time (quickplay.services.group_of).
    group = models.CharField(max_length=64)
    #: The player's rating (mu, in the pool of the rules) when the seek was made.
    rating = models.FloatField()
    #: The ratings (mu) the seeker accepts at the table; null: no bound on that side.
    rating_min = models.FloatField(null=True)
    rating_max = models.FloatField(null=True)
    #: Seconds after which the seats still empty are filled with house bots; null: never.
    house_bots_after = models.PositiveIntegerField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: When it leaves the queue if still open (quickplay.services.expiry_of).
    expires_at = models.DateTimeField()
    seated_at = models.DateTimeField(null=True)
    game = models.ForeignKey(Game, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [
            models.Index(fields=["status", "group", "created_at"]),
            models.Index(fields=["status", "expires_at"]),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player"], condition=Q(status="open"), name="one_open_seek_per_player"
            )
        ]

    def __str__(self) -> str:
        return f"seek {self.pk} of {self.player_id} ({self.status})"
