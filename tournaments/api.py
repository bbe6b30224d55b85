"""The tournaments API (docs/api.md "Tournaments", plus rounds, tables, forbidden pairs,
adjudication, co-organisers and the audit log). Views validate, call one service or
selector, and shape the answer; organiser checks live in the services. The live stream
(``/tournaments/{id}/live``) is an async view that holds no thread while it waits; its
documentation comes from the REST framework class named in its ``cls`` attribute."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import authenticate_and_limit, caller, require_scope
from accounts.models import ApiToken, Player
from api.asyncviews import in_thread
from api.errors import error_response, method_not_allowed
from api.pagination import paginate, paginated
from api.requests import choice_param, int_param, no_body, resume_point, valid
from api.schema import ERROR, live_stream_parameters, live_stream_responses
from api.strict import INT32_MAX
from core.errors import DomainError, Invalid
from tournaments import live, selectors
from tournaments.models import Invitation
from tournaments.serializers import (
    AuditEntrySerializer,
    EntrantSerializer,
    EntrySerializer,
    ForbiddenPairInputSerializer,
    ForbiddenPairSerializer,
    InvitationSerializer,
    OrganiserSerializer,
    OrganisersSerializer,
    RoundDetailSerializer,
    ScoresSerializer,
    StandingSerializer,
    TableDetailSerializer,
    TableResultSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
    TournamentSettingsSerializer,
    UsernameSerializer,
)
from tournaments.services import entries, running, setup, table_results

CanPlay = require_scope(ApiToken.Scope.PLAY)
CanOrganise = require_scope(ApiToken.Scope.ORGANISE)
STATUSES = ("registering", "running", "finished")
#: The page fragments a live stream may carry (tournaments.live.FRAGMENTS).
LIVE_FRAGMENTS = ("live", "screen")
NO_CONTENT = OpenApiResponse(description="done")


def _detail(request: Request, tournament_id: int, status: int = 200) -> Response:
    viewer = request.user if isinstance(request.user, Player) else None
    return Response(selectors.tournament_detail(tournament_id, viewer), status=status)


def _summaries(tournaments: list[Any]) -> list[dict[str, Any]]:
    return [selectors.tournament_summary(t) for t in tournaments]


class TournamentsView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tournaments_list",
        parameters=[OpenApiParameter("status", str, enum=list(STATUSES))],
        responses={200: paginated(TournamentSerializer), 400: ERROR},
    )
    def get(self, request: Request) -> Response:
        """The tournaments.

        Newest first, paginated; `status` filters by `registering`, `running` or `finished`.
        """
        status = choice_param(request, "status", STATUSES)
        return paginate(self, request, selectors.tournaments(status), shown=_summaries)

    @extend_schema(
        operation_id="tournaments_create",
        request=TournamentSettingsSerializer,
        responses={201: TournamentDetailSerializer, 400: ERROR, 401: ERROR, 403: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a tournament.

        The caller organises it → 201 its detail (docs/tournaments.md has every setting).
        """
        data = valid(TournamentSettingsSerializer, request.data)
        tournament = setup.create_tournament(caller(request), values=data)
        return _detail(request, tournament.pk, 201)


