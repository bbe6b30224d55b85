"""The stream's messages: a line for a player's ``/api/v1/stream``, kept for a while.

The table keeps the name it had in the games app (``games_playermessage``).
"""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from core.json_codec import JSONField


class PlayerMessage(models.Model):
    """A line for a player's ``/api/v1/stream`` (``game_start``, ``your_turn``, ...)."""

    # No index of its own: the (player, id) index starts with the player (an index more to
    # update for every message a move writes).
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="messages", db_index=False
    )
    type = models.CharField(max_length=30)
    payload = JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_playermessage"
        indexes = [models.Index(fields=["player", "id"])]

    def __str__(self) -> str:
        return f"{self.type} for {self.player_id}"
