"""Routes of the challenges API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from challenges import api

C = "challenges/<id:challenge_id>"

urlpatterns = [
    path("challenges", api.ChallengesView.as_view(), name="challenges"),
    path(C, api.ChallengeView.as_view(), name="challenge"),
    path(f"{C}/accept", api.AcceptView.as_view(), name="challenge-accept"),
    path(f"{C}/decline", api.DeclineView.as_view(), name="challenge-decline"),
    path(f"{C}/cancel", api.CancelView.as_view(), name="challenge-cancel"),
]
