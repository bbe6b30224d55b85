"""Schemathesis over the whole OpenAPI schema, against the live server, with every kind of
caller: none, a person's token (``play`` and ``organise``), a ``play``-only and an
``organise``-only token, and a bot account's token.

Every check Schemathesis has runs on every answer (server errors, status codes, content
types, headers, bodies against the documented shapes, rejection of invalid input, acceptance
of valid input, authentication that is declared but not enforced, methods not allowed...),
on positive and negative examples of every operation. The stream (``GET /stream``) and the
live streams (``GET .../live``) do not end while their topic goes on, so they are left out
of the fuzzing only; their tests are tests/test_realtime*.py, tests/test_live_stream.py and
tests/test_tournament_live.py.

Generation is derandomized (the same examples every run) and bounded per operation, so the
whole matrix takes a few minutes. A failure names the operation, the check and the request
(as a curl command).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.openapi.checks import RejectedPositiveData

from accounts import ratelimit
from accounts.auth import token_for_key
from tests.api_client import Client, register
from tests.conftest import LiveServer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

#: The operations whose answers stay open (the caller's stream, the live streams).
STREAMS = r"^/api/v1/stream$|/live$"

#: Examples of each operation, in each generation mode (positive, negative): half as many on
#: the embedded default, which the suite runs second, after service mode has had the full
#: count (the two modes share every view; what differs is the database under them).
MAX_EXAMPLES = int(
    os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "6" if os.environ.get("REDIS_URL") else "3")
)

KINDS = ["none", "person", "play-only", "organise-only", "bot"]

#: Valid input by the schema that the server refuses (400) for a rule no OpenAPI schema can
#: state: the operation, the field the refusal names, and the rule. The
#: ``positive_data_acceptance`` check's failures are expected there, and only there.
RULES_THE_SCHEMA_CANNOT_STATE = {
    "POST /api/v1/accounts/register": (
        "password",
        "a password must pass Django's validators (not common, not all digits, not like the"
        " username)",
    ),
    "POST /api/v1/me/tokens": (
        "scopes",
        "the scopes a token may have depend on its account (a person: play, organise; a bot:"
        " play, bot)",
    ),
    "GET /api/v1/ratings/predict": ("players", "the number of players depends on the pool"),
    "POST /api/v1/bots": (
        "webhook_url",
        "a webhook bot needs a URL, and its host must resolve to a public address (checked"
        " when the bot is made)",
    ),
    "POST /api/v1/tables": (
        ("seat", "duplicate_of"),
        "the seats of a table depend on its rules (3, or 4); `duplicate_of` must name a"
        " finished game (404 or 409 otherwise)",
    ),
    "POST /api/v1/challenges": (
        ("to", "duplicate_of"),
        "how many names `to` holds depends on the rules (2, or 3 for four-handed); a name"
        " must not be the caller's, nor twice, nor an unknown house bot; `duplicate_of` must"
        " name a finished game (404 or 409 otherwise)",
    ),
    "POST /api/v1/tournaments": (
        ("humans_allowed", "min_rating", "rounds", "duplicate"),
        "settings that depend on each other: someone may enter, min_rating <= max_rating,"
        " neither rounds nor duplicate for a knockout",
    ),
}


def _token_of(kind: str, server: LiveServer) -> str | None:
    """A live token of ``kind``, of an account registered for this run."""
    if kind == "none":
        return None
    owner = register(server.url, f"fuzz_{kind.replace('-', '_')}_owner")
    if kind == "person":
        return owner.token
    if kind == "bot":
        body = owner.ok("POST", "/bots", 201, json={"username": "fuzz_bot"})
        return str(body["token"])
    scope = kind.removesuffix("-only")
    body = owner.ok("POST", "/me/tokens", 201, json={"scopes": [scope], "name": kind})
    return str(body["token"])


def _rate_limit_reset(token: str | None) -> Callable[[], None]:
    """Forgets the caller's requests (the fuzzing would otherwise spend its examples on
    429s; the rate limit's own tests are in tests/test_api_errors.py)."""
    key = ratelimit.caller_key(token_for_key(token) if token else None, "127.0.0.1")
    return lambda: ratelimit.reset(key)


def _some_things_to_find(owner: Client) -> None:
    """A table, a game and a tournament, so that small ids name something."""
    owner.ok("POST", "/tables", 201, json={"seat": None})
    owner.ok("POST", "/tournaments", 201, json={"name": "Fuzzed", "format": "swiss", "rounds": 2})


def _expected(operation: str, failure: Exception, report: str) -> bool:
    if not isinstance(failure, RejectedPositiveData):
        return False
    fields, _ = RULES_THE_SCHEMA_CANNOT_STATE.get(operation, ((), ""))
    named = (fields,) if isinstance(fields, str) else fields
    return any(f'"fields":{{"{field}"' in report for field in named)


def _fuzz(operation: Any, mode: GenerationMode, send: Callable[[Any], None]) -> None:
    """``send`` each of the examples of ``operation`` in ``mode``."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        send(case)

    try:
        run()
    except Unsatisfiable:
        # Nothing of the operation can be made invalid (no parameters, no body).
        assert mode == GenerationMode.NEGATIVE


@pytest.mark.parametrize("kind", KINDS)
def test_it_finds_no_failure_with_each_kind_of_token(
    api_server: LiveServer, celery_worker: Any, kind: str
) -> None:
    token = _token_of(kind, api_server)
    _some_things_to_find(register(api_server.url, "fuzz_things"))
    schema = schemathesis.openapi.from_url(api_server.url + "/api/v1/schema/").exclude(
        path_regex=STREAMS
    )
    headers = {"Authorization": f"Token {token}"} if token else {}
    forget_requests = _rate_limit_reset(token)
    failures: dict[str, str] = {}

    def send(case: Any) -> None:
        forget_requests()
        try:
            case.call_and_validate(base_url=api_server.url, headers=headers)
        except BaseExceptionGroup as group:  # every distinct failure, not the first only
            for failure in group.exceptions:
                if not _expected(case.operation.label, failure, str(group)):
                    failures.setdefault(f"{case.operation.label}: {failure}", str(group))
        except Exception as error:
            failures.setdefault(f"{case.operation.label}: {error}", str(error))

    for result in schema.get_all_operations():
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(result.ok(), mode, send)
    assert not failures, f"{len(failures)} failures:\n" + "\n\n".join(
        f"{where}\n{text[:2000]}" for where, text in failures.items()
    )
