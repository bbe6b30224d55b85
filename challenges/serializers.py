"""Input validation and documented output shapes of the challenges API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.strict import INT64_MAX, StrictSerializer
from challenges.services import MAX_EXPIRES_IN
from games.serializers import MAX_SEAT, RulesField


class ChallengeCreateSerializer(StrictSerializer):
    to = serializers.ListField(
        child=serializers.CharField(max_length=150),
        min_length=1,
        max_length=MAX_SEAT,
        required=False,
        help_text="the others' usernames (people, bot accounts, or house:random, "
        "house:heuristic, house:strong for a seat nobody answers for), in seat order "
        "after the challenger",
    )
    rules = RulesField(required=False, help_text='default "classic"')
    rated = serializers.BooleanField(required=False, help_text="default true")
    move_seconds = serializers.IntegerField(
        min_value=1, max_value=86400, required=False, help_text="default 60"
    )
    expires_in = serializers.IntegerField(
        min_value=1,
        max_value=MAX_EXPIRES_IN,
        required=False,
        help_text="seconds the challenge waits for its answers (default 300)",
    )
    rematch_of = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        help_text="a finished game of the caller's: challenge its seats again, instead of 'to'",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "rematch_of" in attrs:
            copied = sorted({"to", "rules", "rated", "move_seconds"} & set(attrs))
            if copied:
                raise serializers.ValidationError(
                    {name: ["A rematch copies this from the game."] for name in copied}
                )
        elif "to" not in attrs:
            raise serializers.ValidationError({"to": ["Name who you challenge (or rematch_of)."]})
        return attrs


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
    seats = ChallengeSeatSerializer(many=True)
