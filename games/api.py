"""The games API: tables, games (views, actions, events, records) and players' histories.

Views validate input, call one service or selector, and render its result. The long poll
(``/games/{id}/events?wait=``) is an async view so that a waiting client holds no thread;
its documentation comes from the REST framework class named in its ``cls`` attribute.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import authenticate_and_limit, caller, require_scope
from accounts.models import ApiToken, Player
from api.asyncviews import in_thread
from api.errors import error_response, method_not_allowed
from api.lean import Call, lean_view
from api.pagination import paginate, paginated
from api.requests import choice_param, int_param, no_body, resume_point, valid
from api.schema import ERROR, live_stream_parameters, live_stream_responses
from api.strict import INT32_MAX
from core.errors import DomainError, Invalid
from games import live, records, selectors, services
from games.engine import PRESETS
from games.serializers import (
    ACTION_EXAMPLES,
    ActionSerializer,
    EventsSerializer,
    GameViewSerializer,
    HistoryEntrySerializer,
    ProfileSerializer,
    RecordKeySerializer,
    SeatBotSerializer,
    SeatChoiceSerializer,
    TableCreateSerializer,
    TableSerializer,
    VerificationSerializer,
    valid_action,
)

CanPlay = require_scope(ApiToken.Scope.PLAY)
MAX_WAIT_SECONDS = 60
TABLE_STATUSES = ("open", "playing", "finished")
RESULTS = ("win", "shared", "loss")
MAX_IDEMPOTENCY_KEY = 255
#: The page fragments a live stream may carry (games.live.FRAGMENTS).
LIVE_FRAGMENTS = ("table",)


# --- Tables ---------------------------------------------------------------------------------


def _tables_shown(tables: list[Any]) -> list[dict[str, Any]]:
    return [selectors.table_data(table) for table in tables]


class TablesView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else []

    @extend_schema(
        operation_id="tables_list",
        parameters=[OpenApiParameter("status", str, enum=list(TABLE_STATUSES))],
        responses={200: paginated(TableSerializer)},
    )
    def get(self, request: Request) -> Response:
        """The lobby.

        Tables newest first, paginated; `status` filters by `open`, `playing` or `finished`.
        """
        status_filter = choice_param(request, "status", TABLE_STATUSES)
        return paginate(self, request, selectors.tables(status_filter), shown=_tables_shown)

    @extend_schema(
        operation_id="tables_create",
        request=TableCreateSerializer,
        responses={
            201: TableSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request) -> Response:
        """Create a table.

        `rules`: a preset name or `{preset, ...options}` (default `"classic"`); `rated` (default
        `true`); `move_seconds` 1..86400 (default 60); `seat`: where the creator sits (default
        0), or `null` to sit nowhere (to seat bots only) → 201 the table. The game is dealt when
        the last seat is taken.
        `duplicate_of`: a finished game whose deals the game replays, hand by hand (duplicate
        play); it is played under that game's rules (left out, they are taken; others: 400
        `duplicate_rules_mismatch`); 404 for an unknown game, 409 `game_in_progress` before its
        end, 409 `deals_embargoed` while other tables still play its deals. That game's record
        is public: anyone can look these deals up.
        """
        data = valid(TableCreateSerializer, request.data)
        duplicate_of = data.get("duplicate_of")
        default_rules = None if duplicate_of is not None else "classic"
        table = services.create_table(
            caller(request),
            rules=data.get("rules", default_rules),
            rated=data["rated"],
            move_seconds=data["move_seconds"],
            seat=data["seat"],
            duplicate_of=duplicate_of,
        )
        return Response(selectors.table_data(table), status=201)


class TableView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "DELETE" else []

    @extend_schema(operation_id="tables_retrieve", responses={200: TableSerializer, 404: ERROR})
    def get(self, request: Request, table_id: int) -> Response:
        """One table.

        `{id, status, rules, rated, move_seconds, created_by, created_at, seats, game,
        duplicate_of}` (`duplicate_of`: the game whose deals its game replays, or null).
        """
        return Response(selectors.table_data(selectors.table(table_id)))

    @extend_schema(
        operation_id="tables_cancel",
        request=None,
        responses={204: None, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def delete(self, request: Request, table_id: int) -> Response:
        """Cancel an open table.

        The table's creator removes it before its game starts (anyone else seated gets a
        `table_canceled` line on their stream) → 204; 403 `not_table_creator`; 409
        `table_not_open` once the game has started.
        """
        services.cancel_table(caller(request), table_id=table_id)
        return Response(status=204)


class TableJoinView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_join",
        request=SeatChoiceSerializer,
        responses={200: TableSerializer, 400: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Sit down at a table.

        At `seat`, or the first free seat if it is left out → 200 the table (its `game` once the
        last seat is taken); 409 `seat_taken`, `table_full`, `already_seated`.
        """
        data = valid(SeatChoiceSerializer, request.data)
        table = services.join_table(caller(request), table_id=table_id, seat=data["seat"])
        return Response(selectors.table_data(table))


