"""The challenges API (docs/api.md "Challenges"): challenge named players or bots to a game,
answer, cancel, list. Views validate, call one service or selector, and render."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import IsAuthenticated, caller, require_scope
from accounts.models import ApiToken
from api.pagination import paginate, paginated
from api.requests import no_body, valid
from api.schema import ERROR
from challenges import selectors, services
from challenges.models import Challenge
from challenges.serializers import (
    ChallengeOrRematchSerializer,
    ChallengeSerializer,
    create_serializer,
)

CanPlay = require_scope(ApiToken.Scope.PLAY)


def _shown(challenge: Challenge, status: int = 200) -> Response:
    return Response(selectors.challenge_data(challenge), status=status)


class ChallengesView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanPlay()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(
        operation_id="challenges_list",
        responses={200: paginated(ChallengeSerializer), 401: ERROR},
    )
    def get(self, request: Request) -> Response:
        """The caller's pending challenges.

        Those the caller sent and those it is invited to, newest first, paginated.
        """
        rows = selectors.pending_challenges(caller(request))
        return paginate(self, request, rows, shown=selectors.challenges_data)

    @extend_schema(
        operation_id="challenges_create",
        request=ChallengeOrRematchSerializer,
        responses={
            201: ChallengeSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request) -> Response:
        """Challenge players or bots to a game.

        `to`: the others' usernames, after the caller in seat order (`house:...` fills a seat
        without an answer); `rules`, `rated`, `move_seconds` as for a table; `expires_in`
        seconds (default 300). Or `rematch_of`: a finished game of the caller's, its seats
        asked again → 201 the challenge, `pending` (the invited get a `challenge` line), or
        `accepted` with its `game` when nobody must answer. `duplicate_of`: a finished game
        whose deals the game replays, as for a table (its rules; 400
        `duplicate_rules_mismatch`, 404, 409 `game_in_progress` or `deals_embargoed`).
        """
        data = valid(create_serializer(request.data), request.data)
        player = caller(request)
        if "rematch_of" in data:
            challenge = services.create_rematch(
                player, game_id=data["rematch_of"], expires_in=data.get("expires_in")
            )
        else:
            challenge = services.create_challenge(
                player,
                to=data["to"],
                rules=data.get("rules"),
                rated=data.get("rated"),
                move_seconds=data.get("move_seconds"),
                expires_in=data.get("expires_in"),
                duplicate_of=data.get("duplicate_of"),
            )
        return _shown(challenge, 201)


class ChallengeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="challenges_retrieve",
        responses={200: ChallengeSerializer, 401: ERROR, 404: ERROR},
    )
    def get(self, request: Request, challenge_id: int) -> Response:
        """One challenge.

        For its challenger and the invited (404 for anyone else), whatever its status.
        """
        return Response(selectors.challenge_for(caller(request), challenge_id))


ANSWER_RESPONSES: dict[int, Any] = {
    200: ChallengeSerializer,
    401: ERROR,
    403: ERROR,
    404: ERROR,
    409: ERROR,
}


class AcceptView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(operation_id="challenges_accept", request=None, responses=ANSWER_RESPONSES)
    def post(self, request: Request, challenge_id: int) -> Response:
        """Accept a challenge.

        An invitee → 200 the challenge; once all have accepted it is `accepted` with its `game`,
        dealt at once (`game_start` to every seat). 403 `not_invited`; 409
        `challenge_not_pending`.
        """
        no_body(request.data)
        return _shown(services.accept_challenge(caller(request), challenge_id=challenge_id))


class DeclineView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(operation_id="challenges_decline", request=None, responses=ANSWER_RESPONSES)
    def post(self, request: Request, challenge_id: int) -> Response:
        """Decline a challenge.

        An invitee ends it → 200 the challenge, `declined` (`challenge_declined` to the
        challenger and the other invitees). 403 `not_invited`; 409 `challenge_not_pending`.
        """
        no_body(request.data)
        return _shown(services.decline_challenge(caller(request), challenge_id=challenge_id))


class CancelView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(operation_id="challenges_cancel", request=None, responses=ANSWER_RESPONSES)
    def post(self, request: Request, challenge_id: int) -> Response:
        """Cancel a challenge.

        The challenger withdraws it → 200 the challenge, `canceled` (`challenge_canceled` to
        the invited). 403 `not_challenger`; 409 `challenge_not_pending`.
        """
        no_body(request.data)
        return _shown(services.cancel_challenge(caller(request), challenge_id=challenge_id))
