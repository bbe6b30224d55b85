"""What a service raises when it refuses: a domain error, with no HTTP in it.

Each error has a ``code`` (snake_case and stable: clients match on it), a ``message`` for
people, and ``details`` (extra fields a client may use, such as ``to_act`` or
``retry_after``). Its class says what kind of refusal it is; the HTTP edge turns the kind
into a status with one table (``api.errors.STATUS_BY_KIND``), for the REST framework's
views and the async views alike. A caller that must tell refusals apart catches a class,
never compares codes.
"""

from __future__ import annotations

from typing import Any

from django.db import InterfaceError, OperationalError


class DomainError(Exception):
    """A refusal of a service: ``code``, ``message`` and ``details``."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class Invalid(DomainError):
    """The request itself is wrong: a bad value, an unknown name, an illegal move."""


class NotAuthenticated(DomainError):
    """Who is asking is unknown: no credentials, or credentials that are not valid."""


class NotAllowed(DomainError):
    """The caller is known but may not do this."""


class NotFound(DomainError):
    """What the request names does not exist (or is not shown to this caller)."""


class Conflict(DomainError):
    """The state of things does not allow it now (a seat taken, a game over...)."""


class RateLimited(DomainError):
    """Too many requests; ``details["retry_after"]`` says in how many seconds to retry."""


class Unavailable(DomainError):
    """What the request needs is down (the database): ``details["retry_after"]`` says in how
    many seconds to try again. Nothing was written: every write is one statement or one
    transaction, so it either committed whole or not at all."""


#: The errors the database raises when it cannot be reached (or dropped the connection).
DATABASE_DOWN = (OperationalError, InterfaceError)
#: Seconds a client is told to wait before trying again while the database is unreachable.
DATABASE_RETRY_AFTER_SECONDS = 2


def database_unavailable() -> Unavailable:
    """The refusal of a request that failed on the database (one of :data:`DATABASE_DOWN`)."""
    return Unavailable(
        "service_unavailable",
        "The database is unreachable; try again shortly.",
        retry_after=DATABASE_RETRY_AFTER_SECONDS,
    )


def not_found(what: str) -> NotFound:
    """The usual 404 refusal: ``not_found("No such game.")``."""
    return NotFound("not_found", what)
