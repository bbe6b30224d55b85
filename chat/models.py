"""Chat: rooms (a table's players, its spectators, a tournament), their messages, and who
has muted whom.

A room's ``version`` moves on with every message posted or deleted in it: what its live
feed compares (chat.live), and the ``id`` of its stream's messages."""

from __future__ import annotations

from django.db import models

from accounts.models import Player
from games.models import Game
from tournaments.models import Tournament


class Room(models.Model):
    class Kind(models.TextChoices):
        PLAYERS = "players"  # a game's seated players
        SPECTATORS = "spectators"  # everyone else watching a game
        TOURNAMENT = "tournament"

    kind = models.CharField(max_length=12, choices=Kind.choices)
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    version = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "kind"],
                condition=models.Q(game__isnull=False),
                name="chat_room_one_per_game_and_kind",
            ),
            models.UniqueConstraint(
                fields=["tournament"],
                condition=models.Q(tournament__isnull=False),
                name="chat_room_one_per_tournament",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="tournament", game__isnull=True, tournament__isnull=False)
                    | models.Q(
                        kind__in=["players", "spectators"],
                        game__isnull=False,
                        tournament__isnull=True,
                    )
                ),
                name="chat_room_of_a_game_or_a_tournament",
            ),
        ]

    def __str__(self) -> str:
        owner = f"game {self.game_id}" if self.game_id else f"tournament {self.tournament_id}"
        return f"{self.kind} chat of {owner}"


class Message(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=500)
    #: Whether its links are shown as links: its author's account was a day old when posted.
    links = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    #: The room's version this message brought it to.
    version = models.PositiveIntegerField()
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: The room's version its deletion brought it to.
    deleted_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["room", "version"], name="chat_message_room_version"),
            models.Index(fields=["room", "deleted_version"], name="chat_message_room_deleted"),
        ]

    def __str__(self) -> str:
        return f"{self.author_id}: {self.text[:40]}"


class Mute(models.Model):
    """``muter`` no longer sees ``muted``'s messages (in every room)."""

    muter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["muter", "muted"], name="chat_mute_once"),
        ]

    def __str__(self) -> str:
        return f"{self.muter_id} mutes {self.muted_id}"