class TableLeaveView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_leave",
        request=None,
        responses={200: TableSerializer, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Stand up before the game starts.

        → 200 the table; 409 `table_not_open` once the game has started, `not_seated` if the
        caller has no seat there.
        """
        no_body(request.data)
        services.leave_table(caller(request), table_id=table_id)
        return Response(selectors.table_data(selectors.table(table_id)))


class TableBotsView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="tables_seat_bot",
        request=SeatBotSerializer,
        responses={200: TableSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Seat a bot at a table.

        The table's creator seats a house bot (`house:random`, `house:heuristic`,
        `house:strong`) or one of its own bot accounts, at `seat` or the first free one → 200
        the table.
        """
        data = valid(SeatBotSerializer, request.data)
        table = services.seat_bot(
            caller(request), table_id=table_id, bot=data["bot"], seat=data["seat"]
        )
        return Response(selectors.table_data(table))


# --- Games ----------------------------------------------------------------------------------


class GameView(APIView):
    # The documentation of ``game``, a lean view (api/lean.py).

    @extend_schema(
        operation_id="games_retrieve",
        responses={200: GameViewSerializer, 404: ERROR, 409: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs only
        """A game as the caller may see it.

        A seated player sees their own hand and `legal_actions` (with a token that has the
        `play` scope); anyone else the public view; after the end everyone sees the full
        `record`. `duplicate_of`: the game whose deals it replays, or null.
        A game of a duplicate tournament's round is under embargo while another game of the
        round plays the same deals: 409 `deals_embargoed` for anyone but its seated players,
        who see their own view (no `record`) until then.
        """
        raise NotImplementedError


def _game(call: Call, game_id: int) -> tuple[int, Any]:
    return 200, selectors.game_view_for(game_id, call.player)


game = lean_view(GameView, get=_game)


class GameActionsView(APIView):
    # The documentation (and permissions) of ``game_actions``, a lean view (api/lean.py).
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="games_act",
        request=ActionSerializer,
        examples=ACTION_EXAMPLES,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "maxLength": MAX_IDEMPOTENCY_KEY},
                OpenApiParameter.HEADER,
                description="A retry with the same key returns the first response; acts once.",
            )
        ],
        responses={200: GameViewSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs only
        """Act in a game.

        The body is an action (`{type, ...}`, as `legal_actions` lists them) with an optional
        `expected_version` → 200 the caller's new view; 400 `invalid` naming a field the type
        does not take; 400 `illegal_action` with the rules' `reason` (and `fields` naming a
        field of the wrong type); 403 `not_seated`; 409 `version_conflict`, `not_your_turn`,
        `game_finished`.
        With an `Idempotency-Key` header, a retry of the same request returns the first response
        and acts once.
        """
        raise NotImplementedError


def _act(call: Call, game_id: int) -> tuple[int, Any]:
    assert call.player is not None  # CanPlay checked it
    body = call.data()
    action, expected = valid_action(body)
    key = call.request.headers.get("Idempotency-Key") or None
    if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
        raise Invalid("invalid", f"Idempotency-Key is limited to {MAX_IDEMPOTENCY_KEY} characters.")
    return services.submit_action(
        call.player,
        game_id=game_id,
        action=action,
        expected_version=expected,
        idempotency_key=key,
        fingerprint=services.request_fingerprint(call.request.path, body) if key else "",
    )


game_actions = lean_view(GameActionsView, post=_act)


class GameResignView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="games_resign",
        request=None,
        responses={200: GameViewSerializer, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, game_id: int) -> Response:
        """Resign from a game.

        The caller's seat passes to `house:heuristic` for the rest of the game, which goes on
        for the others; the caller ranks last in it whatever its score (a loss, rated as
        such) → 200 the caller's view (no `legal_actions` from then on). 403 `not_seated`;
        409 `game_finished`, or `seat_handed_over` if a house bot plays the seat already.
        """
        no_body(request.data)
        return Response(services.resign(caller(request), game_id=game_id))


class GameRecordView(APIView):
    @extend_schema(
        operation_id="games_record",
        responses={200: OpenApiTypes.OBJECT, 404: ERROR, 409: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:
        """The record of a finished game.

        Every deal, exchange, discard and trick, in the replay file format, with the results,
        and `duplicate_of`, signed by the server (`signature`: Ed25519 over the rest of the
        record, by the key of `GET /records/key`); 409 `game_in_progress` before the end,
        409 `deals_embargoed` while another game of its duplicate tournament round plays the
        same deals.
        """
        return Response(selectors.signed_game_record(game_id))


class GameVerifyView(APIView):
    @extend_schema(
        operation_id="games_verify",
        responses={200: VerificationSerializer, 404: ERROR, 409: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:
        """Check a finished game's record against its seed and its plays.

        Recomputes every deal from the record's `seed` with the documented shuffle, checks
        `seed_commitment`, replays the actions to check every outcome the record states (each
        hand's tricks and score, the scores, winner, ranks) and checks the record's signature
        with the key of `GET /records/key` → `{ok, commitment_matches, deals_match,
        outcomes_match, signature_valid, reason, problems}` (`reason`: the first problem, or
        `null`); 409 `game_in_progress` before the end.
        """
        return Response(selectors.game_verification(game_id))


class RecordKeyView(APIView):
    @extend_schema(operation_id="records_key", responses={200: RecordKeySerializer})
    def get(self, request: Request) -> Response:
        """The public key that the games' records are signed with.

        The server signs every record it serves (`GET /games/{id}/record`, its `signature`)
        with one Ed25519 key; this is its public half: `public_key` (64 hex digits, what
        `python -m games.record_check --key` takes, or this answer saved to a file),
        `key_id` (as a signature names its key) and `public_key_pem`.
        """
        return Response(records.public_key_data())


# --- Players --------------------------------------------------------------------------------


class PlayerView(APIView):
    @extend_schema(operation_id="players_retrieve", responses={200: ProfileSerializer, 404: ERROR})
    def get(self, request: Request, username: str) -> Response:
        """A player's profile.

        `{username, is_bot, owner, joined, games_played, games_won, games_in_progress,
        ratings}`; `ratings` per pool the player is rated in.
        """
        return Response(selectors.player_profile(username))


class PlayerGamesView(APIView):
    @extend_schema(
        operation_id="players_games",
        parameters=[
            OpenApiParameter("rules", str, enum=list(PRESETS), description="a preset name"),
            OpenApiParameter("result", str, enum=list(RESULTS)),
        ],
        responses={200: paginated(HistoryEntrySerializer), 404: ERROR},
    )
    def get(self, request: Request, username: str) -> Response:
        """A player's match history.

        Finished games, newest first, paginated: the game, when, rules, seats with ranks and
        scores, the player's seat, rank, score, result and rating change; `rules` (a preset) and
        `result` (`win`, `shared`, `loss`) filter.
        """
        result = choice_param(request, "result", RESULTS)
        # A misspelt preset would otherwise look like a player who never played it.
        rules = choice_param(request, "rules", PRESETS)
        rows = selectors.player_history(username, preset=rules, result=result)
        return paginate(self, request, rows, shown=selectors.history_entries)


# --- Waiting for events (async) ------------------------------------------------------------


class GameEventsDoc(APIView):
    @extend_schema(
        operation_id="games_events",
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": INT32_MAX},
                description="only events with seq > after (default 0)",
            ),
            OpenApiParameter(
                "wait",
                {"type": "integer", "minimum": 0, "maximum": MAX_WAIT_SECONDS},
                description="seconds to wait for a first one (default 0: answer at once)",
            ),
        ],
        responses={200: EventsSerializer, 400: ERROR, 404: ERROR, 409: ERROR, 429: ERROR},
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs only
        """The events the caller may see.

        Those with `seq` above `after`, oldest first (at most 500); with `wait` (seconds, up to
        60) the answer waits for a first one → `{events, version, last_seq, status}`. A seated
        player's private events need a token with the `play` scope; a token revoked while
        the answer waits gets 401 `invalid_token`. 409 `deals_embargoed`: as for the game.
        """
        raise NotImplementedError


def _first_look(
    request: HttpRequest, game_id: int
) -> tuple[Player | None, int, int, dict[str, Any] | None]:
    """(viewer, after, wait, the events now): what a request to the long poll needs of the
    database, in one crossing to a thread. A request that may wait is answered by the
    game's live feed instead (None)."""
    viewer = authenticate_and_limit(request)
    after = int_param(request, "after", default=0, low=0, high=INT32_MAX)
    wait = int_param(request, "wait", default=0, low=0, high=MAX_WAIT_SECONDS)
    return viewer, after, wait, None if wait else selectors.events_after(game_id, viewer, after)


async def game_events(request: HttpRequest, game_id: int) -> HttpResponse:
    """``GET /games/{id}/events?after=&wait=``: long poll without holding a thread.

    ``wait=0`` is answered from the database; a request that may wait is answered by the
    process's live feed of the game (games.live), which reads each change once for all its
    waiters."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        viewer, after, wait, data = await in_thread(_first_look)(request, game_id)
        if data is not None:
            return JsonResponse(data)
        body = await live.events_when_any(game_id, viewer, after=after, seconds=wait)
    except DomainError as error:
        return error_response(error)
    return HttpResponse(body, content_type="application/json")


game_events.cls = GameEventsDoc  # type: ignore[attr-defined]
game_events.initkwargs = {}  # type: ignore[attr-defined]


class GameLiveDoc(APIView):
    @extend_schema(
        operation_id="games_live",
        parameters=live_stream_parameters(
            after="seq",
            fragments=LIVE_FRAGMENTS,
            fragment="`table`: each message also carries `html`, the table as the web page "
            "shows it to the caller",
        ),
        responses=live_stream_responses(409),
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs only
        """The game's changes, pushed (Server-Sent Events).

        One message per change: `id:` the game's `last_seq`, `event: change`, `data:` one
        line of JSON `{events, version, last_seq, status}` (and `html` with `fragment`),
        where `events` are those `/events?after=` gives the caller (a seated player's private
        ones need a token with the `play` scope). The first message is what the caller missed
        after `Last-Event-ID` or `after` (the whole game without either); a comment line
        every 15 s while nothing happens. The stream ends after the game's last change; a
        reconnection to an ended game with nothing new gets 204 (EventSource then stops).
        It ends at once when its token is revoked. 409 `deals_embargoed`: as for the game.
        """
        raise NotImplementedError


def _live_caller(request: HttpRequest) -> tuple[Player | None, int | None, str | None]:
    """(viewer, after, fragment) of a request to the live stream, in one crossing."""
    viewer = authenticate_and_limit(request)
    after = resume_point(request, high=INT32_MAX)
    return viewer, after, choice_param(request, "fragment", LIVE_FRAGMENTS)


async def game_live(request: HttpRequest, game_id: int) -> HttpResponse:
    """``GET /games/{id}/live``: the game's changes as Server-Sent Events (games.live)."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        viewer, after, fragment = await in_thread(_live_caller)(request)
        subscriber = await live.follow(game_id, viewer, after=after, fragment=fragment)
    except DomainError as error:
        return error_response(error)
    if subscriber is None:
        return HttpResponse(status=204)
    response = StreamingHttpResponse(live.sse(subscriber), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


game_live.cls = GameLiveDoc  # type: ignore[attr-defined]
game_live.initkwargs = {}  # type: ignore[attr-defined]
