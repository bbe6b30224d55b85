"""Routes of a club's tournaments and leagues, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from leagues import api

C = "clubs/<slug:slug>"

urlpatterns = [
    path(f"{C}/leaderboard", api.LeaderboardView.as_view(), name="club-leaderboard"),
    path(f"{C}/tournaments", api.ClubTournamentsView.as_view(), name="club-tournaments"),
    path(f"{C}/leagues", api.LeaguesView.as_view(), name="club-leagues"),
    path(f"{C}/leagues/<id:league_id>", api.LeagueView.as_view(), name="club-league"),
    path(
        f"{C}/leagues/<id:league_id>/tournaments",
        api.LeagueNightsView.as_view(),
        name="club-league-nights",
    ),
]
