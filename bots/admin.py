from typing import Any

from django.contrib import admin

from bots.models import BotAccount, WebhookDelivery


@admin.register(BotAccount)
class BotAccountAdmin(admin.ModelAdmin):
    list_display = ("player", "mode", "webhook_url", "created_at")
    readonly_fields = ("webhook_secret",)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The log of webhook pushes: read-only, it records what happened."""

    list_display = ("game", "seat", "version", "bot", "outcome", "http_status", "duration_ms")
    list_filter = ("outcome",)
    search_fields = ("bot__player__username",)

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
