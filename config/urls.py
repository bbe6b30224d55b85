from django.contrib import admin
from django.urls import include, path

from config.health import HealthView

urlpatterns = [
    path("healthz", HealthView.as_view(), name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_router")),
]
