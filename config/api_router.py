"""Every API v1 route, mounted under ``/api/v1/`` by config.urls.

Apps contribute their routes here; the schema and docs are generated from them.
"""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

import api.converters  # noqa: F401  # registers <id:...> before the apps' routes use it

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("", include("accounts.urls")),
    path("", include("realtime.urls")),
    path("", include("games.urls")),
    path("", include("bots.urls")),
    path("", include("tournaments.urls")),
    path("", include("ratings.urls")),
    path("", include("challenges.urls")),
    path("", include("quickplay.urls")),
    path("", include("arena.urls")),
    path("", include("notifications.urls")),
]
