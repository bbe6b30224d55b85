"""The chat API (docs/api.md "Chat"): read and post in a game's rooms and a tournament's,
follow a room live, delete a message (staff), mute an author. Views validate, call one
service or selector, and render; the live streams are async views that hold no thread
while they wait (their documentation comes from the class in their ``cls`` attribute)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import IsAuthenticated, authenticate_and_limit, caller, require_scope
from accounts.models import ApiToken, Player
from api.asyncviews import in_thread
from api.errors import error_response, method_not_allowed
from api.pagination import paginate, paginated
from api.requests import choice_param, resume_point, valid
from api.schema import ERROR
from api.strict import INT32_MAX
from chat import live, selectors, services
from chat.serializers import (
    ChatMessageSerializer,
    ChatPostSerializer,
    MutedSerializer,
)
from core.errors import DomainError, Invalid, NotAuthenticated

CanPlay = require_scope(ApiToken.Scope.PLAY)
NO_CONTENT = OpenApiResponse(description="done")

CHANNEL = OpenApiParameter(
    "channel",
    {"type": "string", "enum": list(selectors.CHANNELS)},
    required=True,
    description="`players`: the seated players' room; `spectators`: everyone else's",
)
RESUME = [
    OpenApiParameter(
        "after",
        {"type": "integer", "minimum": 0, "maximum": INT32_MAX},
        description="start after this room version (the `Last-Event-ID` header wins over it)",
    ),
    OpenApiParameter(
        "Last-Event-ID",
        {"type": "integer", "minimum": 0, "maximum": INT32_MAX},
        location=OpenApiParameter.HEADER,
        description="the `id` of the last message received (sent by EventSource when it "
        "reconnects)",
    ),
]
LIST_RESPONSES: dict[int, Any] = {
    200: paginated(ChatMessageSerializer),
    400: ERROR,
    401: ERROR,
    403: ERROR,
    404: ERROR,
    409: ERROR,
}
POST_RESPONSES: dict[int, Any] = {
    201: ChatMessageSerializer,
    400: ERROR,
    401: ERROR,
    403: ERROR,
    404: ERROR,
    409: ERROR,
    429: ERROR,
}
STREAM_RESPONSES: dict[Any, Any] = {
    (200, "text/event-stream"): OpenApiTypes.STR,
    **{status: ERROR for status in (400, 401, 403, 404, 409, 429)},
}


def _channel(request: HttpRequest) -> str:
    channel = choice_param(request, "channel", selectors.CHANNELS)
    if channel is None:
        message = "channel must be players or spectators."
        raise Invalid("invalid", message, fields={"channel": [message]})
    return channel


def _listed(view: APIView, request: Request, access: selectors.Access) -> Response:
    rows = selectors.messages(access, caller(request))
    return paginate(view, request, rows, shown=selectors.messages_data)


def _posted(request: Request, **where: Any) -> Response:
    text = valid(ChatPostSerializer, request.data)["text"]
    message = services.post_message(caller(request), text=text, **where)
    return Response(selectors.message_data(message), status=201)


class GameChatView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(operation_id="games_chat", parameters=[CHANNEL], responses=LIST_RESPONSES)
    def get(self, request: Request, game_id: int) -> Response:
        """A game's chat room, newest first.

        `players`: the seated players' (and staff's) only. `spectators`: everyone signed in
        who is not seated; its players read it only once the game is over (403
        `chat_not_allowed` before). Messages of authors the caller muted are left out.
        409 `deals_embargoed` as for the game.
        """
        access = selectors.game_access(caller(request), game_id, _channel(request))
        return _listed(self, request, access)

    @extend_schema(
        operation_id="games_chat_post",
        parameters=[CHANNEL],
        request=ChatPostSerializer,
        responses=POST_RESPONSES,
    )
    def post(self, request: Request, game_id: int) -> Response:
        """Post to a game's chat room.

        `{text}`: 1 to 500 characters once trimmed (else 400 `invalid` naming `text`).
        Who may read a room writes in it (staff only read the players' room): else 403
        `chat_not_allowed`. A few messages at once, then one every few seconds: 429
        `chat_rate_limited` with `Retry-After`. → 201 the message, sent to the room's live
        stream.
        """
        return _posted(request, game_id=game_id, channel=_channel(request))


class TournamentChatView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(operation_id="tournaments_chat", responses=LIST_RESPONSES)
    def get(self, request: Request, tournament_id: int) -> Response:
        """A tournament's chat room, newest first (anyone signed in).

        Messages of authors the caller muted are left out.
        """
        access = selectors.tournament_access(caller(request), tournament_id)
        return _listed(self, request, access)

    @extend_schema(
        operation_id="tournaments_chat_post",
        request=ChatPostSerializer,
        responses=POST_RESPONSES,
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        """Post to a tournament's chat room.

        Its entrants (or an entered bot's owner), organisers and staff write there (403
        `chat_not_allowed` for others, and for entrants while a duplicate round is being
        played). `{text}` and the rate limit as for a game's room. → 201 the message.
        """
        return _posted(request, tournament_id=tournament_id)


class MessageView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="chat_messages_delete",
        responses={204: NO_CONTENT, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def delete(self, request: Request, message_id: int) -> Response:
        """Delete a chat message (moderators: staff accounts).

        It leaves its room's lists, and its room's live stream names it in `deleted`.
        403 `not_moderator`.
        """
        services.delete_message(caller(request), message_id=message_id)
        return Response(status=204)


class MutesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="chat_mutes", responses={200: paginated(MutedSerializer)})
    def get(self, request: Request) -> Response:
        """The authors the caller muted, by name."""
        names = selectors.muted_usernames(caller(request))
        return paginate(self, request, [{"username": n} for n in names])


class MuteView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="chat_mute",
        request=None,
        responses={204: NO_CONTENT, 400: ERROR, 401: ERROR, 404: ERROR},
    )
    def put(self, request: Request, username: str) -> Response:
        """Mute an author: their messages leave what the caller reads, in every room.

        400 `cannot_mute_self`; 404 for no such player.
        """
        services.mute(caller(request), username=username)
        return Response(status=204)

    @extend_schema(
        operation_id="chat_unmute",
        responses={204: NO_CONTENT, 401: ERROR, 404: ERROR},
    )
    def delete(self, request: Request, username: str) -> Response:
        """Read an author's messages again."""
        services.unmute(caller(request), username=username)
        return Response(status=204)


# --- The live streams ---------------------------------------------------------------------


class GameChatLiveDoc(APIView):
    permission_classes = [IsAuthenticated]  # what the stream checks itself (the schema's)

    @extend_schema(
        operation_id="games_chat_live",
        parameters=[CHANNEL, *RESUME],
        responses=STREAM_RESPONSES,
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - docs
        """A game's chat room, pushed (Server-Sent Events).

        One message per change: `id:` the room's version, `event: chat`, `data:` one line of
        JSON `{version, reset, messages, deleted}`: the messages posted (oldest first) and
        the ids of those deleted. The first message is the room's newest messages with
        `reset: true` (the client shows them in place of what it had), unless
        `Last-Event-ID` or `after` is the current version; a comment line every 15 s while
        nothing happens. Who may follow a room as for `GET .../chat`; it carries every
        message, muted authors' too (with their `author`). It ends when its token is
        revoked.
        """
        raise NotImplementedError


class TournamentChatLiveDoc(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_chat_live", parameters=RESUME, responses=STREAM_RESPONSES
    )
    def get(self, request: Request, tournament_id: int) -> Response:  # pragma: no cover
        """A tournament's chat room, pushed (Server-Sent Events), as a game's room's."""
        raise NotImplementedError


def _signed_in(request: HttpRequest) -> Player:
    viewer = authenticate_and_limit(request)
    if viewer is None:
        raise NotAuthenticated("not_authenticated", "This needs a token.")
    return viewer


def _game_room(request: HttpRequest, game_id: int) -> tuple[Any, Player, int | None]:
    """(room, viewer, after) of a request to a game room's stream, in one crossing."""
    viewer = _signed_in(request)
    after = resume_point(request, high=INT32_MAX)
    access = selectors.game_access(viewer, game_id, _channel(request))
    return services.room_of(access), viewer, after


def _tournament_room(request: HttpRequest, tournament_id: int) -> tuple[Any, Player, int | None]:
    viewer = _signed_in(request)
    after = resume_point(request, high=INT32_MAX)
    access = selectors.tournament_access(viewer, tournament_id)
    return services.room_of(access), viewer, after


async def _stream(request: HttpRequest, find: Any, key: int) -> HttpResponse:
    if request.method != "GET":
        return method_not_allowed("GET")
    try:
        room, viewer, after = await in_thread(find)(request, key)
        subscriber = await live.follow(room, token_id=viewer.api_token_id, after=after)
    except DomainError as error:
        return error_response(error)
    response = StreamingHttpResponse(live.sse(subscriber), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


async def game_chat_live(request: HttpRequest, game_id: int) -> HttpResponse:
    """``GET /games/{id}/chat/live?channel=``: a game's room as Server-Sent Events."""
    return await _stream(request, _game_room, game_id)


async def tournament_chat_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """``GET /tournaments/{id}/chat/live``: a tournament's room as Server-Sent Events."""
    return await _stream(request, _tournament_room, tournament_id)


game_chat_live.cls = GameChatLiveDoc  # type: ignore[attr-defined]
game_chat_live.initkwargs = {}  # type: ignore[attr-defined]
tournament_chat_live.cls = TournamentChatLiveDoc  # type: ignore[attr-defined]
tournament_chat_live.initkwargs = {}  # type: ignore[attr-defined]
