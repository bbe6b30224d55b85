"""Tables and games.

A game row stores the engine's serialised state and a ``version``; each accepted action
appends :class:`GameEvent` rows (with their visibility) and bumps the version in one
transaction (see :func:`games.play.submit_action`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import models

from accounts.models import Player
from core import json_codec
from core.json_codec import JSONField
from games.engine import Game as Engine


class Table(models.Model):
    """Where a game is set up: rules, seats; it starts its game when every seat is full."""

    class Status(models.TextChoices):
        OPEN = "open"
        PLAYING = "playing"
        FINISHED = "finished"

    created_by = models.ForeignKey(
        Player, null=True, on_delete=models.SET_NULL, related_name="tables_created"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    rules = JSONField()
    rated = models.BooleanField(default=True)
    move_seconds = models.PositiveIntegerField(default=60)
    seat_count = models.PositiveSmallIntegerField()
    # Set only by internal callers (never through the API): the game is dealt from this seed
    # instead of a fresh secret one, so that several tables can play the very same deals
    # (duplicate play: comparing bots with the luck of the cards cancelled out). Whoever
    # knows it knows every hand, so it is shown nowhere; and only house bots sit at such a
    # table (games.tables._sit says why).
    deal_seed = models.CharField(max_length=64, blank=True, default="")
    # Duplicate play (docs/tournaments.md): the finished game whose deals this table's game
    # replays (its seed is put in ``deal_seed``). That game's record is public, so anyone can
    # look these deals up: for comparisons between honest groups and bots.
    duplicate_of = models.ForeignKey(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # What selectors.table_data shows beyond the row, given by selectors.tables() and by the
    # seating services: the seats with their players, by seat, and the game's id.
    seat_rows: list[TableSeat]
    game_pk: int | None

    class Meta:
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"table {self.pk} ({self.status})"


class TableSeat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT)

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_row_per_table_seat")
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.seat}: {self.player or '-'}"


class Game(models.Model):
    """A game in play or finished. ``state`` is the engine's JSON; ``version`` counts changes."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="game")
    rules = JSONField()
    rated = models.BooleanField(default=True)
    move_seconds = models.PositiveIntegerField()
    seed = models.CharField(max_length=64)
    # The finished game whose deals this one replays (``Table.duplicate_of``), or None.
    duplicate_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Dealt from a seed that other games in play may share (an organiser's duplicate round):
    # its views are then subject to ``selectors.EMBARGOES``.
    deals_shared = models.BooleanField(default=False)
    state = models.TextField()
    version = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    phase = models.CharField(max_length=10)
    hand_number = models.PositiveIntegerField(default=1)
    to_act = JSONField(default=list)
    deadline = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = JSONField(null=True, blank=True)
    # Who sits where, kept on the row so that an action or a view needs no join:
    # [{"seat", "player_id", "username", "is_bot", "acting_player_id", "played_by"}].
    # GamePlayer holds the same seats for histories; change both together (a house bot
    # taking over a seat sets acting_player_id and played_by).
    seats = JSONField(default=list)

    class Meta:
        indexes = [
            models.Index(fields=["status", "deadline"]),
            models.Index(fields=["-finished_at"]),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.status})"

    def engine(self, journal: Sequence[Mapping[str, Any]] | None = None) -> Engine:
        """The engine at this game's ``state``, loaded as it was saved (nothing replayed);
        ``journal``: see ``Engine.from_state``."""
        return Engine.from_state(json_codec.loads(self.state), owned=True, journal=journal)

    def set_state(self, engine: Engine) -> None:
        """Save ``engine``'s state in ``state``. Through orjson, not the engine's own
        ``to_json`` (the json module): the state is encoded and decoded on every move. It
        holds no integer beyond 64 bits (card masks; the seed is a string)."""
        self.state = json_codec.dumps(engine.to_state()).decode()

    def seat_of(self, player_id: int) -> int | None:
        """The seat of ``player_id`` in this game (as seated, even if a bot plays it now)."""
        return next((s["seat"] for s in self.seats if s["player_id"] == player_id), None)

    def seats_played_by(self, player_id: int) -> list[int]:
        """The seats ``player_id`` acts for now."""
        return [s["seat"] for s in self.seats if s["acting_player_id"] == player_id]

    def played_by(self, seat: int | None) -> str | None:
        """The house bot that plays ``seat`` for its player now, or None."""
        entry = next((s for s in self.seats if s["seat"] == seat), None)
        return None if entry is None else entry["played_by"]

    def acting_players(self) -> dict[int, int]:
        return {s["seat"]: s["acting_player_id"] for s in self.seats}

    def acting_identity(self, seat: int) -> tuple[int, str, bool]:
        """(player id, username, is_bot) of whoever acts for ``seat`` now."""
        entry = next(s for s in self.seats if s["seat"] == seat)
        if entry["played_by"]:
            return entry["acting_player_id"], entry["played_by"], True
        return entry["player_id"], entry["username"], entry["is_bot"]

    def hand_over_seat(self, seat: int, bot: Player) -> None:
        """Let ``bot`` play ``seat`` from now on (the seat stays its player's in histories)."""
        for entry in self.seats:
            if entry["seat"] == seat:
                entry["acting_player_id"] = bot.pk
                entry["played_by"] = bot.username

    def public_seats(self) -> list[dict[str, object]]:
        return [
            {
                "seat": s["seat"],
                "username": s["username"],
                "is_bot": s["is_bot"],
                **({"played_by": s["played_by"]} if s["played_by"] else {}),
            }
            for s in self.seats
        ]


