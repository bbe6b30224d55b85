"""A club's leagues: a season of nights (tournaments of the club) scored together."""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from clubs.models import Club
from tournaments.models import Tournament


class League(models.Model):
    class Scoring(models.TextChoices):
        SUM = "sum"
        BEST = "best"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="leagues")
    name = models.CharField(max_length=100)
    scoring = models.CharField(max_length=4, choices=Scoring.choices, default="sum")
    # Scoring "best": how many of each player's nights count.
    best = models.PositiveSmallIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.club_id})"


class Night(models.Model):
    """One tournament of the club counted in a league."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="nights")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="league_nights"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["added_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["league", "tournament"], name="one_night_per_league")
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} in {self.league_id}"
