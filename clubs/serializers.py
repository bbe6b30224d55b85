"""Input validation and documented output shapes of the clubs API (docs/clubs.md)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.strict import StrictSerializer
from clubs.models import Club, Membership


class ClubSettingsSerializer(StrictSerializer):
    """Create (``POST /clubs``) or change (``PATCH /clubs/{slug}``; the slug stays)."""

    name = serializers.CharField(max_length=100)
    slug = serializers.SlugField(
        max_length=50, required=False, help_text="left out: made from the name"
    )
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    joining = serializers.ChoiceField(
        Club.Joining.choices,
        help_text="open: anyone joins; request: an admin approves; invite: the invited join",
    )


class ClubChangesSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100, required=False)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    joining = serializers.ChoiceField(Club.Joining.choices, required=False)


class JoinSerializer(StrictSerializer):
    player = serializers.CharField(
        max_length=150,
        required=False,
        help_text="a bot account of the caller's; left out: the caller",
    )


class InviteSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150, help_text="a person or a bot account")


class RoleSerializer(StrictSerializer):
    whole_on_patch = True

    role = serializers.ChoiceField(
        Membership.Role.choices,
        help_text="owner: passes ownership (the old owner becomes an admin)",
    )


# --- Output ---------------------------------------------------------------------------------


class ClubSerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    joining = serializers.CharField(help_text="open, request or invite")
    member_count = serializers.IntegerField()
    owner = serializers.CharField(allow_null=True)
    admins = serializers.ListField(
        child=serializers.CharField(), help_text="the members whose role is admin (not the owner)"
    )
    created_at = serializers.DateTimeField()


class MemberSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    role = serializers.CharField(help_text="owner, admin or member")
    joined_at = serializers.DateTimeField()
    ratings = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="the display rating in each pool the member is rated in (docs/ratings.md)",
    )


class PendingJoinSerializer(serializers.Serializer[Any]):
    club = serializers.CharField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    status = serializers.CharField(help_text="pending, approved or declined")
    created_at = serializers.DateTimeField()


class ClubInvitationSerializer(serializers.Serializer[Any]):
    club = serializers.CharField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    invited_by = serializers.CharField(allow_null=True)
    status = serializers.CharField(help_text="pending, accepted or declined")
    created_at = serializers.DateTimeField()
