"""``GET /healthz``: 200 when every check passes (``ok``) or only Redis and what reads through
it fail (``degraded``), else 503 (``fail``); ``failing`` names what fails."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from health.checks import health_report


class HealthView(APIView):
    """Liveness of the database, Redis, the Celery broker and the workers."""

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
                        "status": serializers.ChoiceField(["ok", "degraded", "fail"]),
                        "failing": serializers.ListField(child=serializers.CharField()),
                        "checks": serializers.DictField(),
                    },
                ),
                description="`ok`: everything is fine. `degraded`: Redis is unreachable "
                "(`failing` names it and the checks that read through it); the API still "
                "serves, without rate limits, and the move clocks stop till it is back.",
            ),
            503: OpenApiResponse(
                description="Same body, `status` `fail`: the database is unreachable, or "
                "a check fails while Redis is up; `failing` names what is not fine."
            ),
        },
    )
    def get(self, request: Request) -> Response:
        """Whether the platform is up and doing its work.

        The database, Redis, the Celery broker, a worker's heartbeat and the move timer's last
        look → 200 when every check passes (`ok`) or only Redis and what reads through it
        fail (`degraded`), else 503 (`fail`); `failing` names what fails.
        """
        healthy, report = health_report()
        return Response(report, status=200 if healthy else 503)
