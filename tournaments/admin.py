"""Tournaments in the admin: settings and entrants editable, results and the log read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

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
from tournaments.services import changes


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
    readonly_fields = ("status", "current_round", "version", "started_at", "finished_at")
    inlines = [EntrantInline, InvitationInline, ForbiddenPairInline, AuditInline]

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        """An edit moves the version on (its page follows it live): every column but the
        version is written, which only ``changes.mark_changed`` moves, in the same
        transaction as the inlines' rows."""
        if not change:
            super().save_model(request, obj, form, change)
            return
        written = [
            f.name for f in Tournament._meta.concrete_fields if f.name not in ("id", "version")
        ]
        obj.save(update_fields=written)
        changes.mark_changed(tournament_ids=[obj.pk])


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
