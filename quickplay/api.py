"""The quick-play API (docs/api.md "Quick play"): join the queue, look at a seek, leave."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import caller, require_scope
from accounts.models import ApiToken
from api.pagination import paginate, paginated
from api.requests import valid
from api.schema import ERROR
from quickplay import selectors, services
from quickplay.serializers import SeekCreateSerializer, SeekSerializer

CanPlay = require_scope(ApiToken.Scope.PLAY)


class SeeksView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="seeks_list",
        responses={200: paginated(SeekSerializer), 401: ERROR, 403: ERROR},
    )
    def get(self, request: Request) -> Response:
        """The caller's open seeks, paginated as every list.

        At most one: an account has one open seek at a time.
        """
        seeks = selectors.open_seeks(caller(request))
        return paginate(
            self, request, seeks, shown=lambda page: [selectors.seek_data(s) for s in page]
        )

    @extend_schema(
        operation_id="seeks_create",
        request=SeekCreateSerializer,
        responses={201: SeekSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Join the quick-play queue.

        `rules` (default `"classic"`), `rated` (default `true`) and `move_seconds` 1..86400
        (default 60) as for a table; `rating_range` `[min, max]`: the others' ratings accepted
        (mu in the rules' pool; an end `null` is open); `house_bots_after` 0..3600: seconds
        after which the seats still empty are filled with house bots → 201 the seek. The
        server seats compatible seekers together (same rules, rated and move time, each
        inside the others' ranges), oldest first; a `game_start` line on the stream says
        when. A seek nobody has seated by its `expires_at` (`QUICKPLAY_SEEK_SECONDS`, 600 by
        default, after it was made, plus its `house_bots_after`) leaves the queue: `expired`,
        with a `seek_expired` line. 409 `already_seeking` while the caller has an open seek.
        """
        data = valid(SeekCreateSerializer, request.data)
        seek = services.create_seek(
            caller(request),
            rules=data["rules"],
            rated=data["rated"],
            move_seconds=data["move_seconds"],
            rating_range=data["rating_range"],
            house_bots_after=data["house_bots_after"],
        )
        return Response(selectors.seek_data(seek), status=201)


class SeekView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="seeks_retrieve",
        responses={200: SeekSerializer, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def get(self, request: Request, seek_id: int) -> Response:
        """One of the caller's seeks.

        Its `status` (`open`, `seated`, `canceled`, `expired`), and once seated its `game`
        and `table`. Another account's seek is 404.
        """
        return Response(selectors.seek_data(selectors.own_seek(caller(request), seek_id)))

    @extend_schema(
        operation_id="seeks_cancel",
        request=None,
        responses={
            204: OpenApiResponse(description="left the queue"),
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def delete(self, request: Request, seek_id: int) -> Response:
        """Leave the quick-play queue.

        The seeker, while the seek is open → 204 (another account's seek is 404); 409
        `seek_seated` once seated (the game has started), `seek_canceled` if it left already,
        `seek_expired` if its time ran out.
        """
        services.cancel_seek(caller(request), seek_id=seek_id)
        return Response(status=204)
