"""Settings for every way of running the platform, read from environment variables only.

Two modes, chosen by what is set:

* **Embedded default** (nothing set): SQLite in ``DATA_DIR``, Celery over kombu's filesystem
  transport in ``DATA_DIR``, a file-based cache there too. Needs no server at all.
* **Service mode** (``DATABASE_URL`` and ``REDIS_URL`` set): PostgreSQL via psycopg 3, and Redis
  as Celery broker, cache and pub/sub.

The variables are documented in README.md ("Configuration").
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DATA_DIR = Path(env.str("DATA_DIR", default=str(BASE_DIR / "var"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DEBUG", default=False)


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in DATA_DIR.

    A fixed fallback in the source would make every fresh install share one key.
    """
    if key := env.str("SECRET_KEY", default=""):
        return key
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()


def _record_signing_key() -> str:
    """RECORD_SIGNING_KEY from the environment, else one generated once and kept in DATA_DIR
    (mode 600): the Ed25519 private key that signs the games' records (games/records.py), as
    64 hex digits (its 32 bytes). Its public half is served at ``GET /api/v1/records/key``.

    Made in a file of its own and linked into place, so that processes starting together
    (the web server's workers, the Celery worker) all end up with the one key.
    """
    key = env.str("RECORD_SIGNING_KEY", default="")
    if not key:
        key_file = DATA_DIR / "record_signing_key"
        if not key_file.exists():
            made = DATA_DIR / f"record_signing_key.{os.getpid()}.{secrets.token_hex(4)}"
            made.write_text(secrets.token_hex(32))
            made.chmod(0o600)
            try:
                os.link(made, key_file)
            except FileExistsError:
                pass  # another process made it first: theirs is the key
            finally:
                made.unlink()
        key = key_file.read_text().strip()
    if not re.fullmatch(r"[0-9a-fA-F]{64}", key):
        raise ImproperlyConfigured(
            "RECORD_SIGNING_KEY must be 64 hex digits: an Ed25519 private key's 32 bytes "
            "(e.g. `python -c 'import secrets; print(secrets.token_hex(32))'`)"
        )
    return key.lower()


RECORD_SIGNING_KEY = _record_signing_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# The pages' log-in (web/); ``?next=`` brings a person back to the page that asked.
LOGIN_URL = "/login"
LOGIN_REDIRECT_URL = "/"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 30
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "web.views.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "realtime",
    "games",
    "bots",
    "ratings",
    "tournaments",
    "challenges",
    "quickplay",
    "arena",
    "notifications",
    "health",
    "web",  # the web pages: on top of every other app, and imported by none
    "config.apps.WiringConfig",  # connects the apps to each other (config/wiring.py)
]

# The pages' session, common, CSRF, auth and messages middleware are Django's, passed by on
# the API's paths (server/middleware.py): the API authenticates by token.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "api.middleware.ApiGuardMiddleware",
    "server.middleware.SessionMiddleware",
    "server.middleware.CommonMiddleware",
    "server.middleware.CsrfViewMiddleware",
    "server.middleware.AuthenticationMiddleware",
    "server.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------

SQLITE_PATH = DATA_DIR / "db.sqlite3"


# Connections per process in service mode (psycopg pool); PostgreSQL allows 100 by default.
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=20)
#: How long a request waits for a PostgreSQL connection before it answers 503.
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=5.0)


def database_settings(url: str | None) -> dict[str, Any]:
    """The default database for DATABASE_URL, or the embedded SQLite file when it is unset."""
    config: dict[str, Any]
    if url:
        config = environ.Env.db_url_config(url)
    else:
        config = {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            "TEST": {"NAME": str(DATA_DIR / "test-db.sqlite3")},
        }
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI every request runs in a fresh thread; without a pool each one would open
        # (and close) its own connection, which costs more than the request itself.
        config.setdefault("OPTIONS", {})
        config["OPTIONS"].setdefault(
            # A short wait for a connection: when the database is down, requests (and
            # /healthz) fail within seconds instead of hanging.
            "pool",
            {"min_size": 2, "max_size": DB_POOL_MAX_SIZE, "timeout": DB_POOL_TIMEOUT},
        )
        # Prepared statements: a statement run 5 times on a connection is parsed and planned
        # once (psycopg's default threshold; Django turns it off by default, for poolers in
        # front of PostgreSQL, which this set-up does not have). They need parameters bound
        # on the server. They cut PostgreSQL's CPU per move.
        config["OPTIONS"].setdefault("server_side_binding", True)
        config["OPTIONS"].setdefault("prepare_threshold", 5)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # The web server and the Celery worker write to one file from separate processes:
        # wait for the lock instead of failing, and take it at BEGIN so a read-then-write
        # transaction cannot deadlock against another writer. WAL lets readers go on meanwhile.
        config["OPTIONS"] = {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            **config.get("OPTIONS", {}),
        }
    return config


