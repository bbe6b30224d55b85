"""Celery tasks of the accounts app: housekeeping of the web pages' browser sessions."""

from celery import shared_task

from accounts import services


@shared_task(name="accounts.end_expired_browser_sessions", ignore_result=True)
def end_expired_browser_sessions() -> int:
    return services.end_expired_browser_sessions()
