"""Routes of the ratings API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from ratings import api

urlpatterns = [
    path("ratings", api.LeaderboardView.as_view(), name="ratings"),
    path("ratings/predict", api.PredictView.as_view(), name="ratings-predict"),
    path("players/<str:username>/ratings", api.PlayerRatingsView.as_view(), name="player-ratings"),
]
