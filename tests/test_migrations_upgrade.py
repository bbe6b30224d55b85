"""A database made before accounts and realtime took over the games app's models upgrades
with a plain ``manage.py migrate`` (accounts/management/commands/migrate.py).

Such a database has every table already and the games app's migrations applied, but not
the new apps' first migrations, on which the games app's now depend: Django's own
``migrate`` refuses it. Its tables are the ones a new database gets (the move kept their
names), so the old database is made here from a new one by forgetting those two records.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT, VENV_BIN, clean_env

TAKEN_OVER = {("accounts", "0001_initial"), ("realtime", "0001_initial")}


def manage(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DATA_DIR=str(tmp_path / "data"),
    )
    command = [str(VENV_BIN / "python"), "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def applied(tmp_path: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        return set(db.execute("SELECT app, name FROM django_migrations"))


@pytest.fixture(scope="module")
def new_database(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A new database made by ``migrate`` (its folder, and the output): made once, as
    migrating from nothing is the slow part, and copied by each test that changes it."""
    where = tmp_path_factory.mktemp("new-database")
    made = manage(where, "migrate", "--noinput")
    assert made.returncode == 0, made.stderr
    return where, made.stdout


def made_before_the_move(tmp_path: Path, new_database: tuple[Path, str]) -> None:
    with (
        sqlite3.connect(new_database[0] / "db.sqlite3") as source,
        sqlite3.connect(tmp_path / "db.sqlite3") as copy,
    ):
        source.backup(copy)
    # Such a database has none of the accounts' later changes (undone here, as they were
    # made after the move).
    undone = manage(tmp_path, "migrate", "accounts", "0001", "--noinput")
    assert undone.returncode == 0, undone.stderr
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        db.execute("DELETE FROM django_migrations WHERE app IN ('accounts', 'realtime')")
    assert not TAKEN_OVER & applied(tmp_path)


def test_it_upgrades_a_database_made_before_the_move(
    tmp_path: Path, new_database: tuple[Path, str]
) -> None:
    made_before_the_move(tmp_path, new_database)

    upgraded = manage(tmp_path, "migrate", "--noinput")

    assert upgraded.returncode == 0, upgraded.stderr
    assert "Recorded accounts.0001_initial" in upgraded.stdout
    assert applied(tmp_path) >= TAKEN_OVER
    check = manage(tmp_path, "migrate", "--check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_it_needs_the_record_that_django_alone_would_not_make(
    tmp_path: Path, new_database: tuple[Path, str]
) -> None:
    made_before_the_move(tmp_path, new_database)
    stock = (
        "import django; django.setup();"
        "from django.core.management import call_command;"
        "from django.core.management.commands.migrate import Command;"
        "call_command(Command(), interactive=False)"
    )

    refused = manage(tmp_path, "shell", "-c", stock)

    assert refused.returncode != 0
    assert "InconsistentMigrationHistory" in refused.stderr


def test_it_leaves_a_new_database_to_the_migrations_themselves(
    new_database: tuple[Path, str],
) -> None:
    where, output = new_database

    assert "Recorded" not in output
    assert "Applying accounts.0001_initial... OK" in output
    with sqlite3.connect(where / "db.sqlite3") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert {"games_player", "games_apitoken", "games_playermessage"} <= tables
