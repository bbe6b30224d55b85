"""The arenas in the admin: an arena's rules, move time and wait editable; entries and games
read-only (the seating service changes them)."""

from __future__ import annotations

from django.contrib import admin

from arena.models import Arena, ArenaEntry, ArenaGame


@admin.register(Arena)
class ArenaAdmin(admin.ModelAdmin):
    list_display = ("pool", "move_seconds", "wait_seconds", "created_at")


@admin.register(ArenaEntry)
class ArenaEntryAdmin(admin.ModelAdmin):
    list_display = ("player", "arena", "active", "games", "joined_at", "removed_reason")
    list_filter = ("arena", "active")
    raw_id_fields = ("player",)
    readonly_fields = ("idle_since", "last_table", "timeout_streak")


@admin.register(ArenaGame)
class ArenaGameAdmin(admin.ModelAdmin):
    list_display = ("game", "arena", "settled", "created_at")
    list_filter = ("arena", "settled")
    raw_id_fields = ("game",)
