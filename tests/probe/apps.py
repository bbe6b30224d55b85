from django.apps import AppConfig


class ProbeConfig(AppConfig):
    """Test-only app: a row a Celery task marks, to prove a task really ran on a worker; and
    the suite's ``flush`` (management/commands/flush.py), run after each transactional test."""

    name = "tests.probe"
    label = "probe"
    default_auto_field = "django.db.models.BigAutoField"
