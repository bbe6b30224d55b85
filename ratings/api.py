"""The ratings API (docs/api.md, "Players, histories, ratings"): leaderboards, rating histories
and predictions. Profiles and match histories get their rating fields through the games
selectors' hooks (see :mod:`ratings.apps`)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.pagination import paginate, paginated
from api.requests import choice_param
from api.schema import ERROR
from ratings import selectors
from ratings.pools import DEFAULT_POOL, IN_PERSON_POOL, POOL_PRESETS, RATED_POOLS

POOL_PARAMETER = OpenApiParameter(
    "pool",
    str,
    enum=list(RATED_POOLS),
    default=DEFAULT_POOL,
    description="A rating pool: "
    + "; ".join(f"`{pool}`: {', '.join(presets)}" for pool, presets in POOL_PRESETS.items())
    + f"; `{IN_PERSON_POOL}`: games at real tables (in-person tournaments), any preset",
)


DISPLAY_HELP = (
    "the rating pages show: 1500 + 25 * ordinal, rounded (a newcomer's is 1500); docs/ratings.md"
)
PROVISIONAL_HELP = (
    "fewer than 10 rated games in the pool, or sigma above 7: pages show the display rating "
    "with `?` after it"
)


class CurrentRatingSerializer(serializers.Serializer[Any]):
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text="with inactivity applied up to now")
    ordinal = serializers.FloatField(help_text="mu - 3 sigma")
    display_rating = serializers.IntegerField(help_text=DISPLAY_HELP)
    games = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    inactive = serializers.BooleanField()
    last_played_at = serializers.DateTimeField(allow_null=True)


class LeaderboardEntrySerializer(CurrentRatingSerializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class RatingPointSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(
        allow_null=True, help_text="null for a game played at a real table (pool in_person)"
    )
    at = serializers.DateTimeField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()
    ordinal_change = serializers.FloatField()
    display_rating = serializers.IntegerField(help_text=DISPLAY_HELP)
    display_rating_change = serializers.IntegerField(
        help_text="display_rating minus the display rating before the game"
    )
    rank = serializers.IntegerField(help_text="the rank the rating used")


class PredictedPlayerSerializer(CurrentRatingSerializer):
    username = serializers.CharField()
    win_probability = serializers.FloatField()
    predicted_rank = serializers.IntegerField(
        help_text="1 for the likeliest winner (by win_probability; equal ones share a rank)"
    )
    rank_probability = serializers.FloatField(
        help_text="the probability that the player finishes in place predicted_rank"
    )


class PredictionSerializer(serializers.Serializer[Any]):
    pool = serializers.CharField()
    draw_probability = serializers.FloatField()
    players = PredictedPlayerSerializer(many=True)


class LeaderboardView(APIView):
    @extend_schema(
        operation_id="ratings_leaderboard",
        parameters=[
            POOL_PARAMETER,
            OpenApiParameter("list", str, enum=list(selectors.LISTS), default="ranked"),
        ],
        responses={200: paginated(LeaderboardEntrySerializer), 400: ERROR},
    )
    def get(self, request: Request) -> Response:
        """A pool's leaderboard.

        The pool's players by ordinal (mu - 3 sigma), best first, paginated. `list=ranked`
        (default): established players with a rated game in the last 90 days; `provisional`:
        active players whose rating is still provisional (fewer than 10 rated games in the pool,
        or sigma above 7); `inactive`: the others.
        """
        pool = selectors.valid_pool(request.query_params.get("pool"), known=RATED_POOLS)
        which = choice_param(request, "list", selectors.LISTS) or "ranked"
        return paginate(self, request, selectors.leaderboard(pool, which))


def _points(changes: list[Any]) -> list[dict[str, Any]]:
    return [selectors.history_point(change) for change in changes]


class PlayerRatingsView(APIView):
    @extend_schema(
        operation_id="players_ratings",
        parameters=[POOL_PARAMETER],
        responses={200: paginated(RatingPointSerializer), 400: ERROR, 404: ERROR},
    )
    def get(self, request: Request, username: str) -> Response:
        """A player's rating history in a pool.

        The player's rating after each rated game of the pool, oldest first, paginated: `{game,
        at, mu, sigma, ordinal, ordinal_change, display_rating, display_rating_change, rank}`.
        """
        pool = selectors.valid_pool(request.query_params.get("pool"), known=RATED_POOLS)
        rows = selectors.rating_history(username, pool=pool)
        return paginate(self, request, rows, shown=_points)


class PredictView(APIView):
    @extend_schema(
        operation_id="ratings_predict",
        parameters=[
            POOL_PARAMETER,
            OpenApiParameter(
                "players", str, required=True, description="comma-separated usernames, in seats"
            ),
        ],
        responses={200: PredictionSerializer, 400: ERROR, 404: ERROR},
    )
    def get(self, request: Request) -> Response:
        """The predicted outcome of a table.

        openskill's win probabilities for the `players` given (comma-separated, in seat order),
        from their current ratings (inactivity applied; a newcomer's rating for unrated
        players); each player's `predicted_rank` and `rank_probability`, the probability that
        it finishes in that place.
        """
        pool = selectors.valid_pool(request.query_params.get("pool"), known=RATED_POOLS)
        raw = request.query_params.get("players") or ""
        usernames = [name.strip() for name in raw.split(",") if name.strip()]
        return Response(selectors.prediction(pool, usernames))