DATABASE_URL = env.str("DATABASE_URL", default="")
DATABASES = {"default": database_settings(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.Player"

# --- Redis, cache and Celery ----------------------------------------------------------------

REDIS_URL = env.str("REDIS_URL", default="")
CELERY_FS_DIR = DATA_DIR / "broker"


# A dead Redis must not stall a request: connect within this, a reply within that (seconds);
# no retries (core/redis_client.py). The broker's publishes get the same short waits.
REDIS_CONNECT_TIMEOUT = env.float("REDIS_CONNECT_TIMEOUT", default=0.5)
REDIS_SOCKET_TIMEOUT = env.float("REDIS_SOCKET_TIMEOUT", default=1.0)


def cache_settings(redis_url: str, folder: str = "cache") -> dict[str, Any]:
    """Redis when configured; else a file cache in ``DATA_DIR/folder``, which the web and
    worker processes share."""
    if redis_url:
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "OPTIONS": {
                "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
            },
        }
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(DATA_DIR / folder),
    }


def celery_broker_settings(redis_url: str) -> dict[str, Any]:
    """Celery's broker URL and transport options for the mode in use."""
    if redis_url:
        return {
            "broker_url": redis_url,
            "broker_transport": None,
            "broker_transport_options": {"socket_connect_timeout": REDIS_CONNECT_TIMEOUT},
        }
    for folder in ("in", "processed", "control"):
        (CELERY_FS_DIR / folder).mkdir(parents=True, exist_ok=True)
    return {
        "broker_url": "filesystem://",
        "broker_transport": "config.broker:Transport",
        "broker_transport_options": {
            # One folder for both directions: producers and consumers are separate processes.
            "data_folder_in": str(CELERY_FS_DIR / "in"),
            "data_folder_out": str(CELERY_FS_DIR / "in"),
            "processed_folder": str(CELERY_FS_DIR / "processed"),
            # Exchange bindings; kombu's default is a "control" folder in the working directory.
            "control_folder": str(CELERY_FS_DIR / "control"),
            "store_processed": False,
            # The filesystem transport polls; the default second would delay every bot move.
            "polling_interval": 0.05,
        },
    }


CACHES = {
    "default": cache_settings(REDIS_URL),
    # The background processes' heartbeats (core/heartbeats.py) in a store of their own: the
    # embedded default's file cache deletes a third of its entries at random whenever it
    # holds MAX_ENTRIES (300; the rate limits keep a counter per caller and minute there), and
    # a heartbeat deleted so fails /healthz until the next one. In service mode both are Redis.
    "heartbeats": cache_settings(REDIS_URL, folder="heartbeats"),
}
SERVICE_MODE = bool(REDIS_URL)
# Redis pub/sub ignores the database number: deployments (or test suites) sharing one Redis
# server are kept apart by the name of the channel every change is published on
# (realtime/hub.py).
REALTIME_CHANNEL = env.str(
    "REALTIME_CHANNEL", default=f"sergeant:{urlsplit(REDIS_URL).path.strip('/') or '0'}:changes"
)

