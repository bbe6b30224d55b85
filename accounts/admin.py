from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "is_bot", "owner", "email", "is_staff", "date_joined")
    list_filter = ("is_bot", "is_staff", "is_active")
    fieldsets = (*UserAdmin.fieldsets, ("Bot", {"fields": ("is_bot", "owner")}))
    raw_id_fields = ("owner",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("key_prefix", "player", "name", "scopes", "created_at", "revoked_at")
    readonly_fields = ("key_hash", "key_prefix", "created_at", "last_used_at")
    raw_id_fields = ("player",)
