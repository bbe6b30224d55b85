"""Ratings per pool, the record of every rated game, and every rating change.

* :class:`Rating` -- a player's current rating in a pool (one row per player and pool; the
  live update locks these rows).
* :class:`RatedGame` -- one row per game rated: its unique ``game`` makes the update run
  exactly once however often the notification comes.
* :class:`RatingChange` -- per game and player, the rating before (inactivity included) and
  after: the history chart, the match history's rating change, and an audit of the rebuild.
* :class:`RatingPool` -- one row per pool; live updates share its lock, a rebuild takes it
  alone (PostgreSQL), so a rebuild never interleaves with a live update.
"""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from games.models import Game


class RatingPool(models.Model):
    name = models.CharField(max_length=30, unique=True)

    def __str__(self) -> str:
        return self.name


class Rating(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    pool = models.CharField(max_length=30)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    # When the last rated game in the pool ended: inactivity is counted from here.
    last_played_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "player"], name="one_rating_per_pool_player")
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.pool}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatedGame(models.Model):
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")
    pool = models.CharField(max_length=30)
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["pool"])]

    def __str__(self) -> str:
        return f"game {self.game_id} rated in {self.pool}"


class RecordedGame(models.Model):
    """A game played with real cards away from the platform whose result was entered (an
    in-person tournament table): rated as a finished game is, in the in-person pool. Its
    unique ``key`` makes a second announcement a no-op; ``rated_at`` is set once rated."""

    key = models.CharField(max_length=100, unique=True)
    pool = models.CharField(max_length=30)
    finished_at = models.DateTimeField()
    # [{"seat", "player_id", "rank", "score"}] in seat order.
    seats = models.JSONField()
    rated_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"recorded game {self.key} in {self.pool}"


class RatingChange(models.Model):
    # One of the two: an online game, or a game recorded from a real table.
    game = models.ForeignKey(Game, null=True, on_delete=models.CASCADE, related_name="+")
    recorded = models.ForeignKey(
        RecordedGame, null=True, on_delete=models.CASCADE, related_name="changes"
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    pool = models.CharField(max_length=30)
    # When the game ended (the history's time axis).
    at = models.DateTimeField()
    seat = models.PositiveSmallIntegerField()
    # The rank the rating used (the game's, a replaced seat moved to last).
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    ordinal_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_change_per_game_player"),
            models.UniqueConstraint(
                fields=["recorded", "player"], name="one_change_per_recorded_player"
            ),
        ]
        indexes = [models.Index(fields=["player", "pool", "at"]), models.Index(fields=["pool"])]

    def __str__(self) -> str:
        return f"game {self.game_id}, player {self.player_id}: {self.ordinal_after:+.2f}"
