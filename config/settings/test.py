"""Settings for the test suite: the same environment-driven settings, made fast."""

from config.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
