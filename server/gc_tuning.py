"""Garbage collection in the long-running processes (the ASGI server, Celery workers).

CPython's cycle collector now and then makes a full pass over every container object the
process holds, and a Django process holds several hundred thousand from its start alone
(models, URL patterns, serializers, the engine's tables). In the ASGI server those passes
were the slow moves: long pauses of a worker, every request on it waiting (seen with
``gc.callbacks`` under the paced load benchmark). Objects made while starting live as
long as the process, so they are moved out of the collector's sight once started
(``gc.freeze``); the passes then walk only what requests made.

Requests themselves leave nothing for the collector: server/handlers.py breaks the reference
cycles Django's ASGI handler and Django REST framework made for every request. Before, each
request's objects waited for a full pass, and under the load benchmark those passes came
every few seconds and paused a worker; now they are short.
"""

import contextlib
import gc

from django.urls import resolve
from django.urls.exceptions import Resolver404


def freeze_startup_objects() -> None:
    """Load what the first requests would load lazily, then hide it all from the collector."""
    with contextlib.suppress(Resolver404):  # builds the URL resolver, importing the views
        resolve("/")
    gc.collect()
    gc.freeze()
