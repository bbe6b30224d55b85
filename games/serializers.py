"""Input validation and documented output shapes of the games API: tables, games, histories."""

from __future__ import annotations

import threading
from typing import Any

from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from api.strict import INT32_MAX, INT64_MAX, StrictSerializer
from games.engine import CALLS, OPTIONS, PRESETS, IllegalAction
from games.engine.actions import action_from_dict
from games.engine.rules import OPTION_CHOICES, OPTION_INT_MAX
from games.errors import IllegalMove

#: The highest seat number of any preset's table (four-handed: 0..3).
MAX_SEAT = max(rules.players for rules in PRESETS.values()) - 1
#: The most cards a seat ever holds (a hand and the kitty): no action moves more.
MAX_HELD = max(rules.hand_size + rules.kitty_size for rules in PRESETS.values())


def rules_schema(presets: list[str]) -> dict[str, Any]:
    """One of ``presets``, or an object of one and options (docs/rules.md "Options")."""
    preset = {"type": "string", "enum": presets}

    def count(low: int) -> dict[str, Any]:
        return {"type": "integer", "minimum": low, "maximum": OPTION_INT_MAX, "nullable": True}

    options: dict[str, Any] = {
        **{name: {"type": "string", "enum": list(v)} for name, v in OPTION_CHOICES.items()},
        "exchange_cap": count(0),
        "exchange_before_trump": {"type": "boolean"},
        "max_hands": count(1),
        "target_score": count(1),
        "deal_packet": {"type": "integer", "enum": [1, 4]},
    }
    assert set(options) == set(OPTIONS), "every option of the engine, and no other"
    return {
        "oneOf": [
            preset,
            {
                "type": "object",
                "properties": {"preset": preset, **options},
                "required": ["preset"],
                "additionalProperties": False,
            },
        ]
    }


