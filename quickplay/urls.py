"""Routes of the quick-play API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from quickplay import api

urlpatterns = [
    path("seeks", api.SeeksView.as_view(), name="seeks"),
    path("seeks/<id:seek_id>", api.SeekView.as_view(), name="seek"),
]
