"""Bot accounts: a human creates one it owns, changes how it is reached, renews its token."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import caller, require_scope
from accounts.models import ApiToken, Player
from accounts.serializers import USERNAME_PATTERN
from accounts.services import rotate_bot_token
from api.requests import no_body, valid
from api.schema import ERROR
from api.strict import StrictSerializer
from bots.models import BotAccount
from bots.services import change_bot_reach, create_bot_account

CanPlay = require_scope(ApiToken.Scope.PLAY)


class BotCreateSerializer(StrictSerializer):
    username = serializers.RegexField(USERNAME_PATTERN, max_length=30)
    mode = serializers.ChoiceField(BotAccount.Mode.choices, default=BotAccount.Mode.POLL)
    webhook_url = serializers.URLField(required=False, allow_blank=True, default="", max_length=500)


class BotChangeSerializer(StrictSerializer):
    mode = serializers.ChoiceField(BotAccount.Mode.choices, required=False)
    webhook_url = serializers.URLField(required=False, allow_blank=True, max_length=500)


class BotCreatedSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    token = serializers.CharField()
    mode = serializers.CharField()
    webhook_secret = serializers.CharField(required=False)


class BotsView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="bots_create",
        request=BotCreateSerializer,
        responses={201: BotCreatedSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a bot account the caller owns.

        `mode` is `poll` (the bot reads its stream or events) or `webhook` (the server POSTs
        each turn to `webhook_url`, signed with the `webhook_secret` returned) → 201 `{username,
        token, mode, webhook_secret?}`. A bot account cannot own bots.
        """
        data = valid(BotCreateSerializer, request.data)
        assert isinstance(request.user, Player)
        account, key = create_bot_account(
            request.user,
            username=data["username"],
            mode=data["mode"],
            webhook_url=data["webhook_url"],
        )
        body: dict[str, Any] = {
            "username": account.player.username,
            "token": key,
            "mode": account.mode,
        }
        if account.mode == BotAccount.Mode.WEBHOOK:
            body["webhook_secret"] = account.webhook_secret
        return Response(body, status=201)


class BotSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    mode = serializers.CharField()
    webhook_url = serializers.CharField(help_text="empty in poll mode")
    webhook_secret = serializers.CharField(
        required=False, help_text="only when the change made a new one (a switch to webhook)"
    )


class BotTokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class BotView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="bots_update",
        request=BotChangeSerializer,
        responses={200: BotSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def patch(self, request: Request, username: str) -> Response:
        """Change how a bot is reached.

        Its owner sets `mode` (`poll` or `webhook`) and/or `webhook_url`, checked as when the
        bot is created → 200 `{username, mode, webhook_url, webhook_secret?}`. A switch to
        `webhook` makes a new `webhook_secret`, returned this once; a webhook bot given a new
        URL keeps its secret; a switch to `poll` drops URL and secret. 403 `not_bot_owner`.
        """
        data = valid(BotChangeSerializer, request.data)
        account, new_secret = change_bot_reach(
            caller(request),
            username=username,
            mode=data.get("mode"),
            webhook_url=data.get("webhook_url"),
        )
        body: dict[str, Any] = {
            "username": username,
            "mode": account.mode,
            "webhook_url": account.webhook_url,
        }
        if new_secret:
            body["webhook_secret"] = account.webhook_secret
        return Response(body)


class BotTokenView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="bots_token",
        request=None,
        responses={201: BotTokenSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, username: str) -> Response:
        """Give a bot a fresh token.

        Its owner gets a new token for it (scopes `play` and `bot`) → 201 `{token}`, shown this
        once. Every earlier token of the bot stops working at once, and the streams and long
        polls opened with them end. 403 `not_bot_owner`.
        """
        no_body(request.data)
        return Response({"token": rotate_bot_token(caller(request), username=username)}, 201)
