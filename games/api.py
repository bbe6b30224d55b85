"""The games API (API.md): accounts, tokens, tables, games, events, stream, histories.

Views validate input, call one service or selector, and serialize the result. The two
waiting endpoints (``/games/{id}/events?wait=`` and ``/stream``) are async views so that a
waiting client holds no thread; their documentation comes from the DRF classes named in
their ``cls`` attribute.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import error_response, method_not_allowed
from core import json_codec
from core.errors import DomainError, Invalid, NotAuthenticated, RateLimited
from games import realtime, selectors, services
from games.auth import IsAuthenticated, authenticate_header, require_scope
from games.engine import PRESETS
from games.models import ApiToken, Player
from games.ratelimit import caller_key, hit
from games.serializers import (
    AccountTokenSerializer,
    ActionSerializer,
    EventsSerializer,
    GameViewSerializer,
    HistoryEntrySerializer,
    LoginSerializer,
    MeSerializer,
    NewTokenSerializer,
    ProfileSerializer,
    RegisterSerializer,
    SeatBotSerializer,
    SeatChoiceSerializer,
    TableCreateSerializer,
    TableSerializer,
    TokenInfoSerializer,
    TokenSerializer,
    paginated,
)

logger = logging.getLogger(__name__)

ERROR = OpenApiResponse(description='`{"error": {"code", "message", ...}}`')
CanPlay = require_scope(ApiToken.Scope.PLAY)
MAX_WAIT_SECONDS = 60
STREAM_KEEPALIVE_SECONDS = 5.0


def valid(serializer_class: type[Any], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def caller(request: Request) -> Player:
    assert isinstance(request.user, Player)
    return request.user


# --- Accounts -------------------------------------------------------------------------------


class RegisterView(APIView):
    @extend_schema(
        operation_id="accounts_register",
        request=RegisterSerializer,
        responses={201: AccountTokenSerializer, 400: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        data = valid(RegisterSerializer, request.data)
        player, key = services.register_player(data["username"], data["password"], data["email"])
        return Response({"username": player.username, "token": key}, status=201)


class LoginView(APIView):
    @extend_schema(
        operation_id="accounts_token",
        request=LoginSerializer,
        responses={200: TokenSerializer, 400: ERROR, 401: ERROR},
    )
    def post(self, request: Request) -> Response:
        data = valid(LoginSerializer, request.data)
        key = services.log_in(data["username"], data["password"], data.get("scopes"), data["name"])
        return Response({"token": key})


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me", responses={200: MeSerializer, 401: ERROR})
    def get(self, request: Request) -> Response:
        player = caller(request)
        token = request.auth
        assert isinstance(token, ApiToken)
        return Response(
            {
                "username": player.username,
                "is_bot": player.is_bot,
                "owner": player.owner.username if player.owner else None,
                "email": player.email,
                "scopes": token.scopes,
                "bots": list(player.bots.values_list("username", flat=True)),
            }
        )


class MyTokensView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_tokens_list", responses={200: paginated(TokenInfoSerializer)})
    def get(self, request: Request) -> Response:
        tokens = caller(request).tokens.filter(revoked_at__isnull=True).order_by("id")
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(tokens, request, view=self)
        return paginator.get_paginated_response(TokenInfoSerializer(page, many=True).data)

    @extend_schema(
        operation_id="me_tokens_create",
        request=NewTokenSerializer,
        responses={201: TokenSerializer, 400: ERROR},
    )
    def post(self, request: Request) -> Response:
        data = valid(NewTokenSerializer, request.data)
        _, key = services.new_token(caller(request), data["scopes"], data["name"])
        return Response({"token": key}, status=201)


class MyTokenView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_tokens_revoke", responses={204: None, 404: ERROR})
    def delete(self, request: Request, token_id: int) -> Response:
        services.revoke_token(caller(request), token_id)
        return Response(status=204)


# --- Tables ---------------------------------------------------------------------------------


class TablesView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tables_list",
        parameters=[OpenApiParameter("status", str, enum=["open", "playing", "finished"])],
        responses={200: paginated(TableSerializer)},
    )
    def get(self, request: Request) -> Response:
        status_filter = request.query_params.get("status")
        if status_filter not in (None, "open", "playing", "finished"):
            raise Invalid("invalid", "status must be open, playing or finished.")
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(selectors.tables(status_filter), request, view=self)
        return paginator.get_paginated_response([selectors.table_data(t) for t in page or []])

    @extend_schema(
        operation_id="tables_create",
        request=TableCreateSerializer,
        responses={201: TableSerializer, 400: ERROR, 401: ERROR, 403: ERROR},
    )
    def post(self, request: Request) -> Response:
        data = valid(TableCreateSerializer, request.data)
        table = services.create_table(
            caller(request), data["rules"], data["rated"], data["move_seconds"], data["seat"]
        )
        return Response(selectors.table_data(table), status=201)


class TableView(APIView):
    @extend_schema(operation_id="tables_retrieve", responses={200: TableSerializer, 404: ERROR})
    def get(self, request: Request, table_id: int) -> Response:
        return Response(selectors.table_data(selectors.table(table_id)))


class TableJoinView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_join",
        request=SeatChoiceSerializer,
        responses={200: TableSerializer, 400: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = valid(SeatChoiceSerializer, request.data)
        table = services.join_table(caller(request), table_id, data["seat"])
        return Response(selectors.table_data(table))


class TableLeaveView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_leave",
        request=None,
        responses={200: TableSerializer, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        services.leave_table(caller(request), table_id)
        return Response(selectors.table_data(selectors.table(table_id)))


class TableBotsView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_seat_bot",
        request=SeatBotSerializer,
        responses={200: TableSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = valid(SeatBotSerializer, request.data)
        table = services.seat_bot(caller(request), table_id, data["bot"], data["seat"])
        return Response(selectors.table_data(table))


# --- Games ----------------------------------------------------------------------------------


class GameView(APIView):
    @extend_schema(operation_id="games_retrieve", responses={200: GameViewSerializer, 404: ERROR})
    def get(self, request: Request, game_id: int) -> Response:
        return Response(selectors.game_view_for(game_id, request.user))


class GameActionsView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="games_act",
        request=ActionSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="A retry with the same key returns the first response; acts once.",
            )
        ],
        responses={200: GameViewSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, game_id: int) -> Response:
        body = request.data
        if not isinstance(body, dict):
            raise Invalid("invalid", "The body must be a JSON object.")
        expected = body.get("expected_version")
        if expected is not None and type(expected) is not int:
            raise Invalid(
                "invalid",
                "expected_version must be an integer.",
                fields={"expected_version": ["An integer."]},
            )
        action = {k: v for k, v in body.items() if k != "expected_version"}
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and len(key) > 255:
            raise Invalid("invalid", "Idempotency-Key is limited to 255 characters.")
        code, view = services.submit_action(
            caller(request),
            game_id,
            action,
            expected,
            idempotency_key=key,
            fingerprint=services.request_fingerprint(request.path, body) if key else "",
        )
        return Response(view, status=code)


class GameRecordView(APIView):
    @extend_schema(
        operation_id="games_record",
        responses={200: OpenApiTypes.OBJECT, 404: ERROR, 409: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(selectors.game_record(game_id))


# --- Players --------------------------------------------------------------------------------


class PlayerView(APIView):
    @extend_schema(operation_id="players_retrieve", responses={200: ProfileSerializer, 404: ERROR})
    def get(self, request: Request, username: str) -> Response:
        return Response(selectors.player_profile(username))


class PlayerGamesView(APIView):
    @extend_schema(
        operation_id="players_games",
        parameters=[
            OpenApiParameter("rules", str, enum=list(PRESETS), description="a preset name"),
            OpenApiParameter("result", str, enum=["win", "shared", "loss"]),
        ],
        responses={200: paginated(HistoryEntrySerializer), 404: ERROR},
    )
    def get(self, request: Request, username: str) -> Response:
        result = request.query_params.get("result")
        if result not in (None, "win", "shared", "loss"):
            raise Invalid("invalid", "result must be win, shared or loss.")
        rules = request.query_params.get("rules")
        if rules is not None and rules not in PRESETS:
            # A misspelt preset would otherwise look like a player who never played it.
            raise Invalid("invalid", f"rules must be a preset: {', '.join(PRESETS)}.")
        rows = selectors.player_history(username, rules, result)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        return paginator.get_paginated_response(selectors.history_entries(list(page or [])))


# --- Waiting endpoints (async) --------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])


def _db(function: F) -> F:
    """Run ``function`` off the event loop, then hand its connection back (a long wait must
    not pin a database connection between looks).

    In a thread of the loop's pool, not in the one thread that runs every sync view of the
    process (``thread_sensitive``): a stream's look after a wake-up need not queue behind
    the moves, and the moves not behind it. Each look opens and hands back its own
    connection (from the pool), so no connection is shared between threads.

    A ``DomainError`` comes back as a value and is raised again here, without the thread's
    frames: raised through asgiref's futures, its traceback held their frames, which held
    it, a cycle that kept the request (a 404 of a long poll, say) alive until the cycle
    collector's next full pass.
    """

    def run(*args: Any, **kwargs: Any) -> tuple[Any, DomainError | None]:
        try:
            return function(*args, **kwargs), None
        except DomainError as error:
            return None, error.with_traceback(None)
        finally:
            close_old_connections()

    in_thread = sync_to_async(run, thread_sensitive=False)

    @wraps(function)
    async def call(*args: Any, **kwargs: Any) -> Any:
        result, error = await in_thread(*args, **kwargs)
        if error is None:
            return result
        try:
            raise error
        finally:
            del error  # a frame of the error's own traceback must not hold it (a cycle)

    return call  # type: ignore[return-value]


def _authenticate_and_limit(request: HttpRequest) -> Player | None:
    found = authenticate_header(request.headers.get("Authorization", ""))
    token = found[1] if found else None
    wait = hit(
        caller_key(token, request.META.get("REMOTE_ADDR", "")),
        settings.RATE_LIMIT_PER_MINUTE,
        60,
    )
    if wait is not None:
        retry = int(wait + 0.999)
        raise RateLimited(
            "rate_limited", f"Too many requests; retry in {retry} s.", retry_after=retry
        )
    return found[0] if found else None


def _int_param(request: HttpRequest, name: str, default: int, low: int, high: int) -> int:
    raw = request.GET.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise Invalid("invalid", f"{name} must be an integer.") from None
    if not low <= value <= high:
        raise Invalid("invalid", f"{name} must be between {low} and {high}.")
    return value


class GameEventsDoc(APIView):
    @extend_schema(
        operation_id="games_events",
        parameters=[
            OpenApiParameter("after", int, description="only events with seq > after"),
            OpenApiParameter("wait", int, description="seconds (≤ 60) to wait for a first one"),
        ],
        responses={200: EventsSerializer, 400: ERROR, 404: ERROR, 429: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs only
        raise NotImplementedError


async def game_events(request: HttpRequest, game_id: int) -> JsonResponse:
    """``GET /games/{id}/events?after=&wait=``: long poll without holding a thread."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        viewer = await _db(_authenticate_and_limit)(request)
        after = _int_param(request, "after", 0, 0, 2**31)
        wait = _int_param(request, "wait", 0, 0, MAX_WAIT_SECONDS)
        deadline = time.monotonic() + wait
        with realtime.listening(realtime.game_channel(game_id)) as waiter:
            while True:
                data = await _db(selectors.events_after)(game_id, viewer, after)
                remaining = deadline - time.monotonic()
                if data["events"] or remaining <= 0 or data["status"] == "finished":
                    return JsonResponse(data)
                await waiter.wait(remaining)
    except DomainError as error:
        return error_response(error)


