"""ASGI entry point (``uvicorn config.asgi:application``): Django set up, then the platform's
application from the serving machinery (server/handlers.py)."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django.setup(set_prefix=False)

from server.handlers import make_application  # noqa: E402  (needs Django set up)

application = make_application()
