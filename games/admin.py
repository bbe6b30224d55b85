from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import (
    Game,
    GameEvent,
    GameJournalPart,
    GamePlayer,
    Table,
    TableSeat,
)


class TableSeatInline(admin.TabularInline):
    model = TableSeat
    extra = 0
    raw_id_fields = ("player",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "created_by", "rated", "move_seconds", "created_at")
    list_filter = ("status", "rated")
    # Set by services.create_table only: set here, it would skip the check that only house
    # bots sit at a table of shared deals (services._sit), for players seated already.
    readonly_fields = ("deal_seed",)
    inlines = [TableSeatInline]


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GamePlayerInline(ReadOnlyInline):
    model = GamePlayer
    readonly_fields = ("seat", "player", "timeouts", "replaced_by", "rank", "score", "result")


class GameJournalPartInline(ReadOnlyInline):
    """The journal detached from the state at each hand's end (the record needs it)."""

    model = GameJournalPart
    readonly_fields = ("number", "data")


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    """Games are read-only here: their state changes only through the engine."""

    list_display = ("id", "status", "phase", "hand_number", "version", "started_at")
    list_filter = ("status", "rated")
    inlines = [GamePlayerInline, GameJournalPartInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Game._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "type", "public", "at")
    list_filter = ("type",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in GameEvent._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
