"""``GET /healthz``: is the database reachable, the broker reachable, a worker alive, and the
move timer looking?

A worker proves it is alive by running :func:`record_heartbeat`, which beat schedules every
``HEARTBEAT_INTERVAL`` seconds (and which a worker also records once when it becomes ready),
into the shared cache. A heartbeat older than ``HEARTBEAT_MAX_AGE`` means no worker is
consuming the queue. The move timer (games/timekeeper.py, in the beat process) records its
looks the same way, as often: an older one means no timeouts are being played.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

HEARTBEAT_KEY = "health:worker-heartbeat"
MOVE_TIMER_KEY = "health:move-timer-look"
BROKER_TIMEOUT_SECONDS = 2.0


def store_heartbeat(hostname: str) -> dict[str, Any]:
    beat = {"at": time.time(), "hostname": hostname}
    cache.set(HEARTBEAT_KEY, beat, timeout=int(settings.HEARTBEAT_MAX_AGE * 10))
    return beat


def store_move_timer_look() -> None:
    cache.set(MOVE_TIMER_KEY, time.time(), timeout=int(settings.HEARTBEAT_MAX_AGE * 10))


@shared_task(name="config.health.record_heartbeat", bind=True, ignore_result=True)
def record_heartbeat(self: Any) -> None:
    store_heartbeat(self.request.hostname or "unknown")


@worker_ready.connect
def _heartbeat_on_worker_ready(sender: Any = None, **_: Any) -> None:
    store_heartbeat(getattr(sender, "hostname", None) or "unknown")


def check_database() -> dict[str, Any]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "vendor": connections["default"].vendor}


def check_broker() -> dict[str, Any]:
    from config.celery_app import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_TIMEOUT_SECONDS)
            transport = conn.transport_cls
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "transport": str(transport)}


def _recorded(key: str, missing: str) -> tuple[Any, dict[str, Any] | None]:
    """(the value a process recorded under ``key``, None) or (None, the failed check)."""
    try:
        value = cache.get(key)
    except Exception as exc:
        return None, {"ok": False, "error": f"cache unreadable: {type(exc).__name__}: {exc}"}
    if not value:
        return None, {"ok": False, "error": missing}
    return value, None


def _fresh(at: float, what: str, **details: Any) -> dict[str, Any]:
    """The check of a record made at ``at``: failed once older than ``HEARTBEAT_MAX_AGE``."""
    age = time.time() - at
    state = {
        f"last_{what}": datetime.fromtimestamp(at, UTC).isoformat(),
        "age_seconds": round(age, 1),
        **details,
    }
    if age > settings.HEARTBEAT_MAX_AGE:
        return {"ok": False, "error": f"last {what} {age:.0f} s ago", **state}
    return {"ok": True, **state}


def check_worker() -> dict[str, Any]:
    beat, failed = _recorded(HEARTBEAT_KEY, "no worker heartbeat recorded yet")
    if failed:
        return failed
    return _fresh(float(beat["at"]), "heartbeat", hostname=beat.get("hostname"))


def check_move_timer() -> dict[str, Any]:
    looked_at, failed = _recorded(
        MOVE_TIMER_KEY, "the move timer (in celery beat) has not looked yet"
    )
    if failed:
        return failed
    return _fresh(float(looked_at), "look")


def health_report() -> tuple[bool, dict[str, Any]]:
    checks = {
        "database": check_database(),
        "broker": check_broker(),
        "worker": check_worker(),
        "move_timer": check_move_timer(),
    }
    failing = [name for name, result in checks.items() if not result["ok"]]
    report = {"status": "fail" if failing else "ok", "failing": failing, "checks": checks}
    return not failing, report


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
        healthy, report = health_report()
        return Response(report, status=200 if healthy else 503)
