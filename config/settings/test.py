"""Settings for the test suite: the same environment-driven settings, isolated and made fast.

The suite keeps its files (SQLite test database, filesystem broker, file cache) in its own
``DATA_DIR``, and its PostgreSQL test database, Celery queue and cache keys under names
derived from that folder. So a platform started with ``make run``, or the suite of another
checkout on the same machine, never picks up this suite's tasks or rows.
"""

import hashlib
import os
from pathlib import Path

os.environ.setdefault("DATA_DIR", str(Path(__file__).resolve().parents[2] / "var" / "test"))

from config.settings.base import *  # noqa: F403
from config.settings.base import CACHES, CELERY_BEAT_SCHEDULE, DATA_DIR, DATABASES, INSTALLED_APPS

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A tiny app whose model and task let the suite prove the Celery round trip in both modes,
# and whose flush command empties the tables after each transactional test (its docstring).
INSTALLED_APPS = [*INSTALLED_APPS, "tests.probe"]

SUITE_ID = hashlib.sha256(str(DATA_DIR).encode()).hexdigest()[:8]
CELERY_TASK_DEFAULT_QUEUE = f"sergeant-test-{SUITE_ID}"
for _alias in CACHES.values():
    _alias["KEY_PREFIX"] = f"sergeant-test-{SUITE_ID}"
REALTIME_CHANNEL = f"sergeant-test-{SUITE_ID}:changes"
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{SUITE_ID}"}

# The suite's webhook bots are served on loopback; the searching bot thinks briefly.
BOT_WEBHOOK_ALLOW_PRIVATE = True
HOUSE_BOT_BUDGET_SECONDS = float(os.environ.get("HOUSE_BOT_BUDGET_SECONDS", "0.05"))

# The suite's worker lives for the whole session: left on, it would rate the games other
# tests finish while their teardown empties the tables (a deadlock with the flush). The tests
# of that path turn it on (tests/test_ratings_worker.py); the others call the service.
RATINGS_RATE_FINISHED_GAMES = False

# Beat marks expired challenges every second: a test of the expiry waits that long at most.
CHALLENGE_EXPIRY_SWEEP_SECONDS = 1.0
CELERY_BEAT_SCHEDULE["challenges-expire"]["schedule"] = CHALLENGE_EXPIRY_SWEEP_SECONDS
CELERY_BEAT_SCHEDULE["challenges-expire"]["options"]["expires"] = CHALLENGE_EXPIRY_SWEEP_SECONDS

# And the seeks past their time, every second too.
QUICKPLAY_EXPIRY_SWEEP_SECONDS = 1.0
CELERY_BEAT_SCHEDULE["quickplay-expire"]["schedule"] = QUICKPLAY_EXPIRY_SWEEP_SECONDS
CELERY_BEAT_SCHEDULE["quickplay-expire"]["options"]["expires"] = QUICKPLAY_EXPIRY_SWEEP_SECONDS
