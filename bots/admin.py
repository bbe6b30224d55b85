from django.contrib import admin

from bots.models import BotAccount


@admin.register(BotAccount)
class BotAccountAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("player", "mode", "webhook_url", "created_at")
    readonly_fields = ("webhook_secret",)
