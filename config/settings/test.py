"""Settings for the test suite: the same environment-driven settings, isolated and made fast.

The suite keeps its files (SQLite test database, filesystem broker, file cache) in its own
``DATA_DIR`` and its Celery messages in its own queue, so a platform started with ``make run``
on the same machine never picks up a test's task, nor the other way round.
"""

import os
from pathlib import Path

os.environ.setdefault("DATA_DIR", str(Path(__file__).resolve().parents[2] / "var" / "test"))

from config.settings.base import *  # noqa: F403
from config.settings.base import CACHES, INSTALLED_APPS

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A tiny app whose model and task let the suite prove the Celery round trip in both modes.
INSTALLED_APPS = [*INSTALLED_APPS, "tests.probe"]

CELERY_TASK_DEFAULT_QUEUE = "sergeant-test"
CACHES["default"]["KEY_PREFIX"] = "sergeant-test"
