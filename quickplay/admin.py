"""Seeks in the admin, read-only: the matcher and the seekers change them, not the staff."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from quickplay.models import Seek


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "player",
        "status",
        "rated",
        "move_seconds",
        "created_at",
        "expires_at",
        "game",
    )
    list_filter = ("status", "rated")
    search_fields = ("player__username",)
    raw_id_fields = ("player", "game")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
