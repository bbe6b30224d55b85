"""Project configuration: settings, URLs, the Celery app, ASGI/WSGI entry points."""

from config.celery_app import app as celery_app

__all__ = ["celery_app"]
