"""Input validation and documented output shapes of accounts and tokens."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import ApiToken
from api.strict import StrictSerializer

#: Usernames of accounts people and bots register (house bots' ``house:`` names are not).
USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{2,29}$"


class RegisterSerializer(StrictSerializer):
    username = serializers.RegexField(
        USERNAME_PATTERN, max_length=30, help_text="3-30 letters, digits, _ . -"
    )
    password = serializers.CharField(write_only=True, min_length=8, max_length=200)
    email = serializers.EmailField(required=False, allow_blank=True, default="", max_length=254)


class LoginSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=200, write_only=True)
    scopes = serializers.ListField(
        child=serializers.ChoiceField(ApiToken.Scope.choices), required=False, allow_empty=False
    )
    name = serializers.CharField(max_length=100, required=False, default="")


class NewTokenSerializer(StrictSerializer):
    scopes = serializers.ListField(
        child=serializers.ChoiceField(ApiToken.Scope.choices), allow_empty=False
    )
    name = serializers.CharField(max_length=100, required=False, default="")


class AccountTokenSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    token = serializers.CharField()


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class TokenInfoSerializer(serializers.ModelSerializer[ApiToken]):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_prefix", "scopes", "created_at", "last_used_at"]


class MeSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True)
    email = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    bots = serializers.ListField(child=serializers.CharField())