_broker = celery_broker_settings(REDIS_URL)
CELERY_BROKER_URL = _broker["broker_url"]
CELERY_BROKER_TRANSPORT = _broker["broker_transport"]
CELERY_BROKER_TRANSPORT_OPTIONS = _broker["broker_transport_options"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task enqueued while the broker is down (a bot's turn, a rating) fails within about a
# second, not after Celery's default 4 s connect timeout and three retries: the request that
# enqueued it has committed and goes on (games/changes.py); sweeps and the move timer catch
# up on what was not enqueued.
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

# The beat-scheduled heartbeat that GET /healthz reads; stale after HEARTBEAT_MAX_AGE seconds.
HEARTBEAT_INTERVAL = env.float("HEARTBEAT_INTERVAL", default=10.0)
HEARTBEAT_MAX_AGE = env.float("HEARTBEAT_MAX_AGE", default=60.0)
# Move time: the move timer (manage.py movetimer, games/timekeeper.py) sleeps until the nearest
# deadline, looking again at least every MOVE_TIMER_LOOK_SECONDS for new ones; it plays for
# at most MOVE_TIMER_BATCH overdue games a look.
MOVE_TIMER_LOOK_SECONDS = env.float("MOVE_TIMER_LOOK_SECONDS", default=0.25)
MOVE_TIMER_BATCH = env.int("MOVE_TIMER_BATCH", default=500)

# House bots: thinking time per decision of the searching bot (house:strong).
HOUSE_BOT_BUDGET_SECONDS = env.float("HOUSE_BOT_BUDGET_SECONDS", default=0.3)
# Or, when set, exactly this many deals searched per decision whatever the time it takes: the
# same strength however busy the machine is (bots/apps.py sets strong.MAX_DEALS from it).
HOUSE_BOT_STRONG_DEALS = env.int("HOUSE_BOT_STRONG_DEALS", default=None)
if HOUSE_BOT_STRONG_DEALS is not None and HOUSE_BOT_STRONG_DEALS < 1:
    raise ImproperlyConfigured("HOUSE_BOT_STRONG_DEALS must be at least 1")
# Webhook bots: outbound calls go to public addresses only unless this is set (development).
BOT_WEBHOOK_ALLOW_PRIVATE = env.bool("BOT_WEBHOOK_ALLOW_PRIVATE", default=False)
BOT_WEBHOOK_CONNECT_TIMEOUT = env.float("BOT_WEBHOOK_CONNECT_TIMEOUT", default=2.0)
# The read timeout is also capped by the table's move time.
BOT_WEBHOOK_READ_TIMEOUT = env.float("BOT_WEBHOOK_READ_TIMEOUT", default=5.0)
BOT_WEBHOOK_MAX_REPLY_BYTES = env.int("BOT_WEBHOOK_MAX_REPLY_BYTES", default=64 * 1024)

# The bot arena (arena/, docs/api.md "The arena"). A pool's arena is made on its first join
# with these; its row (the admin) may change them afterwards.
ARENA_MOVE_SECONDS = env.int("ARENA_MOVE_SECONDS", default=10)
# How long an idle bot waits for other bots before house bots fill its table (or before it
# plays again with the very bots of its last game).
ARENA_WAIT_SECONDS = env.float("ARENA_WAIT_SECONDS", default=20.0)
# The arena's games end after this many hands at most (unset: the preset's own end).
ARENA_MAX_HANDS = env.int("ARENA_MAX_HANDS", default=None)
# The random shift of each bot's rating (ordinal) when the arena sorts them into tables.
ARENA_PAIRING_JITTER = env.float("ARENA_PAIRING_JITTER", default=1.0)
# A bot that timed out in this many arena games in a row is taken out (as is one whose seat
# was handed to a house bot after three timeouts in one game).
ARENA_TIMEOUT_GAMES = env.int("ARENA_TIMEOUT_GAMES", default=3)
ARENA_FILLER_BOTS = ("house:heuristic", "house:random")
# The house bot named as the creator of the arena's tables.
ARENA_HOST_BOT = "house:heuristic"
ARENA_LEADERBOARD_SIZE = 100
ARENA_SWEEP_SECONDS = env.float("ARENA_SWEEP_SECONDS", default=2.0)
# How often beat marks expired the challenges past their time (a challenge read, accepted or
# declined after its time is expired at once, whatever the sweep).
CHALLENGE_EXPIRY_SWEEP_SECONDS = env.float("CHALLENGE_EXPIRY_SWEEP_SECONDS", default=5.0)
# Quick play: a seek nobody has seated this long after it was made (after its house-bot fill,
# if it asked for one) leaves the queue, expired; the matcher never takes it past that time.
QUICKPLAY_SEEK_SECONDS = env.int("QUICKPLAY_SEEK_SECONDS", default=600)
if QUICKPLAY_SEEK_SECONDS < 1:
    raise ImproperlyConfigured("QUICKPLAY_SEEK_SECONDS must be at least 1")
# How often beat marks expired the seeks past their time and tells their seekers.
QUICKPLAY_EXPIRY_SWEEP_SECONDS = env.float("QUICKPLAY_EXPIRY_SWEEP_SECONDS", default=5.0)

# Guests (visitors who play without an account, docs/web.md): how many guest accounts one
# client address may make in an hour, and how many days a guest that has not signed up is
# kept after its last log-in before beat removes it (docs/operations.md).
GUEST_CREATIONS_PER_HOUR = env.int("GUEST_CREATIONS_PER_HOUR", default=20)
GUEST_KEEP_DAYS = env.float("GUEST_KEEP_DAYS", default=7.0)
# A person's first this-many games show the table's hints (unless they turned them off).
HINT_GAMES = env.int("HINT_GAMES", default=3)

CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {
        "task": "health.record_heartbeat",
        "schedule": HEARTBEAT_INTERVAL,
        # A heartbeat that waited longer than its interval says nothing new.
        "options": {"expires": HEARTBEAT_INTERVAL},
    },
    # House-bot turns whose task was lost (a killed worker, the broker down when sent).
    "bots-resend-stalled-house-turns": {
        "task": "bots.resend_stalled_house_turns",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    },
    "purge-expired-records": {
        "task": "games.purge_expired_records",
        "schedule": 3600.0,
        "options": {"expires": 600.0},
    },
    # Expired browser sessions of the web pages, and their API tokens.
    "end-expired-browser-sessions": {
        "task": "accounts.end_expired_browser_sessions",
        "schedule": 3600.0,
        "options": {"expires": 600.0},
    },
    # Starts tournaments at their starts_at, and advances any round whose task was lost.
    "tournaments-sweep": {
        "task": "tournaments.sweep",
        "schedule": 30.0,
        "options": {"expires": 30.0},
    },
    # Pending challenges past their expires_at (challenges/services.py).
    "challenges-expire": {
        "task": "challenges.expire_due",
        "schedule": CHALLENGE_EXPIRY_SWEEP_SECONDS,
        "options": {"expires": CHALLENGE_EXPIRY_SWEEP_SECONDS},
    },
    # Quick play: seats the seeks whose house-bot fill came due, and any whose task was lost.
    "quickplay-match": {
        "task": "quickplay.match",
        "schedule": 1.0,
        "options": {"expires": 1.0},
    },
    # Quick play: marks expired the seeks past their expires_at, and tells their seekers.
    "quickplay-expire": {
        "task": "quickplay.expire_due",
        "schedule": QUICKPLAY_EXPIRY_SWEEP_SECONDS,
        "options": {"expires": QUICKPLAY_EXPIRY_SWEEP_SECONDS},
    },
    # Seats the bots of every arena (lost tasks, bots that have waited long enough).
    "arena-sweep": {
        "task": "arena.sweep",
        "schedule": ARENA_SWEEP_SECONDS,
        "options": {"expires": ARENA_SWEEP_SECONDS},
    },
    # Guests that never signed up, with the games only they and house bots played.
    "games-remove-stale-guests": {
        "task": "games.remove_stale_guests",
        "schedule": 3600.0,
        "options": {"expires": 600.0},
    },
    # Ratings of games whose rating task was lost (the broker was down when they ended).
    "ratings-missed-games": {
        "task": "ratings.rate_missed_games",
        "schedule": 300.0,
        "options": {"expires": 300.0},
    },
}

# Queue a rating update when a rated game ends (off only in the test suite; see test.py).
RATINGS_RATE_FINISHED_GAMES = True

# --- Auth, i18n, static ---------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every start when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the apps' folders, so the run command needs no collectstatic step.
WHITENOISE_USE_FINDERS = True

# --- API ------------------------------------------------------------------------------------

# Requests per minute per token (per address without one); 429 with Retry-After beyond.
RATE_LIMIT_PER_MINUTE = env.int("RATE_LIMIT_PER_MINUTE", default=1200)
# The longest a web process trusts the live tokens it keeps (accounts/token_cache.py) without
# looking again: the bound on a change no announcement covers (SQL by hand, a lost publish).
TOKEN_CACHE_SECONDS = env.float("TOKEN_CACHE_SECONDS", default=1.0)
# A live stream's client that falls this far behind (bytes of frames not yet sent to it:
# it stopped reading) is dropped, so that it holds nothing of the others (realtime/feeds.py).
LIVE_MAX_BEHIND_BYTES = env.int("LIVE_MAX_BEHIND_BYTES", default=512 * 1024)
# A live stream sends a comment when nothing was sent for this long (proxies close idle
# connections; the contract asks for one at least every 20 s).
LIVE_KEEPALIVE_SECONDS = env.float("LIVE_KEEPALIVE_SECONDS", default=15.0)
# Largest API request body; bigger ones get 413 body_too_large.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=16 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = max(API_MAX_BODY_BYTES, 2_621_440)

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "api.schema.ProjectAutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["api.rendering.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.rendering.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_THROTTLE_CLASSES": ["accounts.ratelimit.TokenRateThrottle"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Sergeant Major API",
    "DESCRIPTION": "Play Sergeant Major (3-5-8): tables, games, bots, ratings and tournaments.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    # Ids in paths (api/converters.py); api/schema.py adds their range.
    "PATH_CONVERTER_OVERRIDES": {"id": int},
    # Request bodies get their own components, which can say what only input must be: a
    # required text is not blank (minLength 1), and holds no NUL (api/schema.py).
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.no_nul_in_request_texts",
    ],
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The areas of the API, in reading order (each operation's tag: api/schema.py).
    "TAGS": [
        {"name": "accounts", "description": "Register, log in, the caller and their tokens."},
        {"name": "tables", "description": "The lobby: create a table, sit down, seat bots."},
        {"name": "games", "description": "A game as you may see it, your actions, its events."},
        {"name": "realtime", "description": "Your NDJSON stream: your turns as they come."},
        {"name": "bots", "description": "Bot accounts you own (docs/bots.md)."},
        {"name": "players", "description": "Profiles, match histories, rating histories."},
        {"name": "ratings", "description": "Leaderboards and predictions, per rating pool."},
        {"name": "tournaments", "description": "Club tournaments for 3-seat tables."},
        {"name": "health", "description": "Whether the platform is up and doing its work."},
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
