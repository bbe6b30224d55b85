"""Routes of the arena API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from arena import api

urlpatterns = [
    path("arena", api.ArenaView.as_view(), name="arena"),
    path("arena/join", api.JoinView.as_view(), name="arena-join"),
    path("arena/leave", api.LeaveView.as_view(), name="arena-leave"),
]
