"""``POST /api/v1/bots``: a human creates a bot account it owns."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import require_scope
from accounts.models import ApiToken, Player
from accounts.serializers import USERNAME_PATTERN
from api.requests import valid
from api.schema import ERROR
from api.strict import StrictSerializer
from bots.models import BotAccount
from bots.services import create_bot_account


class BotCreateSerializer(StrictSerializer):
    username = serializers.RegexField(USERNAME_PATTERN, max_length=30)
    mode = serializers.ChoiceField(BotAccount.Mode.choices, default=BotAccount.Mode.POLL)
    webhook_url = serializers.URLField(required=False, allow_blank=True, default="", max_length=500)


class BotCreatedSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    token = serializers.CharField()
    mode = serializers.CharField()
    webhook_secret = serializers.CharField(required=False)


class BotsView(APIView):
    permission_classes = [require_scope(ApiToken.Scope.PLAY)]

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
