"""The chat API's shapes."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.strict import StrictSerializer


class ChatMessageSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    author = serializers.CharField(help_text="the author's username")
    text = serializers.CharField(help_text="as written: escape it where you show it")
    links = serializers.BooleanField(
        help_text="whether links in it may be shown as links (its author's account was at "
        "least a day old when it was posted)"
    )
    created_at = serializers.DateTimeField()


class ChatPostSerializer(StrictSerializer):
    text = serializers.CharField(
        max_length=500, help_text="at most 500 characters, trimmed of surrounding spaces"
    )


class MutedSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
