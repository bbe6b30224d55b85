"""Tournaments in the admin: settings and entrants editable, results and the log read-only."""

from __future__ import annotations

from django.contrib import admin

from tournaments.models import (
    AuditEntry,
    Entrant,
    ForbiddenPair,
    Invitation,
    Result,
    Round,
    Tournament,
    TournamentTable,
)


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    raw_id_fields = ("player",)


class ForbiddenPairInline(admin.TabularInline):
    model = ForbiddenPair
    extra = 0
    raw_id_fields = ("first", "second")


class InvitationInline(admin.TabularInline):
    """Read-only: invitations are answered by the invited (docs/tournaments.md)."""

    model = Invitation
    extra = 0
    can_delete = False
    readonly_fields = ("player", "invited_by", "status", "created_at", "answered_at")

    def has_add_permission(self, request: object, obj: object = None) -> bool:
        return False


class AuditInline(admin.TabularInline):
    model = AuditEntry
    extra = 0
    can_delete = False
    readonly_fields = ("at", "actor", "action", "details")

    def has_add_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "format", "status", "current_round", "rounds", "created_by")
    list_filter = ("status", "format")
    raw_id_fields = ("created_by",)
    filter_horizontal = ("co_organisers",)
    readonly_fields = ("status", "current_round", "started_at", "finished_at")
    inlines = [EntrantInline, InvitationInline, ForbiddenPairInline, AuditInline]


class TableInline(admin.TabularInline):
    model = TournamentTable
    extra = 0
    can_delete = False
    readonly_fields = ("number", "table", "game", "seats", "adjudicated")


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "status", "deadline")
    readonly_fields = ("tournament", "number", "status", "byes", "started_at", "finished_at")
    inlines = [TableInline]


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ("round", "entrant", "rank", "score", "points", "bye")
    readonly_fields = ("round", "entrant", "table", "rank", "score", "points", "bye")