class TournamentView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "PATCH" else []

    @extend_schema(
        operation_id="tournaments_retrieve",
        responses={200: TournamentDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament.

        Its settings, `organisers`, `players`, `invitations` (pending; all to an organiser,
        else those the caller answers), `forbidden_pairs`, `rounds` with their tables and games,
        `standings` and `audit`.
        """
        return _detail(request, tournament_id)

    @extend_schema(
        operation_id="tournaments_update",
        request=TournamentSettingsSerializer(partial=True),
        responses={200: TournamentDetailSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def patch(self, request: Request, tournament_id: int) -> Response:
        """Change a tournament's settings.

        An organiser, before the start → 200 its detail.
        """
        changes = valid(TournamentSettingsSerializer, request.data, partial=True)
        setup.update_tournament(caller(request), tournament_id=tournament_id, changes=changes)
        return _detail(request, tournament_id)


class RegisterView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tournaments_register",
        request=EntrySerializer,
        responses={201: EntrantSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Enter a tournament.

        The caller enters, or enters its bot account `player`, before the start; a pending
        invitation for that account is accepted (the kind and rating limits waived) → 201 the
        entrant.
        """
        data = valid(EntrySerializer, request.data)
        found = entries.register(
            caller(request), tournament_id=tournament_id, username=data.get("player")
        )
        return Response(selectors.entrant_data(found), status=201)


class DeclineView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tournaments_decline",
        request=EntrySerializer,
        responses={204: NO_CONTENT, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Decline an invitation.

        The caller declines its pending invitation, or that of its bot account `player` → 204;
        409 `not_invited`.
        """
        data = valid(EntrySerializer, request.data)
        entries.decline(caller(request), tournament_id=tournament_id, username=data.get("player"))
        return Response(status=204)


class WithdrawView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tournaments_withdraw",
        request=None,
        responses={204: NO_CONTENT, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Leave a tournament.

        The caller leaves before the start → 204.
        """
        no_body(request.data)
        entries.withdraw(caller(request), tournament_id=tournament_id)
        return Response(status=204)


class EntrantsView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tournaments_entrants_list",
        responses={200: paginated(EntrantSerializer), 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament's entrants.

        In the order they entered, paginated: `{username, account, is_bot, status, rating,
        seed}` (`username`: `house:random #2` for the second `house:random` entrant).
        """
        rows = selectors.entrants_of(tournament_id)
        return paginate(self, request, rows, shown=selectors.entrants_shown)

    @extend_schema(
        operation_id="tournaments_entrants_add",
        request=UsernameSerializer,
        responses={
            201: EntrantSerializer,
            202: InvitationSerializer,
            400: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Enter someone in a tournament.

        An organiser enters a house bot, themselves or a bot account of their own (`player`) →
        201 the entrant; another person or another owner's bot is invited → 202 the invitation
        (a `tournament_invite` line on the stream of the person or the bot's owner, who accepts
        with `register`).
        """
        data = valid(UsernameSerializer, request.data)
        added = entries.add_entrant(
            caller(request), tournament_id=tournament_id, username=data["player"]
        )
        if isinstance(added, Invitation):
            return Response(selectors.invitation_data(added), status=202)
        return Response(selectors.entrant_data(added), status=201)


class EntrantView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="tournaments_entrants_remove",
        responses={204: NO_CONTENT, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def delete(self, request: Request, tournament_id: int, name: str) -> Response:
        """Remove an entrant.

        An organiser, before the start (or cancels a pending invitation of `name`) → 204.
        """
        entries.remove_entrant(caller(request), tournament_id=tournament_id, name=name)
        return Response(status=204)


class StartView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="tournaments_start",
        request=None,
        responses={200: TournamentDetailSerializer, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Start a tournament.

        An organiser seats round 1 and starts its games → 200 its detail.
        """
        no_body(request.data)
        running.start(caller(request), tournament_id=tournament_id)
        return _detail(request, tournament_id)


class StandingsView(APIView):
    @extend_schema(
        operation_id="tournaments_standings",
        parameters=[
            OpenApiParameter(
                "round",
                {"type": "integer", "minimum": 1},
                description="standings after this round (1 up to the current round; else 400)",
            )
        ],
        responses={200: paginated(StandingSerializer), 400: ERROR, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament's standings.

        Overall, or after round `round`, best first, paginated: `{rank, username, points,
        tiebreaks..., games}`.
        """
        tournament = selectors.tournament(tournament_id)
        up_to = None
        if "round" in request.query_params:
            if tournament.current_round < 1:
                raise Invalid(
                    "invalid", "No round has started.", fields={"round": ["No round has started."]}
                )
            up_to = int_param(request, "round", default=1, low=1, high=tournament.current_round)
        return paginate(self, request, selectors.standings_data(tournament, up_to))


class TournamentLiveDoc(APIView):
    @extend_schema(
        operation_id="tournaments_live",
        parameters=live_stream_parameters(
            after="version",
            fragments=LIVE_FRAGMENTS,
            fragment="`live`: each message also carries `html`, the live part of the "
            "tournament's web page as anyone sees it; `screen`: the room's screen "
            "(`/tournaments/{id}/screen`)",
        ),
        responses=live_stream_responses(),
    )
    def get(self, request: Request, tournament_id: int) -> Response:  # pragma: no cover - docs
        """A tournament's changes, pushed (Server-Sent Events).

        One message per change: `id:` the tournament's `version`, `event: change`, `data:`
        one line of JSON `{changes, version, status, round, round_count, entrant_count,
        tables, standings}` (and `html` with `fragment`): `changes` names what changed
        (`started`, `round_started`, `table_finished`, `standings_changed`,
        `entrants_changed`, `finished`, else `updated`), `tables` are the current round's.
        The first message is what stands now, with no `changes`, unless `Last-Event-ID` or
        `after` is the current version; a comment line every 15 s while nothing happens.
        The stream ends after the tournament's last change; a reconnection to a finished
        tournament with nothing new gets 204 (EventSource then stops).
        """
        raise NotImplementedError


def _live_caller(request: HttpRequest) -> tuple[Player | None, int | None, str | None]:
    """(viewer, after, fragment) of a request to the live stream, in one crossing."""
    viewer = authenticate_and_limit(request)
    after = resume_point(request, high=INT32_MAX)
    return viewer, after, choice_param(request, "fragment", LIVE_FRAGMENTS)


async def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """``GET /tournaments/{id}/live``: the tournament's changes as Server-Sent Events
    (tournaments.live)."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        viewer, after, fragment = await in_thread(_live_caller)(request)
        subscriber = await live.follow(tournament_id, viewer, after=after, fragment=fragment)
    except DomainError as error:
        return error_response(error)
    if subscriber is None:
        return HttpResponse(status=204)
    response = StreamingHttpResponse(live.sse(subscriber), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


tournament_live.cls = TournamentLiveDoc  # type: ignore[attr-defined]
tournament_live.initkwargs = {}  # type: ignore[attr-defined]


class RoundView(APIView):
    @extend_schema(
        operation_id="tournaments_round",
        responses={200: RoundDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        """A round of a tournament.

        Its tables with their games, and the standings after it once it is finished.
        """
        return Response(selectors.round_detail(tournament_id, number))


class RoundTableView(APIView):
    @extend_schema(
        operation_id="tournaments_table",
        responses={200: TableDetailSerializer, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int, number: int, table: int) -> Response:
        """One table of a round."""
        return Response(selectors.table_detail(tournament_id, number, table))


class AdjudicateView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="tournaments_table_adjudicate",
        request=None,
        responses={200: TableDetailSerializer, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int, number: int, table: int) -> Response:
        """Adjudicate a stuck game.

        An organiser ends a game of an overdue round by its current scores (not rated) → 200 the
        table.
        """
        no_body(request.data)
        running.adjudicate(
            caller(request), tournament_id=tournament_id, round_number=number, table_number=table
        )
        return Response(selectors.table_detail(tournament_id, number, table))


class TableResultView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tournaments_table_result",
        responses={200: TableResultSerializer, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int, number: int, code: str) -> Response:
        """An in-person table's result.

        `{status: missing|pending|disputed|final, scores, entered_by, confirmed_by}`.
        """
        return Response(selectors.table_result(tournament_id, number, code))

    @extend_schema(
        operation_id="tournaments_table_result_enter",
        request=ScoresSerializer,
        responses={200: TableResultSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int, number: int, code: str) -> Response:
        """Enter an in-person table's result.

        `scores`: the game scores in seat order. An organiser's entry stands at once; a
        player of the table enters it `pending` (another player confirms it); a different
        entry makes it `disputed` until an organiser enters it. 400 `invalid_scores`, 403
        `not_at_this_table`, 409 `round_closed` → 200 the result.
        """
        data = valid(ScoresSerializer, request.data)
        table_results.enter_result(
            caller(request),
            tournament_id=tournament_id,
            round_number=number,
            code=code,
            scores=data["scores"],
        )
        return Response(selectors.table_result(tournament_id, number, code))


class TableResultConfirmView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tournaments_table_result_confirm",
        request=None,
        responses={200: TableResultSerializer, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int, number: int, code: str) -> Response:
        """Confirm an in-person table's pending result.

        Another player of the table than the one who entered it, or an organiser: the result
        stands → 200 the result. 403 `not_at_this_table`, 409 `round_closed`,
        `result_missing`, `result_final`, `result_disputed`, `own_entry`.
        """
        no_body(request.data)
        table_results.confirm_result(
            caller(request), tournament_id=tournament_id, round_number=number, code=code
        )
        return Response(selectors.table_result(tournament_id, number, code))


class ForbiddenPairsView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tournaments_forbidden_pairs_list",
        responses={200: paginated(ForbiddenPairSerializer), 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """The pairs of players kept apart.

        Oldest first, paginated: `{id, players}`.
        """
        rows = selectors.forbidden_pairs_of(tournament_id)
        return paginate(self, request, rows, shown=selectors.forbidden_pairs_shown)

    @extend_schema(
        operation_id="tournaments_forbidden_pairs_add",
        request=ForbiddenPairInputSerializer,
        responses={201: ForbiddenPairSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Keep two players apart.

        An organiser, before the start: `players: [a, b]` never share a table → 201 the pair.
        """
        first, second = valid(ForbiddenPairInputSerializer, request.data)["players"]
        found = entries.add_forbidden_pair(
            caller(request), tournament_id=tournament_id, first=first, second=second
        )
        return Response(
            {"id": found.pk, "players": [found.first.username, found.second.username]},
            status=201,
        )


class ForbiddenPairView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="tournaments_forbidden_pairs_remove",
        responses={204: NO_CONTENT, 403: ERROR, 404: ERROR},
    )
    def delete(self, request: Request, tournament_id: int, pair_id: int) -> Response:
        """Let two players meet again.

        An organiser, before the start → 204.
        """
        entries.remove_forbidden_pair(caller(request), tournament_id=tournament_id, pair_id=pair_id)
        return Response(status=204)


class OrganisersView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tournaments_organisers_list",
        responses={200: OrganisersSerializer, 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament's organisers."""
        found = selectors.tournament(tournament_id)
        return Response({"organisers": selectors.organisers_data(found)})

    @extend_schema(
        operation_id="tournaments_organisers_add",
        request=OrganiserSerializer,
        responses={201: OrganisersSerializer, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Add a co-organiser.

        An organiser adds `username` → 201.
        """
        username = valid(OrganiserSerializer, request.data)["username"]
        setup.add_co_organiser(caller(request), tournament_id=tournament_id, username=username)
        found = selectors.tournament(tournament_id)
        return Response({"organisers": selectors.organisers_data(found)}, status=201)


class OrganiserView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="tournaments_organisers_remove",
        responses={204: NO_CONTENT, 403: ERROR, 404: ERROR},
    )
    def delete(self, request: Request, tournament_id: int, username: str) -> Response:
        """Remove a co-organiser.

        An organiser → 204.
        """
        setup.remove_co_organiser(caller(request), tournament_id=tournament_id, username=username)
        return Response(status=204)


class AuditView(APIView):
    @extend_schema(
        operation_id="tournaments_audit",
        responses={200: paginated(AuditEntrySerializer), 404: ERROR},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament's audit log.

        Who changed what, when; oldest first, paginated: `{at, actor, action, details}`.
        """
        rows = selectors.audit_of(tournament_id)
        return paginate(self, request, rows, shown=selectors.audit_shown)
