"""Input validation and documented output shapes of the tournaments API (docs/api.md)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.services import HOUSE_BOTS
from api.strict import StrictSerializer
from games.engine import PRESETS
from games.serializers import RulesField, rules_schema
from tournaments.models import Tournament, TournamentTable

#: The largest rating limit accepted (ratings, mu - 3 sigma, are on a scale around 25). An
#: unbounded one was stored in the audit log as an integer the JSON encoder refused, and the
#: tournament's page answered 500 from then on.
RATING_LIMIT_BOUND = 1000.0


@extend_schema_field(rules_schema([name for name, r in PRESETS.items() if r.players == 3]))
class TournamentRulesField(RulesField):
    """A tournament's rules: those of a preset whose tables seat three."""


@extend_schema_field({"type": "string", "enum": list(HOUSE_BOTS)})
class HouseBotField(serializers.CharField):
    """A house bot's name, listed as an enum in the schema. A text, not a choice, for the
    service's refusal of another name: 400 ``unknown_bot`` with the house bots as ``known``,
    as for a house bot entered by name (docs/tournaments.md)."""


class TournamentSettingsSerializer(StrictSerializer):
    """Create (``POST /tournaments``) or change before the start (``PATCH``)."""

    name = serializers.CharField(max_length=100)
    rules = TournamentRulesField(
        default="classic", help_text="a preset name or {preset, ...options}"
    )
    format = serializers.ChoiceField(Tournament.Format.choices)
    rounds = serializers.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        allow_null=True,
        default=None,
        help_text="swiss and round_robin (a default from the entrants if omitted); "
        "a knockout takes as many as it needs",
    )
    hands_per_game = serializers.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        allow_null=True,
        default=3,
        help_text="the games' max_hands (3: each player deals once); null: the preset's end",
    )
    move_seconds = serializers.IntegerField(min_value=1, max_value=86400, default=60)
    round_minutes = serializers.IntegerField(
        min_value=1, max_value=10080, default=60, help_text="each round's deadline"
    )
    starts_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    rated = serializers.BooleanField(default=True)
    max_players = serializers.IntegerField(
        min_value=3, max_value=100000, required=False, allow_null=True, default=None
    )
    min_rating = serializers.FloatField(
        min_value=-RATING_LIMIT_BOUND,
        max_value=RATING_LIMIT_BOUND,
        required=False,
        allow_null=True,
        default=None,
    )
    max_rating = serializers.FloatField(
        min_value=-RATING_LIMIT_BOUND,
        max_value=RATING_LIMIT_BOUND,
        required=False,
        allow_null=True,
        default=None,
    )
    humans_allowed = serializers.BooleanField(default=True)
    bots_allowed = serializers.BooleanField(default=True)
    odd_count = serializers.ChoiceField(
        Tournament.OddCount.choices,
        default="fillers",
        help_text="players not filling tables of three: filler house bots, or byes",
    )
    filler_bot = HouseBotField(
        max_length=30, default="house:random", help_text="the house bot that fills empty seats"
    )
    points_by_rank = serializers.ListField(
        child=serializers.FloatField(min_value=-1000, max_value=1000),
        min_length=3,
        max_length=3,
        default=[3, 1, 0],
        help_text="tournament points for table ranks 1, 2, 3 (ties share)",
    )
    advance_per_table = serializers.IntegerField(
        min_value=1, max_value=2, default=1, help_text="knockout: how many go through per table"
    )
    club = serializers.SlugField(
        max_length=50,
        required=False,
        allow_null=True,
        help_text="a club's slug (its admins only): only its members may enter; null: none",
    )
    duplicate = serializers.BooleanField(
        default=False,
        help_text="duplicate play (swiss, round robin): every table of a round is dealt the same "
        "deals; standings rank by duplicate_score",
    )
    venue = serializers.ChoiceField(
        Tournament.Venue.choices,
        default="online",
        help_text="online games, or in_person: real cards at real tables, each table's result "
        "entered through the API (odd counts then always sit out: byes)",
    )


class UsernameSerializer(StrictSerializer):
    player = serializers.CharField(
        max_length=150, help_text='a username, a bot account, or "house:random|heuristic|strong"'
    )


class EntrySerializer(StrictSerializer):
    """``register`` and ``decline``: the caller itself (no body, ``{}``), or a bot account the
    caller owns."""

    player = serializers.CharField(
        max_length=150,
        required=False,
        help_text="a bot account of the caller's (its owner answers its invitation); "
        "left out: the caller",
    )


class OrganiserSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150)


class ForbiddenPairInputSerializer(StrictSerializer):
    players = serializers.ListField(
        child=serializers.CharField(max_length=150), min_length=2, max_length=2
    )


