"""The API of what a club reads from the apps above clubs (docs/clubs.md): its leaderboard,
its tournaments and its leagues. Views
validate, call one service or selector, and shape the answer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import caller, require_scope
from accounts.models import ApiToken
from api.pagination import paginate, paginated
from api.requests import choice_param, valid
from api.schema import ERROR
from clubs.selectors import club
from leagues import selectors, services
from leagues.serializers import (
    ClubLeaderboardEntrySerializer,
    ClubTournamentSerializer,
    LeagueDetailSerializer,
    LeagueSerializer,
    LeagueSettingsSerializer,
    NightInputSerializer,
)
from ratings.api import POOL_PARAMETER
from ratings.selectors import LISTS

CanOrganise = require_scope(ApiToken.Scope.ORGANISE)


def _league(slug: str, league_id: int, status: int = 200) -> Response:
    found = selectors.league(club(slug), league_id)
    return Response(selectors.league_detail(found), status=status)


class LeaderboardView(APIView):
    @extend_schema(
        operation_id="clubs_leaderboard",
        parameters=[
            POOL_PARAMETER,
            OpenApiParameter("list", str, enum=list(LISTS), default="ranked"),
        ],
        responses={200: paginated(ClubLeaderboardEntrySerializer), 400: ERROR, 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        """A club's leaderboard.

        Its members in the site's leaderboard of the pool (`GET /ratings`, the same lists),
        ranked among themselves, paginated.
        """
        found = club(slug)
        which = choice_param(request, "list", LISTS) or "ranked"
        rows = selectors.club_leaderboard(found, pool=request.query_params.get("pool"), which=which)
        return paginate(self, request, rows)


class ClubTournamentsView(APIView):
    @extend_schema(
        operation_id="clubs_tournaments",
        responses={200: paginated(ClubTournamentSerializer), 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        """A club's tournaments.

        Those naming the club (`club`), newest first, paginated.
        """
        rows = selectors.club_tournaments(club(slug))
        return paginate(self, request, rows, shown=selectors.tournaments_shown)


class LeaguesView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="clubs_leagues_list",
        responses={200: paginated(LeagueSerializer), 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        """A club's leagues.

        Newest first, paginated.
        """
        rows = selectors.leagues_of(club(slug))
        return paginate(self, request, rows, shown=selectors.leagues_shown)

    @extend_schema(
        operation_id="clubs_leagues_create",
        request=LeagueSettingsSerializer,
        responses={201: LeagueDetailSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, slug: str) -> Response:
        """Create a league.

        The club's owner or an admin: `scoring` `sum` (every night's points) or `best` with
        `best` N (each player's best N nights) → 201 the league.
        """
        data = valid(LeagueSettingsSerializer, request.data)
        created = services.create_league(
            caller(request),
            slug=slug,
            name=data["name"],
            scoring=data["scoring"],
            best=data["best"],
        )
        return _league(slug, created.pk, 201)


class LeagueView(APIView):
    @extend_schema(
        operation_id="clubs_leagues_get",
        responses={200: LeagueDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, slug: str, league_id: int) -> Response:
        """A league.

        Its nights, in the order they were added, and its standings `[{username, points,
        nights_played, rank}]`: each night's points are its tournament's standings points
        (a night counts once begun); equal points share a rank.
        """
        return _league(slug, league_id)


class LeagueNightsView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_leagues_add_night",
        request=NightInputSerializer,
        responses={
            201: LeagueDetailSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request, slug: str, league_id: int) -> Response:
        """Add a night to a league.

        The club's owner or an admin adds one of the club's tournaments → 201 the league; 409
        `not_a_club_tournament`, `already_a_night`.
        """
        tournament_id = valid(NightInputSerializer, request.data)["tournament"]
        services.add_night(
            caller(request), slug=slug, league_id=league_id, tournament_id=tournament_id
        )
        return _league(slug, league_id, 201)
