"""The checks of ``GET /healthz``: is the database reachable, the broker reachable, a worker
alive, and the move timer looking? (The records they read: ``core.heartbeats``.)"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections

from config.celery_app import app
from core.heartbeats import HEARTBEAT_KEY, MOVE_TIMER_KEY

BROKER_TIMEOUT_SECONDS = 2.0


def check_database() -> dict[str, Any]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": True, "vendor": connections["default"].vendor}


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
        MOVE_TIMER_KEY, "the move timer (manage.py movetimer) has not looked yet"
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
