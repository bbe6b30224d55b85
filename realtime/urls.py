"""Routes of the realtime API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from realtime import api

urlpatterns = [
    path("stream", api.stream, name="stream"),
]
