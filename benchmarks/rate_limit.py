"""The rate limit's cost a request (accounts/ratelimit.py), against another version of it.

    .venv/bin/python benchmarks/rate_limit.py --against OLD_RATELIMIT.py [--rounds 6] [--calls 5000]

``--against``: another ``accounts/ratelimit.py`` (e.g. ``git show REV:accounts/ratelimit.py
> /tmp/ratelimit_before.py``), loaded beside this checkout's and measured in the same run,
rounds interleaved (the machine's speed varies). For each: the Redis round trips of a
caller's first request and of its next ones, and the client's CPU and the wall time a
request, both for an anonymous caller (``hit``) and for a request with a kept token
(``count_ahead``, which also reads the token's version, then ``hit`` taking its decision).
Service mode with ``REDIS_URL`` set (the round trips counted at redis-py's sending of a
command); the embedded default's file cache without (in a temporary ``DATA_DIR``). The
limit is set high enough that every request is let through.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="rate-limit-bench-"))

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402
from django.http import HttpRequest  # noqa: E402

from accounts import ratelimit  # noqa: E402

LIMIT = 10_000_000
trips = 0
_send = redis.connection.AbstractConnection.send_packed_command


def _counting(connection: Any, *args: Any, **options: Any) -> Any:
    global trips
    trips += 1
    return _send(connection, *args, **options)


def load(path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location("ratelimit_against", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def anonymous(module: ModuleType, key: str) -> object:
    return module.hit(key, LIMIT, 60)


def with_token(module: ModuleType, key: str) -> object:
    request = HttpRequest()
    module.count_ahead(request, key, also_get="bench:version")
    return module.hit(key, LIMIT, 60, request=request)


def measure(
    case: Callable[[ModuleType, str], object], module: ModuleType, calls: int
) -> tuple[int, float, float, float]:
    """(round trips of a caller's first request, of its next ones, µs of CPU, µs of wall)."""
    global trips
    key = f"ip:bench-{uuid.uuid4().hex}"
    trips = 0
    case(module, key)
    first = trips
    trips = 0
    for _ in range(10):
        case(module, key)
    steady = trips / 10
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(calls):
        case(module, key)
    cpu_us = (time.process_time() - cpu) / calls * 1e6
    wall_us = (time.perf_counter() - wall) / calls * 1e6
    module.reset(key)
    return first, steady, cpu_us, wall_us


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--against", required=True, help="another accounts/ratelimit.py")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    settings.RATE_LIMIT_PER_MINUTE = LIMIT  # what count_ahead counts with, as the throttle
    redis.connection.AbstractConnection.send_packed_command = _counting  # type: ignore[method-assign]
    versions = {"this": ratelimit, "against": load(args.against)}
    cases: dict[str, Callable[[ModuleType, str], object]] = {"anonymous": anonymous}
    if settings.REDIS_URL:
        cases["kept token"] = with_token
    mode = "service mode (Redis)" if settings.REDIS_URL else "embedded default (file cache)"
    print(
        f"{mode}: {args.rounds} rounds of {args.calls} requests, interleaved; load average",
        " ".join(f"{x:.1f}" for x in os.getloadavg()),
    )
    for module in versions.values():  # connections made, scripts cached in Redis
        for case in cases.values():
            measure(case, module, 10)
    results: dict[tuple[str, str], list[tuple[int, float, float, float]]] = {}
    for round_number in range(args.rounds):
        order = list(versions.items())
        if round_number % 2:
            order.reverse()
        for case_name, case in cases.items():
            for label, module in order:
                results.setdefault((case_name, label), []).append(measure(case, module, args.calls))
    print(
        "| request | version | round trips (first, then) | µs of CPU a request, by round "
        "| µs a request, by round | CPU ÷ against's, by round |"
    )
    print("|---|---|---|---|---|---|")
    for (case_name, label), rows in results.items():
        against = results[(case_name, "against")]
        ratios = ", ".join(f"{r[2] / a[2]:.2f}" for r, a in zip(rows, against, strict=True))
        print(
            f"| {case_name} | {label} | {rows[0][0]}, {rows[0][1]:.0f} "
            f"| {', '.join(f'{r[2]:.0f}' for r in rows)} "
            f"| {', '.join(f'{r[3]:.0f}' for r in rows)} | {ratios} |"
        )


if __name__ == "__main__":
    main()
