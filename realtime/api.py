"""``GET /api/v1/stream``: a player's NDJSON stream, served without holding a thread.

Its documentation comes from the REST framework class named in its ``cls`` attribute.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import authenticate_and_limit, insufficient_scope, require_scope
from accounts.models import ApiToken, Player
from api.asyncviews import in_thread
from api.errors import error_response, method_not_allowed
from api.schema import ERROR
from core.errors import DomainError, NotAuthenticated
from realtime.stream import StreamCursor, lines_for, stream_start


class StreamDoc(APIView):
    # As the stream checks (for its documentation): its lines hold the seats' private views.
    permission_classes = [require_scope(ApiToken.Scope.PLAY)]

    @extend_schema(
        operation_id="stream",
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            401: ERROR,
            403: ERROR,
            429: ERROR,
        },
    )
    def get(self, request: Request) -> Response:  # pragma: no cover - docs only
        """The caller's NDJSON stream.

        One JSON object per line: `game_start`, `your_turn` (with the seat's view),
        `game_finish`, `tournament_round`, `tournament_invite`, `table_canceled`, the
        `challenge...` lines, `seek_expired` and `arena_joined`, `arena_left`, `arena_removed`;
        an empty line when nothing was sent for 5 s. On connect, first a `your_turn` for every
        game waiting on the caller and a `challenge` for every challenge waiting on its answer;
        a line may come twice. Needs the `play` scope (403 `insufficient_scope`); the stream
        ends when its token is revoked.
        """
        raise NotImplementedError


def _opened(
    request: HttpRequest,
) -> tuple[Player, tuple[StreamCursor, list[dict[str, Any]]]]:
    """The caller of a new stream and its start (realtime.stream.stream_start): what it
    needs of the database before its first line, in one crossing to a thread."""
    player = authenticate_and_limit(request)
    if player is None:
        raise NotAuthenticated("not_authenticated", "The stream needs a token.")
    if not player.may_play:  # its lines hold the seats' private views
        raise insufficient_scope(ApiToken.Scope.PLAY)
    return player, stream_start(player)


async def stream(request: HttpRequest) -> StreamingHttpResponse | JsonResponse:
    """``GET /stream``: the caller's NDJSON stream."""
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        player, start = await in_thread(_opened)(request)
    except DomainError as error:
        return error_response(error)
    response = StreamingHttpResponse(lines_for(player, start), content_type="application/x-ndjson")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


stream.cls = StreamDoc  # type: ignore[attr-defined]
stream.initkwargs = {}  # type: ignore[attr-defined]
