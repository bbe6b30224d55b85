from typing import Any

from django.contrib import admin
from django.http import HttpRequest, JsonResponse
from django.urls import include, path

from api.errors import error_body
from health.views import HealthView

urlpatterns = [
    path("healthz", HealthView.as_view(), name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_router")),
]


def not_found(request: HttpRequest, exception: Any = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", f"No such path: {request.path}"), status=404)


def server_error(request: HttpRequest) -> JsonResponse:
    return JsonResponse(error_body("server_error", "Something went wrong on our side."), status=500)


handler404 = not_found
handler500 = server_error
