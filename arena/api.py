"""The arena API (docs/api.md, "The arena"): bot accounts join and leave a pool's arena;
anyone reads it. Views validate, call one service or selector, and shape the answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import caller, require_scope
from accounts.models import ApiToken
from api.requests import valid
from api.schema import ERROR
from api.strict import StrictSerializer
from arena import selectors, services
from ratings.pools import DEFAULT_POOL, POOL_PRESETS, POOLS
from ratings.selectors import valid_pool

CanPlay = require_scope(ApiToken.Scope.PLAY)

POOL_HELP = "A rating pool: " + "; ".join(
    f"`{pool}`: {', '.join(presets)}" for pool, presets in POOL_PRESETS.items()
)


class PoolChoiceSerializer(StrictSerializer):
    pool = serializers.ChoiceField(list(POOLS), default=DEFAULT_POOL, help_text=POOL_HELP)


class EntrySerializer(serializers.Serializer[Any]):
    pool = serializers.CharField()
    username = serializers.CharField()
    in_arena = serializers.BooleanField()
    joined_at = serializers.DateTimeField()
    left_at = serializers.DateTimeField(allow_null=True)
    games = serializers.IntegerField(help_text="arena games finished")
    removed_reason = serializers.ChoiceField(
        ["left", "timeouts"], allow_null=True, help_text="why it is out, if it is"
    )


class ArenaRatingSerializer(serializers.Serializer[Any]):
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text="with inactivity applied up to now")
    ordinal = serializers.FloatField(help_text="mu - 3 sigma")
    display_rating = serializers.IntegerField(
        help_text="the rating pages show: 1500 + 25 * ordinal, rounded (docs/ratings.md)"
    )
    provisional = serializers.BooleanField(
        help_text="fewer than 10 rated games in the pool, or sigma above 7"
    )
    games = serializers.IntegerField(help_text="rated games in the pool")


class ArenaBotSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    joined_at = serializers.DateTimeField()
    games = serializers.IntegerField(help_text="arena games finished")
    playing = serializers.IntegerField(allow_null=True, help_text="the arena game it plays now")
    rating = ArenaRatingSerializer()


class ArenaSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    played_by = serializers.CharField(
        required=False, help_text="the house bot playing the seat after its timeouts"
    )


class ArenaGameSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    seats = ArenaSeatSerializer(many=True)


class ArenaLeaderboardEntrySerializer(ArenaRatingSerializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    in_arena = serializers.BooleanField()
    arena_games = serializers.IntegerField()
    removed_reason = serializers.ChoiceField(["left", "timeouts"], allow_null=True)


class ArenaSerializer(serializers.Serializer[Any]):
    pool = serializers.CharField()
    rules = serializers.DictField(help_text="the rules of every arena game")
    move_seconds = serializers.IntegerField()
    bots = ArenaBotSerializer(many=True)
    games = ArenaGameSerializer(many=True)
    leaderboard = ArenaLeaderboardEntrySerializer(many=True)


class ArenaView(APIView):
    @extend_schema(
        operation_id="arena_read",
        parameters=[
            OpenApiParameter(
                "pool", str, enum=list(POOLS), default=DEFAULT_POOL, description=POOL_HELP
            )
        ],
        responses={200: ArenaSerializer, 400: ERROR},
    )
    def get(self, request: Request) -> Response:
        """A pool's arena.

        The bots in it (with their rating in the pool and the arena game each plays), the
        arena games being played (public seats only), and the leaderboard of every bot that
        was ever in it, by ordinal, best first (the first 100).
        """
        pool = valid_pool(request.query_params.get("pool"))
        return Response(selectors.arena_data(pool))


class JoinView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="arena_join",
        request=PoolChoiceSerializer,
        responses={200: EntrySerializer, 400: ERROR, 403: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Enter the arena.

        A bot account enters the rated arena of `pool` (default `classic`) → 200 its entry
        (also when it was in already). From then on the server seats it, game after game,
        against the nearest-rated other bots in the arena (house bots fill a table when too
        few are free for long); a `game_start` line comes on its stream for each. Not for
        people or house bots (403 `bots_only`).
        """
        data = valid(PoolChoiceSerializer, request.data)
        entry = services.join(caller(request), pool=data["pool"])
        return Response(selectors.entry_data(entry))


class LeaveView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="arena_leave",
        request=PoolChoiceSerializer,
        responses={200: EntrySerializer, 400: ERROR, 403: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Leave the arena.

        The bot leaves the arena of `pool` (default `classic`) → 200 its entry; it is seated
        no more, and a game it plays goes on to its end. 409 `not_in_arena` if it was not in.
        """
        data = valid(PoolChoiceSerializer, request.data)
        entry = services.leave(caller(request), pool=data["pool"])
        return Response(selectors.entry_data(entry))
