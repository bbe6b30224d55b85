"""The chat API's shapes."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ChatMessageSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    author = serializers.CharField(help_text="the author's username")
    text = serializers.CharField(help_text="as written: escape it where you show it")
    links = serializers.BooleanField(
        help_text="whether links in it may be shown as links (its author's account was at "
        "least a day old when it was posted)"
    )
    created_at = serializers.DateTimeField()


class ChatPostSerializer(serializers.Serializer[Any]):
    """What the view reads: the text as sent (the service trims and measures it)."""

    text = serializers.CharField(allow_blank=True, trim_whitespace=False)


class ChatPostDocSerializer(serializers.Serializer[Any]):
    """What the schema says of a message to post: some text that is not only spaces, at
    most 500 characters."""

    text = serializers.RegexField(r"\S", max_length=500)

    class Meta:
        ref_name = "ChatPost"


class MutedSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
