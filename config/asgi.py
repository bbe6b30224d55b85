"""ASGI entry point: the platform is served by uvicorn so waiting clients hold no thread.

Two Django handlers share the process: ``/api/`` and ``/healthz`` go through one with the
API's own middleware (``API_MIDDLEWARE``: async capable, no sessions or CSRF, since the API
authenticates by token); everything else (admin, docs pages, static files) through the
full ``MIDDLEWARE``. Under ASGI each sync-only hook of Django's classic middleware costs a
thread hop; the API stack needs one hop, to run the view.
"""

import os
from typing import Any

import django
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django.setup(set_prefix=False)


class ApiHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        # BaseHandler reads settings.MIDDLEWARE; this runs once, at import, in one thread.
        full_stack = settings.MIDDLEWARE
        settings.MIDDLEWARE = settings.API_MIDDLEWARE
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = full_stack


site_handler = ASGIHandler()
api_handler = ApiHandler()


def is_api_path(path: str) -> bool:
    return path.startswith("/api/") or path == "/healthz"


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http" and is_api_path(scope["path"]):
        await api_handler(scope, receive, send)
    else:
        await site_handler(scope, receive, send)
