"""Input validation and documented output shapes of the games API (API.md)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.models import ApiToken

USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{2,29}$"


class RulesField(serializers.JSONField):
    """A preset name (``"classic"``) or ``{"preset": NAME, ...options}``; the engine checks it."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str | dict):
            raise serializers.ValidationError("A preset name or an object with a 'preset'.")
        return data


class RegisterSerializer(serializers.Serializer[Any]):
    username = serializers.RegexField(USERNAME_PATTERN, help_text="3-30 letters, digits, _ . -")
    password = serializers.CharField(write_only=True, min_length=8, max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, default="", max_length=254)


class LoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=200, write_only=True)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(ApiToken.Scope.choices), required=False, allow_empty=False
    )
    name = serializers.CharField(max_length=100, required=False, default="")


class NewTokenSerializer(serializers.Serializer[Any]):
    scopes = serializers.ListField(
        child=serializers.ChoiceField(ApiToken.Scope.choices), allow_empty=False
    )
    name = serializers.CharField(max_length=100, required=False, default="")


class AccountTokenSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class TokenInfoSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_prefix", "scopes", "created_at", "last_used_at"]


class MeSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True)
    email = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    bots = serializers.ListField(child=serializers.CharField())


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


def paginated(item: type[serializers.Serializer[Any]]) -> serializers.Serializer[Any]:
    """The documented shape of a paginated list of ``item``: {count, next, previous, results}."""
    from drf_spectacular.utils import inline_serializer

    name = item.__name__.removesuffix("Serializer")
    return inline_serializer(  # type: ignore[no-any-return]
        f"Paginated{name}List",
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
        },
    )
