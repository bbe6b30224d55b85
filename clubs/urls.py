"""Routes of the clubs API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from clubs import api

C = "clubs/<slug:slug>"

urlpatterns = [
    path("clubs", api.ClubsView.as_view(), name="clubs"),
    path(C, api.ClubView.as_view(), name="club"),
    path(f"{C}/join", api.JoinView.as_view(), name="club-join"),
    path(f"{C}/requests", api.RequestsView.as_view(), name="club-requests"),
    path(f"{C}/requests/<str:username>/approve", api.ApproveView.as_view(), name="club-approve"),
    path(
        f"{C}/requests/<str:username>/decline",
        api.DeclineRequestView.as_view(),
        name="club-decline-request",
    ),
    path(f"{C}/invitations", api.InvitationsView.as_view(), name="club-invitations"),
    path(
        f"{C}/invitations/decline",
        api.DeclineInvitationView.as_view(),
        name="club-decline-invitation",
    ),
    path(f"{C}/leave", api.LeaveView.as_view(), name="club-leave"),
    path(f"{C}/members", api.MembersView.as_view(), name="club-members"),
    path(f"{C}/members/<str:username>", api.MemberView.as_view(), name="club-member"),
]
