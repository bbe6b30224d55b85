"""Challenges: an invitation to named players (people or bot accounts) to one game.

A challenge holds the game's settings and one :class:`ChallengeSeat` a seat: the
challenger's, each invitee's with its answer, and the house bots' (which need none). When
every seat has accepted, the game starts (``challenges.services``).
"""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from core.json_codec import JSONField
from games.models import Game


class Challenge(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELED = "canceled"
        EXPIRED = "expired"

    challenger = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="challenges_sent")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    rules = JSONField()
    rated = models.BooleanField(default=True)
    move_seconds = models.PositiveIntegerField()
    # The finished game whose seats this challenge asks back to the table (a rematch).
    rematch_of = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The game the challenge started once everyone accepted.
    # Duplicate play: the finished game whose deals the challenge's game replays.
    duplicate_of = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="challenge"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # When it stopped being pending (accepted, declined, canceled or expired).
    closed_at = models.DateTimeField(null=True, blank=True)

    # Seats by seat number, with their players (selectors.with_seats loads them).
    seat_rows: list[ChallengeSeat]

    class Meta:
        indexes = [models.Index(fields=["status", "expires_at"])]

    def __str__(self) -> str:
        return f"challenge {self.pk} ({self.status})"


class ChallengeSeat(models.Model):
    """A seat of a challenge's game: who sits there, and whether they have accepted."""

    class Answer(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="challenge_seats")
    answer = models.CharField(max_length=10, choices=Answer.choices, default=Answer.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "seat"], name="one_row_per_challenge_seat")
        ]
        indexes = [models.Index(fields=["player", "answer"])]

    def __str__(self) -> str:
        return f"challenge {self.challenge_id} seat {self.seat}: {self.player} ({self.answer})"
