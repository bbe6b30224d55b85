"""The settings pick their backends from the environment alone (each case in a fresh process)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.support import ROOT, VENV_BIN, clean_env

PRINT_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
from bots.strategies import strong
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "host": db.get("HOST", ""),
    "port": str(db.get("PORT", "")), "user": db.get("USER", ""),
    "db_options": db.get("OPTIONS", {}),
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": str(settings.CACHES["default"]["LOCATION"]),
    "broker": settings.CELERY_BROKER_URL,
    "broker_options": settings.CELERY_BROKER_TRANSPORT_OPTIONS,
    "secret_key": settings.SECRET_KEY, "debug": settings.DEBUG,
    "record_signing_key": settings.RECORD_SIGNING_KEY,
    "allowed_hosts": settings.ALLOWED_HOSTS, "service_mode": settings.SERVICE_MODE,
    "strong_deals": strong.MAX_DEALS,
}))
"""


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "python"), "-c", PRINT_SETTINGS],
        cwd=ROOT,
        env=clean_env(DJANGO_SETTINGS_MODULE="config.settings.base", **env),
        capture_output=True,
        text=True,
    )


def settings_with(**env: str) -> dict[str, Any]:
    result = load_settings(**env)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def test_it_runs_embedded_when_nothing_is_set(tmp_path: Path) -> None:
    found = settings_with(DATA_DIR=str(tmp_path))

    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["name"] == str(tmp_path / "db.sqlite3")
    assert found["db_options"]["transaction_mode"] == "IMMEDIATE"
    assert found["cache"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert found["cache_location"] == str(tmp_path / "cache")
    assert found["broker"] == "filesystem://"
    assert found["broker_options"]["data_folder_in"] == str(tmp_path / "broker" / "in")
    assert (tmp_path / "broker" / "in").is_dir()
    assert found["broker_options"]["control_folder"] == str(tmp_path / "broker" / "control")
    assert found["service_mode"] is False
    assert found["debug"] is False
    assert found["allowed_hosts"] == ["localhost", "127.0.0.1", "[::1]"]
    assert found["strong_deals"] is None  # house:strong thinks for a time


def test_it_gives_house_strong_a_fixed_number_of_deals_when_set(tmp_path: Path) -> None:
    found = settings_with(DATA_DIR=str(tmp_path), HOUSE_BOT_STRONG_DEALS="7")

    assert found["strong_deals"] == 7


def test_it_refuses_house_strong_deals_below_one(tmp_path: Path) -> None:
    result = load_settings(DATA_DIR=str(tmp_path), HOUSE_BOT_STRONG_DEALS="0")

    assert result.returncode != 0
    assert "HOUSE_BOT_STRONG_DEALS must be at least 1" in result.stderr


def test_it_uses_postgresql_and_redis_when_their_urls_are_set(tmp_path: Path) -> None:
    found = settings_with(
        DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://player:secret@db.example:5433/sergeant",
        REDIS_URL="redis://cache.example:6380/2",
    )

    assert found["engine"] == "django.db.backends.postgresql"
    assert (found["name"], found["host"], found["port"], found["user"]) == (
        "sergeant",
        "db.example",
        "5433",
        "player",
    )
    assert found["cache"] == "django.core.cache.backends.redis.RedisCache"
    assert found["cache_location"] == "redis://cache.example:6380/2"
    assert found["broker"] == "redis://cache.example:6380/2"
    assert found["service_mode"] is True
    assert not (tmp_path / "broker").exists()


def test_it_keeps_the_sqlite_safety_options_for_an_explicit_sqlite_url(tmp_path: Path) -> None:
    found = settings_with(DATA_DIR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path}/other.db")

    assert found["name"] == f"{tmp_path}/other.db"
    assert found["db_options"]["timeout"] == 20
    assert found["db_options"]["transaction_mode"] == "IMMEDIATE"


def test_it_generates_a_secret_key_once_and_keeps_it(tmp_path: Path) -> None:
    first = settings_with(DATA_DIR=str(tmp_path))["secret_key"]
    second = settings_with(DATA_DIR=str(tmp_path))["secret_key"]
    elsewhere = settings_with(DATA_DIR=str(tmp_path / "other"))["secret_key"]

    assert len(first) >= 50
    assert first == second
    assert elsewhere != first
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


def test_it_generates_a_record_signing_key_once_and_keeps_it(tmp_path: Path) -> None:
    first = settings_with(DATA_DIR=str(tmp_path))["record_signing_key"]
    second = settings_with(DATA_DIR=str(tmp_path))["record_signing_key"]
    elsewhere = settings_with(DATA_DIR=str(tmp_path / "other"))["record_signing_key"]

    assert len(first) == 64 and int(first, 16) >= 0
    assert first == second != elsewhere
    assert (tmp_path / "record_signing_key").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.glob("record_signing_key*")) == ["record_signing_key"]


def test_it_reads_the_record_signing_key_from_the_environment(tmp_path: Path) -> None:
    given = "AB" * 32

    found = settings_with(DATA_DIR=str(tmp_path), RECORD_SIGNING_KEY=given)
    refused = load_settings(DATA_DIR=str(tmp_path), RECORD_SIGNING_KEY="not-a-key")

    assert found["record_signing_key"] == given.lower()
    assert not (tmp_path / "record_signing_key").exists()
    assert refused.returncode != 0
    assert "RECORD_SIGNING_KEY must be 64 hex digits" in refused.stderr


def test_it_reads_secret_key_debug_and_allowed_hosts_from_the_environment(
    tmp_path: Path,
) -> None:
    found = settings_with(
        DATA_DIR=str(tmp_path),
        SECRET_KEY="from-the-environment",
        DEBUG="true",
        ALLOWED_HOSTS="play.example,.club.example",
    )

    assert found["secret_key"] == "from-the-environment"
    assert found["debug"] is True
    assert found["allowed_hosts"] == ["play.example", ".club.example"]
    assert not (tmp_path / "secret_key").exists()


def test_it_hides_the_servers_startup_objects_from_the_cycle_collector(tmp_path: Path) -> None:
    # A full collection pass over Django's startup objects paused a server worker (see
    # server/gc_tuning.py); frozen, they are not walked.
    script = "import gc, config.asgi; print(gc.get_freeze_count())"
    output = subprocess.run(
        [str(VENV_BIN / "python"), "-c", script],
        cwd=ROOT,
        env=clean_env(DATA_DIR=str(tmp_path)),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert int(output.split()[-1]) > 50_000
