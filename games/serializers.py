"""Input validation and documented output shapes of the games API: tables, games, histories."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class RulesField(serializers.JSONField):
    """A preset name (``"classic"``) or ``{"preset": NAME, ...options}``; the engine checks it."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str | dict):
            raise serializers.ValidationError("A preset name or an object with a 'preset'.")
        return data


class TableCreateSerializer(serializers.Serializer[Any]):
    rules = RulesField(default="classic")
    rated = serializers.BooleanField(default=True)
    move_seconds = serializers.IntegerField(min_value=1, max_value=86400, default=60)
    seat = serializers.IntegerField(min_value=0, allow_null=True, default=0)


class SeatChoiceSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=0, required=False, allow_null=True, default=None)


class SeatBotSerializer(SeatChoiceSerializer):
    bot = serializers.CharField(
        max_length=150,
        help_text="house:random, house:heuristic, "
        "house:strong, or the username of a bot account you own",
    )


class SeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    username = serializers.CharField(allow_null=True)
    is_bot = serializers.BooleanField()


class TableSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(["open", "playing", "finished"])
    rules = serializers.JSONField()
    rated = serializers.BooleanField()
    move_seconds = serializers.IntegerField()
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    seats = SeatSerializer(many=True)
    game = serializers.IntegerField(allow_null=True)


class GameViewSerializer(serializers.Serializer[Any]):
    """A game as the caller may see it (more fields than listed: see the engine's view)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(["playing", "finished"])
    rules = serializers.JSONField()
    version = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    hand_number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    targets = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    trump = serializers.CharField(allow_null=True)
    phase = serializers.CharField()
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    your_seat = serializers.IntegerField(allow_null=True)
    your_hand = serializers.ListField(child=serializers.CharField(), required=False)
    legal_actions = serializers.ListField(child=serializers.DictField(), required=False)
    current_trick = serializers.ListField(child=serializers.DictField())
    tricks = serializers.ListField(child=serializers.IntegerField())
    scores = serializers.ListField(child=serializers.IntegerField())
    hand_cards_left = serializers.ListField(child=serializers.IntegerField())
    result = serializers.JSONField(allow_null=True)


class ActionSerializer(serializers.Serializer[Any]):
    """``{type, ...action fields, expected_version?}``; the engine judges the action."""

    type = serializers.CharField(help_text="play, trump, discard, give, bid, pass, swap, no_swap")
    expected_version = serializers.IntegerField(required=False, allow_null=True)


class EventsSerializer(serializers.Serializer[Any]):
    events = serializers.ListField(child=serializers.DictField())
    version = serializers.IntegerField()
    last_seq = serializers.IntegerField()
    status = serializers.CharField()


class HistoryEntrySerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    rules = serializers.JSONField()
    rated = serializers.BooleanField()
    seat = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.DictField())
    rank = serializers.IntegerField()
    score = serializers.IntegerField()
    result = serializers.ChoiceField(["win", "shared", "loss"])
    rating_change = serializers.JSONField(allow_null=True)


class ProfileSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True)
    joined = serializers.DateTimeField()
    games_played = serializers.IntegerField()
    games_won = serializers.IntegerField()
    games_in_progress = serializers.IntegerField()
    ratings = serializers.JSONField(required=False)
