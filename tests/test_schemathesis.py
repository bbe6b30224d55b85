"""Schemathesis over the whole OpenAPI schema, against the live server, with every kind of
caller: none, a person's token (``play`` and ``organise``), a ``play``-only and an
``organise``-only token, and a bot account's token.

Every check Schemathesis has (``--checks all``) runs on every answer: server errors, status
codes, content types, headers, bodies against the documented shapes, rejection of invalid
input, acceptance of valid input, authentication that is declared but not enforced, methods
not allowed, and the checks of sequences of calls (a resource used after its deletion, one
missing after its creation, one object read with another caller's rights). Every operation
gets positive and negative examples; sequences of calls follow the links Schemathesis infers
between operations (a created tournament's ``id`` into ``{tournament_id}``...). The stream
(``GET /stream``) and the live streams (``GET .../live``) do not end while their topic goes
on, so they are left out of the fuzzing only; their tests are tests/test_realtime*.py,
tests/test_live_stream.py and tests/test_tournament_live.py.

Generation is derandomized (the same examples every run) and bounded per operation, so the
whole matrix takes a few minutes. A failure names the operation, the check and the request
(as a curl command).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Flaky, Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.openapi.checks import RejectedPositiveData

from accounts import ratelimit, services
from accounts.auth import token_for_key, token_is_live
from accounts.models import ApiToken
from chat import services as chat_services
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

#: Sequences of calls with a person's token: suites, sequences in each, calls in each.
SUITES = 3
SEQUENCES = MAX_EXAMPLES * 2
STEPS = 10

load_all_checks()
#: Every check Schemathesis has, named rather than left to its default configuration.
ALL_CHECKS = list(CHECKS.get_all())

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
    "PATCH /api/v1/bots/{username}": (
        "webhook_url",
        "a webhook bot needs a URL, and its host must resolve to a public address (checked"
        " when the URL is set)",
    ),
    "POST /api/v1/tables": (
        ("seat", "duplicate_of"),
        "the seats of a table depend on its rules (3, or 4); `duplicate_of` must name a"
        " finished game (404 or 409 otherwise)",
    ),
    "POST /api/v1/tables/{table_id}/join": (
        "seat",
        "the seats of a table depend on its rules (3, or 4)",
    ),
    "POST /api/v1/challenges": (
        ("to", "duplicate_of"),
        "how many names `to` holds depends on the rules (2, or 3 for four-handed); a name"
        " must not be the caller's, nor twice, nor an unknown house bot; `duplicate_of` must"
        " name a finished game (404 or 409 otherwise)",
    ),
    "POST /api/v1/tournaments": (
        ("humans_allowed", "min_rating", "rounds", "duplicate", "club"),
        "settings that depend on each other: someone may enter, min_rating <= max_rating,"
        " neither rounds nor duplicate for a knockout; `club` must name a club",
    ),
    "PATCH /api/v1/tournaments/{tournament_id}": (
        ("humans_allowed", "min_rating", "rounds", "duplicate", "club"),
        "the settings that depend on each other, as when the tournament is made",
    ),
    "POST /api/v1/clubs/{slug}/leagues": (
        "best",
        "`best` is given with scoring `best`, and only then",
    ),
    "POST /api/v1/seeks": (
        "rating_range",
        "a rating range's minimum is at most its maximum",
    ),
    "GET /api/v1/tournaments/{tournament_id}/standings": (
        "round",
        "the rounds a tournament has: `round` is 1 up to its current round",
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


class Caller:
    """The fuzzing's caller: its ``headers``, its requests (and chat messages) forgotten
    before each call (the fuzzing would otherwise spend its examples on 429s; the rate
    limits' own tests are in tests/test_api_errors.py and tests/test_chat_api.py), and its
    token renewed when the fuzzing revoked it (``DELETE /me/tokens/{id}`` with its own id),
    else every later call would be a 401."""

    def __init__(self, token: str | None) -> None:
        self.headers: dict[str, str] = {}
        self._token: ApiToken | None = None
        self._key = ratelimit.caller_key(None, "127.0.0.1")
        if token:
            self._use(token)

    def _use(self, token: str) -> None:
        self._token = token_for_key(token)
        self._key = ratelimit.caller_key(self._token, "127.0.0.1")
        self.headers = {"Authorization": f"Token {token}"}

    def before_call(self) -> None:
        ratelimit.reset(self._key)
        if self._token is not None:  # and its chat messages' (tests/test_chat_api.py)
            ratelimit.reset(chat_services.rate_key(self._token.player_id))

    def after_call(self) -> None:
        if self._token is None or token_is_live(self._token.pk):
            return
        _, key = services.new_token(
            self._token.player, scopes=self._token.scopes, name=self._token.name
        )
        self._use(key)


def _some_things_to_find(owner: Client) -> None:
    """A table, a game and a tournament, so that small ids name something."""
    owner.ok("POST", "/tables", 201, json={"seat": None})
    owner.ok("POST", "/tournaments", 201, json={"name": "Fuzzed", "format": "swiss", "rounds": 2})


#: What makes a negative case invalid but is undone or rightly let through: the caller's
#: token is added to every call, so a case that leaves it out is sent with it; and unknown
#: query parameters are ignored, as HTTP APIs do (OpenAPI cannot declare them refused).
UNDONE_MUTATIONS = {
    "header: violates `required` (was Authorization)",
    "query: violates `additionalProperties`",
}


def _undone(failure: BaseException, report: str) -> bool:
    """A negative case accepted whose every invalid part is one of ``UNDONE_MUTATIONS``."""
    if not isinstance(failure, AcceptedNegativeData) or "Invalid component:" not in report:
        return False
    parts = []
    for line in report.split("Invalid component:", 1)[1].splitlines()[1:]:
        if not line.strip().startswith("- "):
            break
        parts.append(line.strip().removeprefix("- "))
    return bool(parts) and set(parts) <= UNDONE_MUTATIONS


def _expected(operation: str, failure: BaseException, report: str) -> bool:
    if _undone(failure, report):
        return True
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


class Failures:
    """The distinct failures of a run, but those of the rules the schema cannot state."""

    def __init__(self) -> None:
        self.found: dict[str, str] = {}

    def collect(self, case: Any, validate: Callable[[], object]) -> None:
        label = case.operation.label
        try:
            validate()
        except BaseExceptionGroup as group:  # every distinct failure, not the first only
            for failure in group.exceptions:
                if not _expected(label, failure, str(group)):
                    self.found.setdefault(f"{label}: {failure}", str(group))
        except Exception as error:
            self.found.setdefault(f"{label}: {error}", str(error))

    def assert_none(self) -> None:
        assert not self.found, f"{len(self.found)} failures:\n" + "\n\n".join(
            f"{where}\n{text[:2000]}" for where, text in self.found.items()
        )


def _schema(server: LiveServer) -> Any:
    return schemathesis.openapi.from_url(server.url + "/api/v1/schema/").exclude(path_regex=STREAMS)


@pytest.mark.parametrize("kind", KINDS)
def test_it_finds_no_failure_with_each_kind_of_token(
    api_server: LiveServer, celery_worker: Any, kind: str
) -> None:
    caller = Caller(_token_of(kind, api_server))
    _some_things_to_find(register(api_server.url, "fuzz_things"))
    schema = _schema(api_server)
    failures = Failures()

    def send(case: Any) -> None:
        caller.before_call()
        failures.collect(
            case,
            lambda: case.call_and_validate(
                base_url=api_server.url, headers=caller.headers, checks=ALL_CHECKS
            ),
        )
        caller.after_call()

    for result in schema.get_all_operations():
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(result.ok(), mode, send)
    failures.assert_none()


def test_it_finds_no_failure_in_sequences_of_calls(
    api_server: LiveServer, celery_worker: Any
) -> None:
    caller = Caller(_token_of("person", api_server))
    _some_things_to_find(register(api_server.url, "fuzz_things"))
    failures = Failures()
    calls: list[str] = []

    class Sequences(_schema(api_server).as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            caller.before_call()
            return {"base_url": api_server.url, "headers": caller.headers}

        def after_call(self, response: Any, case: Any) -> None:
            super().after_call(response, case)
            calls.append(case.operation.label)
            caller.after_call()

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            failures.collect(
                case,
                lambda: case.validate_response(
                    response,
                    checks=ALL_CHECKS,
                    headers=kwargs.get("headers"),
                    transport_kwargs=kwargs,
                    recorder=self.recorder,
                ),
            )

    # A sequence's next call depends on the server's answers, so Hypothesis may find a replay
    # that draws differently and stop with Flaky (the CLI's engine ends its suite so too): each
    # suite starts from its own seed, and the calls made before the stop were all checked.
    for suite in range(SUITES):
        with contextlib.suppress(Flaky):
            seed(suite)(Sequences).run(
                settings=settings(
                    max_examples=SEQUENCES,
                    stateful_step_count=STEPS,
                    deadline=None,
                    database=None,
                    phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
            )
    assert len(calls) >= SUITES * STEPS, calls
    failures.assert_none()


def test_it_runs_every_check_schemathesis_has() -> None:
    names = {check.__name__ for check in ALL_CHECKS}

    assert names >= {
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "positive_data_acceptance",
        "missing_required_header",
        "unsupported_method",
        "use_after_free",
        "ensure_resource_availability",
        "ignored_auth",
    }
