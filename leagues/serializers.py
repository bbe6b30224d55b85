"""Input validation and documented output shapes of the leagues API (docs/clubs.md)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.strict import StrictSerializer
from leagues.models import League
from ratings.api import LeaderboardEntrySerializer
from tournaments.serializers import TournamentSerializer


class LeagueSettingsSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100)
    scoring = serializers.ChoiceField(
        League.Scoring.choices,
        help_text="sum: every night's points; best: each player's best `best` nights",
    )
    best = serializers.IntegerField(
        min_value=1, max_value=1000, required=False, allow_null=True, default=None
    )


class NightInputSerializer(StrictSerializer):
    tournament = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="the id of one of the club's tournaments"
    )


# --- Output ---------------------------------------------------------------------------------


class ClubLeaderboardEntrySerializer(LeaderboardEntrySerializer):
    """A member in the club's leaderboard: the site's entry, ranked among the members."""


class ClubTournamentSerializer(TournamentSerializer):
    """A tournament of a club, as the tournaments' list shows it."""


class LeagueSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    club = serializers.CharField()
    name = serializers.CharField()
    scoring = serializers.CharField(help_text="sum or best")
    best = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class NightSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField(help_text="the tournament's: registering, running, finished")
    added_at = serializers.DateTimeField()


class LeagueStandingSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    points = serializers.FloatField(help_text="tournament points, summed as the league scores")
    nights_played = serializers.IntegerField()
    rank = serializers.IntegerField(help_text="equal points share a rank")


class LeagueDetailSerializer(LeagueSerializer):
    nights = NightSerializer(many=True)
    standings = LeagueStandingSerializer(many=True)
