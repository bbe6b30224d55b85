"""Clubs and who belongs to them: members with a role, requests to join, invitations.

A club's owner is the member whose role is ``owner`` (exactly one); its admins are the
members whose role is ``admin``. Changes of one club's members run under the row lock of
its :class:`Club` (``clubs.services``).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from accounts.models import Player


class Club(models.Model):
    class Joining(models.TextChoices):
        OPEN = "open"
        REQUEST = "request"
        INVITE = "invite"

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="", max_length=2000)
    joining = models.CharField(max_length=8, choices=Joining.choices, default="open")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner"
        ADMIN = "admin"
        MEMBER = "member"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="club_memberships")
    role = models.CharField(max_length=6, choices=Role.choices, default="member")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "player"], name="one_membership_per_player"),
            models.UniqueConstraint(
                fields=["club"], condition=Q(role="owner"), name="one_owner_per_club"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.club_id} ({self.role})"


class JoinRequest(models.Model):
    """A request to join a club whose joining is ``request``: an admin approves or declines."""

    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        DECLINED = "declined"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="requests")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="club_requests")
    status = models.CharField(max_length=8, choices=Status.choices, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=Q(status="pending"),
                name="one_pending_club_request",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} asks {self.club_id} ({self.status})"


class ClubInvitation(models.Model):
    """An admin's invitation: the invited account (a bot's owner for a bot) joins with
    ``join`` or declines."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="club_invitations")
    invited_by = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=8, choices=Status.choices, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=Q(status="pending"),
                name="one_pending_club_invitation",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} invited to {self.club_id} ({self.status})"
