"""Input validation and documented output shapes of the challenges API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from api.strict import INT64_MAX, StrictSerializer
from challenges.services import MAX_EXPIRES_IN
from games.serializers import MAX_SEAT, RulesField


def _expires_in() -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=1,
        max_value=MAX_EXPIRES_IN,
        required=False,
        help_text="seconds the challenge waits for its answers (default 300)",
    )


class ChallengeCreateSerializer(StrictSerializer):
    to = serializers.ListField(
        child=serializers.CharField(max_length=150),
        min_length=1,
        max_length=MAX_SEAT,
        help_text="the others' usernames (people, bot accounts, or house:random, "
        "house:heuristic, house:strong for a seat nobody answers for), in seat order "
        "after the challenger",
    )
    rules = RulesField(required=False, help_text='default "classic"; a duplicate_of game\'s rules')
    rated = serializers.BooleanField(required=False, help_text="default true")
    move_seconds = serializers.IntegerField(
        min_value=1, max_value=86400, required=False, help_text="default 60"
    )
    expires_in = _expires_in()
    duplicate_of = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        help_text="a finished game whose deals the game replays (duplicate play)",
    )


class RematchCreateSerializer(StrictSerializer):
    rematch_of = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        help_text="a finished game of the caller's: its seats are challenged again, with its "
        "rules, rating and move time",
    )
    expires_in = _expires_in()


#: The documented body of ``POST /challenges``: a challenge, or a rematch (told by its fields).
ChallengeOrRematchSerializer = PolymorphicProxySerializer(
    component_name="ChallengeCreateOrRematch",
    serializers=[ChallengeCreateSerializer, RematchCreateSerializer],
    resource_type_field_name=None,
)


def create_serializer(body: Any) -> type[StrictSerializer]:
    """Which input ``body`` is: a rematch if it names ``rematch_of``, else a challenge (each
    refuses the other's fields)."""
    if isinstance(body, Mapping) and "rematch_of" in body:
        return RematchCreateSerializer
    return ChallengeCreateSerializer


class ChallengeSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    answer = serializers.ChoiceField(["pending", "accepted", "declined"])


class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(["pending", "accepted", "declined", "canceled", "expired"])
    # "from" is a Python keyword: the field is declared through the class namespace.
    vars()["from"] = serializers.CharField(help_text="the challenger")
    to = serializers.ListField(child=serializers.CharField())
    rules = serializers.JSONField()
    rated = serializers.BooleanField()
    move_seconds = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True)
    expires_at = serializers.DateTimeField()
    created_at = serializers.DateTimeField()
    rematch_of = serializers.IntegerField(allow_null=True)
    duplicate_of = serializers.IntegerField(allow_null=True)
    seats = ChallengeSeatSerializer(many=True)
