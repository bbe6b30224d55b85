"""The documented output shape of the notifications API."""

from __future__ import annotations

from rest_framework import serializers

from notifications.selectors import KINDS


class NoticeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=KINDS,
        help_text="turn: a game whose turn is yours; round: a tournament round that seated you "
        "and is not finished (online or in person); challenge: a challenge waiting on your "
        "answer; invitation: a tournament invitation you answer (yours, or a bot account's "
        "of yours); club_invitation: a club invitation you answer (yours, or a bot "
        "account's of yours); club_request: a request to join a club you administer",
    )
    id = serializers.IntegerField(
        help_text="the game's (turn), the round's, the challenge's, the invitation's, the club "
        "invitation's or the join request's id"
    )
    game = serializers.IntegerField(
        allow_null=True, help_text="turn, round: the game (null at an in-person table)"
    )
    seat = serializers.IntegerField(allow_null=True, help_text="turn: your seat")
    version = serializers.IntegerField(
        allow_null=True, help_text="turn: the game's version (a move's expected_version)"
    )
    tournament = serializers.IntegerField(allow_null=True, help_text="round, invitation")
    tournament_name = serializers.CharField(allow_null=True, help_text="round, invitation")
    round = serializers.IntegerField(allow_null=True, help_text="round: its number")
    table = serializers.IntegerField(allow_null=True, help_text="round: your table's number")
    by = serializers.CharField(
        allow_null=True,
        help_text="challenge: the challenger; invitation, club_invitation: who invited",
    )
    player = serializers.CharField(
        allow_null=True,
        help_text="invitation, club_invitation: the account invited (you, or a bot account "
        "of yours); club_request: the account asking to join",
    )
    rules = serializers.CharField(allow_null=True, help_text="challenge: the rules preset")
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="challenge: when it expires; round: its deadline"
    )
    club = serializers.CharField(
        allow_null=True, help_text="club_invitation, club_request: the club's slug"
    )
    club_name = serializers.CharField(
        allow_null=True, help_text="club_invitation, club_request: the club's name"
    )
    code = serializers.CharField(
        allow_null=True, help_text="round at an in-person table: the table's code"
    )


class NotificationsSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=0, help_text="how many items")
    items = NoticeSerializer(many=True)
