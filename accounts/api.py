"""The accounts API: register, log in, the caller (``/me``) and their tokens.

Views validate input, call one service or selector, and render its result.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.auth import IsAuthenticated, caller
from accounts.models import ApiToken
from accounts.serializers import (
    AccountTokenSerializer,
    LoginSerializer,
    MeSerializer,
    NewTokenSerializer,
    RegisterSerializer,
    TokenInfoSerializer,
    TokenSerializer,
)
from api.lean import Call, lean_view
from api.pagination import paginate, paginated
from api.requests import valid
from api.schema import ERROR


class RegisterView(APIView):
    @extend_schema(
        operation_id="accounts_register",
        request=RegisterSerializer,
        responses={201: AccountTokenSerializer, 400: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Register a human account.

        Usernames are 3-30 letters, digits, `_ . -`, unique whatever the letter case; the
        password at least 8 characters and not too common. → 201 `{username, token}`: the token
        has the scopes `play` and `organise`.
        """
        data = valid(RegisterSerializer, request.data)
        player, key = services.register_player(
            data["username"], password=data["password"], email=data["email"]
        )
        return Response({"username": player.username, "token": key}, status=201)


class LoginView(APIView):
    @extend_schema(
        operation_id="accounts_token",
        request=LoginSerializer,
        responses={200: TokenSerializer, 400: ERROR, 401: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Log in: a new token for a human.

        With the right password → 200 `{token}`; `scopes` (default: `play` and `organise`) and
        `name` label the token. Bot accounts have no password.
        """
        data = valid(LoginSerializer, request.data)
        key = services.log_in(
            data["username"],
            password=data["password"],
            scopes=data.get("scopes"),
            name=data["name"],
        )
        return Response({"token": key})


class MeView(APIView):
    # The documentation (and permissions) of ``me``, a lean view (api/lean.py).
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me", responses={200: MeSerializer, 401: ERROR})
    def get(self, request: Request) -> Response:  # pragma: no cover - docs only
        """The caller.

        `owner` is the human who owns a bot account (else `null`), `scopes` those of the token
        used, `bots` the caller's bot accounts.
        """
        raise NotImplementedError


def _me(call: Call) -> tuple[int, Any]:
    assert call.player is not None and call.token is not None  # IsAuthenticated checked it
    return 200, selectors.me(call.player, token=call.token)


me = lean_view(MeView, get=_me)


def _token_infos(tokens: list[ApiToken]) -> list[Any]:
    return list(TokenInfoSerializer(tokens, many=True).data)


class MyTokensView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_tokens_list", responses={200: paginated(TokenInfoSerializer)})
    def get(self, request: Request) -> Response:
        """The caller's live tokens.

        Oldest first, paginated: `{id, name, key_prefix, scopes, created_at, last_used_at}`,
        never the key.
        """
        tokens = selectors.live_tokens(caller(request))
        return paginate(self, request, tokens, shown=_token_infos)

    @extend_schema(
        operation_id="me_tokens_create",
        request=NewTokenSerializer,
        responses={201: TokenSerializer, 400: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Another token for the caller.

        With some of the scopes the account may have (a human: `play`, `organise`; a bot:
        `play`, `bot`) → 201 `{token}`; the key is shown only here.
        """
        data = valid(NewTokenSerializer, request.data)
        _, key = services.new_token(caller(request), scopes=data["scopes"], name=data["name"])
        return Response({"token": key}, status=201)


class MyTokenView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="me_tokens_revoke", responses={204: None, 404: ERROR})
    def delete(self, request: Request, token_id: int) -> Response:
        """Revoke one of the caller's tokens.

        It stops working at once → 204; 404 `not_found` if it is not a live token of the caller.
        """
        services.revoke_token(caller(request), token_id=token_id)
        return Response(status=204)
