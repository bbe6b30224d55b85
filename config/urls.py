from django.contrib import admin
from django.urls import include, path

from health.views import HealthView

urlpatterns = [
    path("healthz", HealthView.as_view(), name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_router")),
    path("", include("web.urls")),
]

# HTML for browsers, the API's JSON error shape under /api/ (web/views/errors.py).
handler403 = "web.views.errors.forbidden"
handler404 = "web.views.errors.not_found"
handler500 = "web.views.errors.server_error"