class GameJournalPart(models.Model):
    """A part of a game's journal (its deals, actions and hands' full results) that the
    engine detached from the game's ``state`` at the end of a hand (``Engine.detach_journal``),
    so that the state every move rewrites stays about one hand long however long the game.
    The record is the state loaded with every part, in ``number`` order."""

    # No index of its own: the unique constraint's index starts with the game.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="journal_parts", db_index=False
    )
    #: The hands finished when it was detached (so increasing within a game).
    number = models.PositiveIntegerField()
    #: ``Engine.detach_journal()`` as JSON text (read back as it was written).
    data = models.TextField()

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="one_journal_part_per_number")
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} journal to hand {self.number}"


class GamePlayer(models.Model):
    """Who plays which seat of a game, and how it ended for them (for match histories)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="game_seats")
    timeouts = models.PositiveSmallIntegerField(default=0)
    # After three timeouts the seat is played by a house bot for the rest of the game.
    replaced_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField(null=True, blank=True)
    # "win" (first alone), "shared" (first with others) or "loss"; set when the game ends.
    result = models.CharField(max_length=6, blank=True)

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_row_per_game_seat")
        ]
        indexes = [models.Index(fields=["player", "game"])]

    def __str__(self) -> str:
        return f"game {self.game_id} seat {self.seat}: {self.player}"

    @property
    def acting_player_id(self) -> int:
        return self.replaced_by_id or self.player_id


class GameEvent(models.Model):
    """One event of a game. ``public`` events go to everyone; others to ``seat_mask`` seats."""

    # No index of its own: the unique constraint's index starts with the game (an index
    # more to update for every event a move writes).
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=20)
    at = models.DateTimeField()
    payload = JSONField()
    public = models.BooleanField(default=True)
    seat_mask = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="one_event_per_game_seq")
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} #{self.seq} {self.type}"


class IdempotencyRecord(models.Model):
    """The view answered to a request sent with an ``Idempotency-Key`` (kept ≥ 24 h)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    # The answer's HTTP status, always 200 (only an accepted action's view is kept): the
    # API picks the status of a replay, so the services that store a view leave it be.
    status_code = models.PositiveSmallIntegerField(default=200)
    # Text, not JSON: a retry must get the very same bytes (PostgreSQL's jsonb reorders keys).
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="one_record_per_player_key")
        ]

    def __str__(self) -> str:
        return f"{self.player_id}:{self.key}"
