"""Routes of the notifications API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from notifications import api

urlpatterns = [
    path("notifications", api.NotificationsView.as_view(), name="notifications"),
]
