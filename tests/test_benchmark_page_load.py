"""benchmarks/page_load.py without its platform: it answers ``--help``, and its report says
when a page is missing, judges the ratios against the 2x target and the click delays
against 250 ms (the measuring itself needs PostgreSQL, Redis and chromium: it is run by
hand, benchmarks/page_load_history.md)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ROOT, VENV_BIN


@pytest.fixture
def page_load() -> Iterator[Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import page_load

        yield page_load
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_it_answers_help() -> None:
    process = subprocess.run(
        [str(VENV_BIN / "python"), "benchmarks/page_load.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert process.returncode == 0, process.stderr
    for option in ("--games", "--rounds", "--moves", "--code", "--skip-pages", "--skip-clicks"):
        assert option in process.stdout


def test_it_reports_a_missing_page_and_judges_the_ratios(
    page_load: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    cheap = page_load.Pair("/cheap", ["/api/a", "/api/b"], "/api/a", "two lists")
    cheap.page_ms = cheap.page_client_ms = [10.0, 12.0, 11.0]
    cheap.twin_ms = cheap.twin_client_ms = [8.0, 8.0, 8.0]
    cheap.calls_ms = cheap.calls_client_ms = {"/api/a": [5.0] * 3, "/api/b": [3.0] * 3}
    dear = page_load.Pair("/dear", ["/api/c"], "/api/c")
    dear.page_ms = dear.page_client_ms = [30.0, 30.0, 30.0]
    dear.twin_ms = dear.twin_client_ms = [10.0, 10.0, 10.0]
    dear.calls_ms = dear.calls_client_ms = {"/api/c": [10.0] * 3}
    gone = page_load.Pair("/gone", ["/api/d"], "/api/d", missing=True)

    page_load.report_pages([cheap, dear, gone], rounds=3)

    lines = capsys.readouterr().out.splitlines()
    judged = [line.split() for line in lines if line.endswith("met")]
    cheap_lines = [words for words in judged if words[0] == "/cheap"]
    assert len(cheap_lines) == 2  # server and client times
    # p50, p95, twin p50, p95, ratio, closest single call p50, ratio, verdict
    assert " ".join(cheap_lines[0][1:]) == "11.0 12.0 8.0 8.0 1.38 5.0 2.20 met"
    dear_line = " ".join(next(words for words in judged if words[0] == "/dear"))
    assert dear_line.endswith("3.00 10.0 3.00 NOT met")
    assert sum("/gone" in line and "page missing" in line for line in lines) == 2


def test_it_judges_the_click_delays_against_250_ms(
    page_load: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    clicks = page_load.Clicks(games=1)
    requests = {"post": None, "table": None, "poll": None}
    for delay in range(100):
        clicks.other_person.add(0, [100 + delay, 110 + delay], requests)  # p95 195 ms
        clicks.spectator.add(0, [200 + delay, 210 + delay], requests)  # p95 295 ms
        clicks.own.add(0, [50, 60], requests)

    page_load.report_clicks(clicks)

    out = capsys.readouterr().out
    other = next(line for line in out.splitlines() if "the other person's" in line)
    spectator = next(line for line in out.splitlines() if "the spectator's" in line)
    # p50, p95, max; the next frame's p50, p95; the verdict
    assert " ".join(other.split()[3:]) == "150 195 199 160 205 p95 <= 250 ms: met"
    assert spectator.endswith("NOT met")
