"""``GET /healthz``: 200 when every check passes, else 503 naming what fails."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from health.checks import health_report


class HealthView(APIView):
    """Liveness of the database, the Celery broker and the workers."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="healthz",
        tags=["health"],
        responses={
            200: OpenApiResponse(
                inline_serializer(
                    "Health",
                    {
                        "status": serializers.ChoiceField(["ok", "fail"]),
                        "failing": serializers.ListField(child=serializers.CharField()),
                        "checks": serializers.DictField(),
                    },
                ),
                description="Everything is fine.",
            ),
            503: OpenApiResponse(description="Same body; `failing` names what is not fine."),
        },
    )
    def get(self, request: Request) -> Response:
        """Whether the platform is up and doing its work.

        The database, the Celery broker, a worker's heartbeat and the move timer's last look →
        200 when every check passes, else 503 naming what fails.
        """
        healthy, report = health_report()
        return Response(report, status=200 if healthy else 503)