# --- Output ---------------------------------------------------------------------------------


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(Tournament.Format.choices)
    # Plain text with the values listed: enum names of "status" collide in the schema.
    status = serializers.CharField(help_text="registering, running or finished")
    rules = serializers.JSONField()
    round_count = serializers.IntegerField(
        allow_null=True, help_text="rounds to play (a knockout: null, as many as it takes)"
    )
    current_round = serializers.IntegerField()
    hands_per_game = serializers.IntegerField(allow_null=True)
    move_seconds = serializers.IntegerField()
    round_minutes = serializers.IntegerField()
    starts_at = serializers.DateTimeField(allow_null=True)
    rated = serializers.BooleanField()
    max_players = serializers.IntegerField(allow_null=True)
    min_rating = serializers.FloatField(allow_null=True)
    max_rating = serializers.FloatField(allow_null=True)
    humans_allowed = serializers.BooleanField()
    bots_allowed = serializers.BooleanField()
    odd_count = serializers.ChoiceField(Tournament.OddCount.choices)
    filler_bot = serializers.CharField()
    points_by_rank = serializers.ListField(child=serializers.FloatField())
    advance_per_table = serializers.IntegerField()
    duplicate = serializers.BooleanField()
    club = serializers.CharField(allow_null=True, help_text="the club's slug, or null")
    venue = serializers.ChoiceField(Tournament.Venue.choices)
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    entrant_count = serializers.IntegerField()
    version = serializers.IntegerField(
        help_text="moves on with every change of the tournament: `after` of its live stream"
    )


class EntrantSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(help_text='the account, or "house:random #2" for house bots')
    account = serializers.CharField()
    is_bot = serializers.BooleanField()
    status = serializers.CharField(help_text="active, withdrawn or eliminated")
    rating = serializers.FloatField(
        allow_null=True, help_text="the ordinal (mu - 3 sigma) seeded on, at the start"
    )
    display_rating = serializers.IntegerField(
        allow_null=True, help_text="`rating` as pages show it (docs/ratings.md)"
    )
    seed = serializers.IntegerField(allow_null=True)


class InvitationSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField()
    player = serializers.CharField(help_text="the account invited: a person or a bot account")
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(help_text="who answers: the person, or the bot account's owner")
    invited_by = serializers.CharField(allow_null=True)
    status = serializers.CharField(help_text="pending, accepted, declined, cancelled or lapsed")
    created_at = serializers.DateTimeField()


class StandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    status = serializers.CharField(help_text="the entrant's: active, withdrawn or eliminated")
    points = serializers.FloatField()
    duplicate_score = serializers.FloatField(
        allow_null=True,
        help_text="a duplicate tournament's ranking: the sum over the rounds of the game score "
        "minus the mean score of the same seat at the round's other tables (else null)",
    )
    stakes = serializers.IntegerField(help_text="tiebreak 1: total game score")
    opponents_points = serializers.FloatField(help_text="tiebreak 2: table-mates' points")
    head_to_head = serializers.IntegerField(help_text="tiebreak 3: among the tied")
    games = serializers.IntegerField()
    byes = serializers.IntegerField()
    round_points = serializers.FloatField(required=False, allow_null=True)
    eliminated_in_round = serializers.IntegerField(required=False, allow_null=True)


class TableSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    username = serializers.CharField()
    filler = serializers.BooleanField()
    rank = serializers.IntegerField(required=False)
    score = serializers.IntegerField(required=False)


class TableResultSerializer(serializers.Serializer[Any]):
    """An in-person table's entered result."""

    status = serializers.ChoiceField(TournamentTable.ResultStatus.choices)
    scores = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="the game scores in seat order (while disputed: the first entry's)",
    )
    entered_by = serializers.CharField(allow_null=True)
    confirmed_by = serializers.CharField(allow_null=True)


class ScoresSerializer(StrictSerializer):
    scores = serializers.ListField(
        child=serializers.IntegerField(min_value=-100000, max_value=100000),
        min_length=1,
        max_length=10,
        help_text="the game scores of the table's seats, in seat order (they sum to zero)",
    )


class RoundTableSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    table = serializers.IntegerField(allow_null=True, help_text="null at an in-person night")
    game = serializers.IntegerField(allow_null=True, help_text="null at an in-person night")
    code = serializers.CharField(
        help_text="short, unique within the tournament: names the table in its result's path"
    )
    status = serializers.CharField(help_text="playing or finished")
    adjudicated = serializers.BooleanField()
    seats = TableSeatSerializer(many=True)
    result = TableResultSerializer(allow_null=True, help_text="in person: the entered result")


class TableDetailSerializer(RoundTableSerializer):
    round = serializers.IntegerField()


class RoundSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    status = serializers.CharField(help_text="playing or finished")
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    byes = serializers.ListField(child=serializers.CharField())
    tables = RoundTableSerializer(many=True)


class RoundDetailSerializer(RoundSerializer):
    standings = StandingSerializer(many=True, allow_null=True)


class AuditEntrySerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)
    action = serializers.CharField()
    details = serializers.JSONField()


class ForbiddenPairSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())


class TournamentDetailSerializer(TournamentSerializer):
    organisers = serializers.ListField(child=serializers.CharField())
    players = EntrantSerializer(many=True)
    invitations = InvitationSerializer(
        many=True,
        help_text="pending invitations: all of them to an organiser, to anyone else those "
        "they answer (their own, their bots'), none without a token",
    )
    forbidden_pairs = ForbiddenPairSerializer(many=True)
    rounds = RoundSerializer(many=True)
    standings = StandingSerializer(many=True)
    audit = AuditEntrySerializer(many=True)


class OrganisersSerializer(serializers.Serializer[Any]):
    organisers = serializers.ListField(child=serializers.CharField())