@extend_schema_field(rules_schema(list(PRESETS)))
class RulesField(serializers.JSONField):
    """A preset name (``"classic"``) or ``{"preset": NAME, ...options}``; the engine checks it."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str | dict):
            raise serializers.ValidationError("A preset name or an object with a 'preset'.")
        return data


def _seat(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=MAX_SEAT, **kwargs)


class TableCreateSerializer(StrictSerializer):
    rules = RulesField(required=False, help_text='default "classic"; a duplicate_of game\'s rules')
    rated = serializers.BooleanField(default=True)
    move_seconds = serializers.IntegerField(min_value=1, max_value=86400, default=60)
    seat = _seat(allow_null=True, default=0)
    duplicate_of = serializers.IntegerField(
        min_value=1,
        max_value=INT64_MAX,
        required=False,
        help_text="a finished game whose deals this table's game replays (duplicate play)",
    )


class SeatChoiceSerializer(StrictSerializer):
    seat = _seat(required=False, allow_null=True, default=None)


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
    duplicate_of = serializers.IntegerField(allow_null=True)


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
    duplicate_of = serializers.IntegerField(allow_null=True)
    your_hand = serializers.ListField(child=serializers.CharField(), required=False)
    legal_actions = serializers.ListField(child=serializers.DictField(), required=False)
    current_trick = serializers.ListField(child=serializers.DictField())
    tricks = serializers.ListField(child=serializers.IntegerField())
    scores = serializers.ListField(child=serializers.IntegerField())
    hand_cards_left = serializers.ListField(child=serializers.IntegerField())
    result = serializers.JSONField(allow_null=True)
    seed_commitment = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        help_text="SHA-256 (hex) of the game's secret seed, shown from the start; the seed "
        "is in the record after the end",
    )


class VerificationSerializer(serializers.Serializer[Any]):
    """``GET /games/{id}/verify``: the record checked against its seed."""

    ok = serializers.BooleanField(help_text="the commitment, every deal and every outcome check")
    commitment_matches = serializers.BooleanField(
        help_text="seed_commitment is SHA-256 of the seed"
    )
    deals_match = serializers.BooleanField(
        help_text="the first dealer and every deal are those the seed gives"
    )
    outcomes_match = serializers.BooleanField(
        help_text="every hand's tricks and score, the scores, winner, ranks and cards left the "
        "record states are what its actions give"
    )
    signature_valid = serializers.BooleanField(
        help_text="the record carries the server's signature of its content, by the key of "
        "GET /records/key (checked with the cryptography package, games.record_check)"
    )
    reason = serializers.CharField(allow_null=True, help_text="the first problem, or null")
    problems = serializers.ListField(child=serializers.CharField(), help_text="every problem")


class RecordKeySerializer(serializers.Serializer[Any]):
    """``GET /records/key``: the public key the records are signed with."""

    algorithm = serializers.ChoiceField(choices=["Ed25519"])
    public_key = serializers.RegexField(
        r"^[0-9a-f]{64}$", help_text="the key's 32 bytes, in lowercase hex"
    )
    key_id = serializers.RegexField(
        r"^[0-9a-f]{16}$",
        help_text="the first 16 hex digits of SHA-256 of the key's bytes, as signatures name it",
    )
    public_key_pem = serializers.CharField(help_text="the same key, PEM (SubjectPublicKeyInfo)")


# --- Actions: one shape per type (docs/replay.md); the engine judges whether it is legal now --


def _card() -> serializers.RegexField:
    return serializers.RegexField(
        r"^[2-9TJQKA][CDHS]$", max_length=2, help_text="a card: rank 2-9 T J Q K A, suit C D H S"
    )


def _cards(max_length: int) -> serializers.ListField:
    return serializers.ListField(child=_card(), max_length=max_length)


def _type_field(name: str) -> serializers.ChoiceField:
    return serializers.ChoiceField([name], help_text=f"{name!r}: this kind of action")


class _ActionSerializer(StrictSerializer):
    expected_version = serializers.IntegerField(
        min_value=0,
        max_value=INT32_MAX,
        required=False,
        allow_null=True,
        help_text="the game version the action is meant for (409 version_conflict if stale)",
    )


class PlayActionSerializer(_ActionSerializer):
    type = _type_field("play")
    card = _card()


class TrumpActionSerializer(_ActionSerializer):
    type = _type_field("trump")
    suit = serializers.ChoiceField(list(CALLS), help_text="C D H S; NT and MIZ in `calls`")


class DiscardActionSerializer(_ActionSerializer):
    type = _type_field("discard")
    cards = _cards(MAX_HELD)


class GiveActionSerializer(_ActionSerializer):
    type = _type_field("give")
    to = serializers.IntegerField(min_value=0, max_value=MAX_SEAT, help_text="the seat given to")
    cards = _cards(MAX_HELD)


class BidActionSerializer(_ActionSerializer):
    type = _type_field("bid")
    tricks = serializers.IntegerField(min_value=0, max_value=INT32_MAX)


class PassActionSerializer(_ActionSerializer):
    type = _type_field("pass")


class SwapActionSerializer(_ActionSerializer):
    type = _type_field("swap")
    card = _card()


class NoSwapActionSerializer(_ActionSerializer):
    type = _type_field("no_swap")


ACTION_SERIALIZERS: dict[str, type[_ActionSerializer]] = {
    "play": PlayActionSerializer,
    "trump": TrumpActionSerializer,
    "discard": DiscardActionSerializer,
    "give": GiveActionSerializer,
    "bid": BidActionSerializer,
    "pass": PassActionSerializer,
    "swap": SwapActionSerializer,
    "no_swap": NoSwapActionSerializer,
}

#: The documented body of ``POST /games/{id}/actions``: one of the types, told by ``type``.
ActionSerializer = PolymorphicProxySerializer(
    component_name="Action",
    serializers={name: serializer() for name, serializer in ACTION_SERIALIZERS.items()},
    resource_type_field_name="type",
)

ACTION_EXAMPLES = [
    OpenApiExample(name, value=value, request_only=True)
    for name, value in {
        "play": {"type": "play", "card": "TD", "expected_version": 12},
        "trump": {"type": "trump", "suit": "H"},
        "discard": {"type": "discard", "cards": ["2C", "3C", "7D", "9S"]},
        "give": {"type": "give", "to": 1, "cards": ["AS", "KD"]},
        "bid": {"type": "bid", "tricks": 9},
        "pass": {"type": "pass"},
        "swap": {"type": "swap", "card": "7C"},
        "no_swap": {"type": "no_swap"},
    }.items()
]


_validators = threading.local()


def _action_validator(kind: str) -> _ActionSerializer | None:
    """This thread's serializer of actions of type ``kind`` (None: no such type).

    One instance per type and thread, used for its ``run_validation`` only (which keeps
    nothing of a call on the instance): a new serializer per move made the REST framework
    deep-copy and bind its declared fields again every time, a large part of the body's
    validation CPU."""
    serializer_class = ACTION_SERIALIZERS.get(kind)
    if serializer_class is None:
        return None
    made: dict[str, _ActionSerializer] = _validators.__dict__.setdefault("made", {})
    serializer = made.get(kind)
    if serializer is None:
        serializer = made[kind] = serializer_class()
    return serializer


def valid_action(body: Any) -> tuple[dict[str, Any], int | None]:
    """The action of a request body and its ``expected_version``.

    A body of the wrong shape is refused with its fields named: with the engine's
    ``illegal_action`` reason (docs/replay.md) when the engine would refuse the action's
    shape too, else (a field the type does not take, an ``expected_version`` that is not a
    version) with ``invalid``.
    """
    if not isinstance(body, dict):
        raise serializers.ValidationError(
            {"non_field_errors": ["Must be a JSON object."]}, code="invalid"
        )
    action = {name: value for name, value in body.items() if name != "expected_version"}
    kind = body.get("type")
    serializer = _action_validator(kind) if isinstance(kind, str) else None
    if serializer is None:
        fields: Any = {"type": [f"Must be one of: {', '.join(ACTION_SERIALIZERS)}."]}
    else:
        try:
            # What ``is_valid()`` runs, and its ``errors`` are this detail.
            validated = serializer.run_validation(body)
        except serializers.ValidationError as error:
            fields = error.detail
        else:
            return action, validated.get("expected_version")
    try:
        action_from_dict(action)
    except IllegalAction as error:
        raise IllegalMove(str(error), reason=error.code, fields=fields) from None
    raise serializers.ValidationError(fields)


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
