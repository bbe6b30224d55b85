"""Routes of the accounts API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("accounts/register", api.RegisterView.as_view(), name="accounts-register"),
    path("accounts/token", api.LoginView.as_view(), name="accounts-token"),
    path("me", api.me, name="me"),
    path("me/tokens", api.MyTokensView.as_view(), name="me-tokens"),
    path("me/tokens/<id:token_id>", api.MyTokenView.as_view(), name="me-token"),
]
