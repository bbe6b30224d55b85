"""The checks of ``GET /healthz``: is the database reachable, Redis reachable (service mode),
the broker reachable, a worker alive, and the move timer looking? (The records they read:
``core.heartbeats``.)

The report's ``status``:

* ``ok``: every check passes.
* ``degraded``: Redis is unreachable and the database is not: the API still serves (rate
  limits fail open, wake-ups fall back to polling, the move clocks stop), but bots' turns,
  ratings and tournaments wait for it. The checks that read through Redis (``broker``, and
  the records of ``worker`` and ``move_timer``) fail with it and are named in ``failing``.
  Answered with 200, so that a load balancer keeps sending requests to the web processes,
  which can serve them.
* ``fail``: the database is unreachable, or a check fails while Redis is up (no worker, a
  move timer that stopped looking): answered with 503.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connections

from config.celery_app import app
from core.heartbeats import HEARTBEAT_KEY, MOVE_TIMER_KEY, heartbeat_store
from core.redis_client import shared_redis

BROKER_TIMEOUT_SECONDS = 2.0


def check_database() -> dict[str, Any]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "vendor": connections["default"].vendor}


def check_redis() -> dict[str, Any]:
    """Redis answers a PING (service mode; the embedded default has none to check)."""
    if not settings.REDIS_URL:
        return {"ok": True, "used": False}
    try:
        shared_redis().ping()
    except Exception as exc:
        return {"ok": False, "used": True, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "used": True}


def check_broker() -> dict[str, Any]:
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
        value = heartbeat_store().get(key)
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
        MOVE_TIMER_KEY, "the move timer (manage.py movetimer) has not looked yet"
    )
    if failed:
        return failed
    return _fresh(float(looked_at), "look")


#: The checks that read through Redis in service mode: they fail when it does.
THROUGH_REDIS = ("redis", "broker", "worker", "move_timer")


def overall_status(failing: list[str]) -> str:
    """``ok``, ``degraded`` or ``fail`` (the module's docstring says when)."""
    if not failing:
        return "ok"
    if "redis" in failing and all(name in THROUGH_REDIS for name in failing):
        return "degraded"
    return "fail"


def health_report() -> tuple[bool, dict[str, Any]]:
    """(whether to answer 200, the report)."""
    redis = check_redis()
    checks = {
        "database": check_database(),
        "redis": redis,
        # Without Redis the broker's own connection attempt would only wait to fail the same.
        "broker": check_broker() if redis["ok"] else {"ok": False, "error": "Redis unreachable"},
        "worker": check_worker(),
        "move_timer": check_move_timer(),
    }
    failing = [name for name, result in checks.items() if not result["ok"]]
    status = overall_status(failing)
    report = {"status": status, "failing": failing, "checks": checks}
    return status != "fail", report
