"""Club tournaments for 3-seat tables: entrants, rounds, tables, results and the audit log.

A tournament's rows change under a row lock on the :class:`Tournament` (see
``tournaments.services.changes``); games are ordinary ``games`` tables and games, linked
from :class:`TournamentTable`.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from accounts.models import Player
from clubs.models import Club
from games.models import Game, Table


def default_points_by_rank() -> list[float]:
    return [3, 1, 0]


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss"
        ROUND_ROBIN = "round_robin"
        KNOCKOUT = "knockout"

    class Status(models.TextChoices):
        REGISTERING = "registering"
        RUNNING = "running"
        FINISHED = "finished"

    class OddCount(models.TextChoices):
        """What to do when the players do not fill tables of three."""

        FILLERS = "fillers"
        BYES = "byes"

    class Venue(models.TextChoices):
        """Where the games are played: on the platform, or with real cards at real tables
        (then each table's result is entered: tournaments.services.results)."""

        ONLINE = "online"
        IN_PERSON = "in_person"

    name = models.CharField(max_length=100)
    created_by = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="tournaments_created"
    )
    co_organisers = models.ManyToManyField(
        Player, blank=True, related_name="tournaments_co_organised"
    )
    # The rules preset and options of every game, hands_per_game included as max_hands.
    rules = models.JSONField()
    format = models.CharField(max_length=12, choices=Format.choices)
    # Swiss and round robin: fixed at the start (a default then if null); knockout: as played.
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    hands_per_game = models.PositiveSmallIntegerField(null=True, blank=True, default=3)
    move_seconds = models.PositiveIntegerField(default=60)
    round_minutes = models.PositiveIntegerField(default=60)
    starts_at = models.DateTimeField(null=True, blank=True)
    rated = models.BooleanField(default=True)
    max_players = models.PositiveIntegerField(null=True, blank=True)
    min_rating = models.FloatField(null=True, blank=True)
    max_rating = models.FloatField(null=True, blank=True)
    humans_allowed = models.BooleanField(default=True)
    bots_allowed = models.BooleanField(default=True)
    odd_count = models.CharField(max_length=8, choices=OddCount.choices, default="fillers")
    filler_bot = models.CharField(max_length=30, default="house:random")
    points_by_rank = models.JSONField(default=default_points_by_rank)
    advance_per_table = models.PositiveSmallIntegerField(default=1)
    # Duplicate play (docs/tournaments.md): every table of a round is dealt the same deals,
    # and standings rank by each entrant's score against the same seat at the other tables.
    duplicate = models.BooleanField(default=False)
    # A club's tournament: set by one of its admins; only its members may enter.
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments"
    )
    venue = models.CharField(max_length=10, choices=Venue.choices, default="online")
    status = models.CharField(max_length=12, choices=Status.choices, default="registering")
    current_round = models.PositiveSmallIntegerField(default=0)
    # Moves on with every change its page or its detail shows (entrants, rounds, a table's
    # game over, standings, status, settings), in the change's transaction or, for a game's
    # end, just after it: what the live feeds compare (tournaments.live).
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"


class Entrant(models.Model):
    """A player in a tournament. House bots may enter several times (one account, several
    entrants), so results belong to the entrant, never to the account."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        WITHDRAWN = "withdrawn"
        ELIMINATED = "eliminated"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    # The username, or "house:random #2" for the second house:random entrant.
    name = models.CharField(max_length=160)
    is_house = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default="active")
    rating = models.FloatField(null=True, blank=True)
    seed = models.PositiveIntegerField(null=True, blank=True)
    eliminated_in_round = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "name"], name="one_entrant_name_per_tournament"
            ),
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(is_house=False),
                name="one_entry_per_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} in {self.tournament_id}"


class Invitation(models.Model):
    """An organiser's entry of someone else: a person, or another owner's bot account. The
    player (a bot's owner for a bot) accepts with ``register`` or declines; one never
    answered lapses when the tournament starts (docs/tournaments.md)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELLED = "cancelled"
        LAPSED = "lapsed"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invitations")
    # The account to enter: a person, or a bot account (its owner answers).
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="tournament_invitations"
    )
    invited_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(status="pending"),
                name="one_pending_invitation_per_player",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} invited to {self.tournament_id} ({self.status})"


class Round(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        FINISHED = "finished"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default="playing")
    # Entrant ids sitting this round out.
    byes = models.JSONField(default=list)
    # A duplicate tournament's round: the secret seed every table of the round is dealt from
    # (shown nowhere: whoever knows it knows every hand).
    deal_seed = models.CharField(max_length=64, blank=True, default="")
    started_at = models.DateTimeField(auto_now_add=True)
    deadline = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="one_round_number")
        ]

    def __str__(self) -> str:
        return f"round {self.number} of {self.tournament_id}"


class TournamentTable(models.Model):
    """A table of a round: an online game, or (in person) real cards and an entered result."""

    class ResultStatus(models.TextChoices):
        MISSING = "missing"
        PENDING = "pending"
        DISPUTED = "disputed"
        FINAL = "final"

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    # Null at an in-person night: no online table or game.
    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.PROTECT, related_name="tournament_table"
    )
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="tournament_table"
    )
    # [{"seat", "entrant"}], entrant null for a filler house bot.
    seats = models.JSONField()
    adjudicated = models.BooleanField(default=False)
    # Short and easy to type, unique within the tournament (the result's path names it).
    code = models.CharField(max_length=8, blank=True, default="")
    # In person: the entered result, who entered it and who confirmed it (the scores of
    # the entry that stands, or of the first of two different entries while disputed).
    result_status = models.CharField(max_length=10, choices=ResultStatus.choices, default="missing")
    result_scores = models.JSONField(null=True, blank=True)
    entered_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one_table_number")]

    def __str__(self) -> str:
        return f"table {self.number} of {self.round}"

    def entrant_ids(self) -> list[int | None]:
        return [s["entrant"] for s in sorted(self.seats, key=lambda s: s["seat"])]


class Result(models.Model):
    """How a round went for one entrant: a table (rank, game score, points) or a bye."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="results")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="results")
    table = models.ForeignKey(
        TournamentTable, null=True, blank=True, on_delete=models.CASCADE, related_name="results"
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.IntegerField(default=0)
    points = models.FloatField()
    bye = models.BooleanField(default=False)
    # A duplicate tournament: the game score minus the mean score of the same seat at the
    # round's other tables (0 for a bye, or a round of one table).
    duplicate_score = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "entrant"], name="one_result_per_round")
        ]

    def __str__(self) -> str:
        return f"{self.entrant} in {self.round}: {self.points}"


class ForbiddenPair(models.Model):
    """Two players who must not share a table while that can be avoided (a household)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="forbidden_pairs"
    )
    first = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "first", "second"], name="one_row_per_forbidden_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.first} / {self.second}"


class AuditEntry(models.Model):
    """An organiser's action (or the system's, with no actor) on a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="audit")
    actor = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=40)
    details = models.JSONField(default=dict)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id} on {self.tournament_id}"
