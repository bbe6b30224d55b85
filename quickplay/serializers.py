"""Input and output shapes of the quick-play API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.strict import StrictSerializer
from games.serializers import RulesField

#: The bounds of a rating range's ends (ratings are mu values, about 25 for a newcomer).
RATING_BOUND = 1000.0
#: The longest wait a seek may ask before house bots fill its table (an hour).
MAX_HOUSE_BOTS_AFTER = 3600


class SeekCreateSerializer(StrictSerializer):
    rules = RulesField(default="classic")
    rated = serializers.BooleanField(default=True)
    move_seconds = serializers.IntegerField(min_value=1, max_value=86400, default=60)
    rating_range = serializers.ListField(
        child=serializers.FloatField(
            min_value=-RATING_BOUND, max_value=RATING_BOUND, allow_null=True
        ),
        min_length=2,
        max_length=2,
        required=False,
        allow_null=True,
        default=None,
        help_text="[min, max] of the others' ratings (mu in the rules' pool) accepted at the "
        "table; null or an end null: no bound",
    )
    house_bots_after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_HOUSE_BOTS_AFTER,
        required=False,
        allow_null=True,
        default=None,
        help_text="seconds after which the seats still empty are filled with house bots; "
        "null: wait for people",
    )


class SeekSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(["open", "seated", "canceled", "expired"])
    rules = serializers.JSONField()
    rated = serializers.BooleanField()
    move_seconds = serializers.IntegerField()
    rating = serializers.FloatField(help_text="the seeker's rating matched on (mu)")
    rating_range = serializers.ListField(
        child=serializers.FloatField(allow_null=True), allow_null=True
    )
    house_bots_after = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(
        help_text="when the seek leaves the queue if nobody has seated it (status expired)"
    )
    seated_at = serializers.DateTimeField(allow_null=True)
    game = serializers.IntegerField(allow_null=True, help_text="once seated")
    table = serializers.IntegerField(allow_null=True, help_text="once seated")
