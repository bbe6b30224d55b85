"""The bot arena: per rating pool, the bot accounts in it and the games it seated.

* :class:`Arena` -- one row per pool that has had an arena: how its games are played (rules,
  move time) and how long an idle bot waits for better company (``wait_seconds``). Its row
  lock serialises the seating of the pool (arena/services.py says why).
* :class:`ArenaEntry` -- a bot account in (or once in) an arena: one row per bot and pool,
  ``active`` while it is in.
* :class:`ArenaGame` -- a game the arena seated; ``settled`` once its end was taken into
  account (games counted, a bot that stopped answering taken out).
"""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from games.models import Game


class Arena(models.Model):
    pool = models.CharField(max_length=30, unique=True)
    #: The rules of every game (a preset of the pool and its options).
    rules = models.JSONField()
    move_seconds = models.PositiveIntegerField()
    #: How long an idle bot waits for other bots before it is seated anyway: with house bots
    #: in the empty seats, or at a table with the same players as its last game.
    wait_seconds = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"arena {self.pool}"


class ArenaEntry(models.Model):
    class Reason(models.TextChoices):
        IN = ""  # in the arena
        LEFT = "left"
        TIMEOUTS = "timeouts"  # taken out after its timeouts

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="arena_entries")
    active = models.BooleanField(default=True)
    joined_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)
    removed_reason = models.CharField(max_length=10, choices=Reason.choices, blank=True)
    #: When it last became free to be seated (None while it plays an arena game).
    idle_since = models.DateTimeField(null=True, blank=True)
    #: Arena games it finished.
    games = models.PositiveIntegerField(default=0)
    #: Arena games in a row in which it timed out at least once.
    timeout_streak = models.PositiveSmallIntegerField(default=0)
    #: The players of its last arena game (ids), to keep the same tables from repeating.
    last_table = models.JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["arena", "player"], name="one_entry_per_arena_player")
        ]
        indexes = [models.Index(fields=["arena", "active"])]
        verbose_name_plural = "arena entries"

    def __str__(self) -> str:
        return f"{self.player_id} in {self.arena_id}"


class ArenaGame(models.Model):
    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="+")
    settled = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["arena", "settled"])]

    def __str__(self) -> str:
        return f"game {self.game_id} of {self.arena_id}"
