"""Challenges in the admin, read-only: they change through their services only (a game is
dealt when the last invitee accepts, and the stream is told of every change)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from challenges.models import Challenge, ChallengeSeat


class ChallengeSeatInline(admin.TabularInline):
    model = ChallengeSeat
    extra = 0
    can_delete = False
    readonly_fields = ("seat", "player", "answer", "answered_at")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("id", "challenger", "status", "rated", "created_at", "expires_at", "game")
    list_filter = ("status", "rated")
    search_fields = ("challenger__username",)
    readonly_fields = (
        "challenger",
        "status",
        "rules",
        "rated",
        "move_seconds",
        "rematch_of",
        "game",
        "created_at",
        "expires_at",
        "closed_at",
    )
    inlines = [ChallengeSeatInline]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
