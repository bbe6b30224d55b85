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

#: Game fields the admin shows only after the end.
SECRET_UNTIL_THE_END = ("seed", "state")


class TableSeatInline(admin.TabularInline):
    model = TableSeat
    extra = 0
    raw_id_fields = ("player",)


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "created_by", "rated", "move_seconds", "created_at")
    list_filter = ("status", "rated")
    # Set by games.tables.create_table only: set here, it would skip the check that only
    # house bots sit at a table of shared deals (games.tables._sit), for players seated
    # already.
    readonly_fields = ("deal_seed",)
    inlines = [TableSeatInline]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A table's deal seed deals its game: shown only once that game is over.
        fields = list(super().get_fields(request, obj))
        game = getattr(obj, "game", None) if obj is not None else None
        if game is None or game.status != Game.Status.FINISHED:
            fields = [f for f in fields if f != "deal_seed"]
        return fields


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

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # The seed (and the state, which holds it) would show every deal to come: shown
        # only after the end, when the record publishes them (docs/rules.md, "Fair and
        # verifiable deals").
        fields = list(super().get_fields(request, obj))
        if obj is None or obj.status != Game.Status.FINISHED:
            fields = [f for f in fields if f not in SECRET_UNTIL_THE_END]
        return fields

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