game_events.cls = GameEventsDoc  # type: ignore[attr-defined]
game_events.initkwargs = {}  # type: ignore[attr-defined]


class StreamDoc(APIView):
    @extend_schema(
        operation_id="stream",
        description=(
            "NDJSON, one object per line: `game_start`, `your_turn`, `game_finish`, "
            "`tournament_round`; an empty line at least every 10 s. On connect, first a "
            "`your_turn` for every game waiting on the caller (a turn may be repeated once)."
        ),
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, 401: ERROR, 429: ERROR},
    )
    def get(self, request: Request) -> Response:  # pragma: no cover - docs only
        raise NotImplementedError


def _line(data: dict[str, Any]) -> bytes:
    return json_codec.dumps(data) + b"\n"


def _log_late_line(player: Player, message_id: int, created_at: Any) -> None:
    """A line found after a higher id was sent: how late, to check the settle time holds."""
    aware = isinstance(created_at, datetime) and timezone.is_aware(created_at)
    late = (timezone.now() - created_at).total_seconds() if aware else -1.0
    logger.info(
        "stream of player %s: message %s came after a higher id, %.1f s after it was written",
        player.pk, message_id, late,
    )  # fmt: skip


async def _stream_lines(player: Player) -> AsyncIterator[bytes]:
    cursor = await _db(selectors.stream_cursor)(player, time.monotonic())
    for turn in await _db(selectors.pending_turns)(player):
        yield _line(turn)
    with realtime.listening(realtime.player_channel(player.pk)) as waiter:
        quiet_since = time.monotonic()
        look, last_look, carried = True, 0.0, []
        while True:
            if look:
                looked = time.monotonic()
                lines = await _db(selectors.stream_lines_after)(
                    player, cursor.settled, cursor.recent
                )
                highest = max(cursor.recent, default=cursor.settled)
                for message_id, line, created_at in lines:
                    if message_id < highest:
                        _log_late_line(player, message_id, created_at)
                    highest = max(highest, message_id)
                    quiet_since = time.monotonic()
                    cursor.delivered(message_id, quiet_since)
                    yield line
                if len(lines) == selectors.STREAM_PAGE:
                    continue  # more are waiting: look again at once, and settle after them
                cursor.settle(looked)
                last_look = looked
            else:  # the wake-ups carried every line their changes wrote: no look needed
                for message_id, line in carried:
                    if not cursor.has_sent(message_id):
                        quiet_since = time.monotonic()
                        cursor.delivered(message_id, quiet_since)
                        yield line
            quiet = time.monotonic() - quiet_since
            if quiet >= STREAM_KEEPALIVE_SECONDS:
                yield b"\n"
                quiet_since = time.monotonic()
                quiet = 0.0
            woken = await waiter.wait(STREAM_KEEPALIVE_SECONDS - quiet)
            carried, must_look = waiter.take()
            since_look = time.monotonic() - last_look
            look = not woken or must_look or since_look >= realtime.recheck_seconds()


async def stream(request: HttpRequest) -> StreamingHttpResponse | JsonResponse:
    """``GET /stream``: the caller's NDJSON stream."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        player = await _db(_authenticate_and_limit)(request)
    except DomainError as error:
        return error_response(error)
    if player is None:
        return error_response(NotAuthenticated("not_authenticated", "The stream needs a token."))
    response = StreamingHttpResponse(_stream_lines(player), content_type="application/x-ndjson")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


stream.cls = StreamDoc  # type: ignore[attr-defined]
stream.initkwargs = {}  # type: ignore[attr-defined]
