"""``games.engine.verify``: a record checked against its seed, in process and as a command."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest

from games.engine import Rules
from games.engine.replay import replay_case
from games.engine.verify import verify_record
from tests.engine.engine_helpers import doctor, finished_record

ROOT = Path(__file__).resolve().parents[2]


def _moved_card(record: dict[str, Any]) -> dict[str, Any]:
    """One card of seat 0's first hand swapped with one of seat 1's (sizes kept)."""
    tampered = copy.deepcopy(record)
    hands = tampered["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    return tampered


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "games.engine.verify", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("preset", ["classic", "woburn", "four-handed"])
def test_it_passes_an_untouched_record(preset: str) -> None:
    record = finished_record(preset)

    result = verify_record(record).to_dict()

    assert result == {
        "ok": True,
        "commitment_matches": True,
        "deals_match": True,
        "outcomes_match": True,
        "reason": None,
        "problems": [],
    }
    assert record["seed_commitment"] == sha256(b"verify-me").hexdigest()


def test_it_names_a_card_moved_between_two_hands() -> None:
    record = finished_record()
    moved = record["deals"][0]["hands"][0][0]

    result = verify_record(_moved_card(record))

    assert not result.ok and result.commitment_matches and not result.deals_match
    assert result.reason is not None
    assert result.reason.startswith("deal 0 is not the seed's: ")
    assert f"{moved} is in seat 1's hand in the record; the seed deals it to seat 0's hand" in (
        result.reason
    )


def test_it_fails_another_seed_on_the_commitment_and_the_deals() -> None:
    record = finished_record()
    record["seed"] = "another-seed"

    result = verify_record(record)

    assert not result.ok and not result.commitment_matches and not result.deals_match
    assert result.reason is not None and result.reason.startswith(
        f"seed_commitment {record['seed_commitment']} is not SHA-256 of the seed"
    )
    assert any(p.startswith("deal 0 is not the seed's") for p in result.problems)


def test_it_fails_a_wrong_commitment_alone() -> None:
    record = finished_record()
    record["seed_commitment"] = sha256(b"something else").hexdigest()

    result = verify_record(record)

    assert not result.ok and not result.commitment_matches and result.deals_match
    assert result.problems == [
        f"seed_commitment {record['seed_commitment']} is not SHA-256 of the seed "
        f"(SHA-256 of the seed is {sha256(b'verify-me').hexdigest()})"
    ]


def test_it_checks_the_commitment_seen_during_the_game_when_given() -> None:
    record = finished_record()

    assert verify_record(record, commitment=sha256(b"verify-me").hexdigest()).ok
    seen = verify_record(record, commitment="ab" * 32)
    assert not seen.ok and not seen.commitment_matches
    assert seen.reason is not None and seen.reason.startswith(
        f"the commitment {'ab' * 32} shown during the game is not SHA-256 of the seed"
    )


def test_it_fails_a_record_without_a_seed_or_with_changed_results() -> None:
    record = finished_record()
    no_seed = {k: v for k, v in record.items() if k != "seed"}
    assert verify_record(no_seed).reason == "the record has no seed"
    record["scores"] = [s + 1 for s in record["scores"]]
    changed = verify_record(record)
    assert not changed.ok and changed.deals_match
    assert changed.reason is not None and changed.reason.startswith("the record's scores is")


def test_it_fails_a_missing_deal_and_another_first_dealer() -> None:
    record = finished_record()
    players = Rules.from_preset("classic").players
    shorter = {**record, "deals": record["deals"][:-1]}
    assert verify_record(shorter).problems[-1].startswith("the record has 1 deals")
    turned = {**record, "first_dealer": (record["first_dealer"] + 1) % players}
    result = verify_record(turned)
    assert not result.deals_match
    assert result.reason == (
        f"first_dealer is {turned['first_dealer']}; the seed gives {record['first_dealer']}"
    )


def test_it_refuses_plays_doctored_consistently_that_change_the_tricks() -> None:
    record = finished_record(max_hands=1)
    doctored = doctor(record, outcomes_change=True)
    replayed = replay_case(doctored)
    assert doctored["deals"] != record["deals"] or doctored["actions"] != record["actions"]
    assert doctored["hands"] == record["hands"] != replayed["hands"]

    result = verify_record(doctored)

    assert not result.ok and result.commitment_matches and result.deals_match
    assert not result.outcomes_match
    assert result.reason == (
        f"the record's hands[0].tricks is {record['hands'][0]['tricks']}; replayed from the "
        f"seed, the game gives {replayed['hands'][0]['tricks']}"
    )


def test_it_passes_doctored_plays_with_the_same_outcomes() -> None:
    """Plays exchanged that change no trick's winner give a game the seed could have had:
    only the server's signature tells it from the one played (games.record_check, checked
    in tests/test_record_check.py)."""
    record = finished_record(max_hands=1)
    doctored = doctor(record, outcomes_change=False)

    assert doctored["actions"] != record["actions"]
    assert verify_record(doctored).ok


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda r: r["hands"][0].update(
                tricks=r["hands"][0]["tricks"][1:] + r["hands"][0]["tricks"][:1]
            ),
            "the record's hands[0].tricks is",
        ),
        (
            lambda r: r["hands"][1].update(diffs=[d + 1 for d in r["hands"][1]["diffs"]]),
            "the record's hands[1].diffs is",
        ),
        (
            lambda r: r["hands"][0].update(trump="NT"),
            "the record's hands[0].trump is 'NT'",
        ),
        (
            lambda r: r["hands"][1].update(dealer=(r["hands"][1]["dealer"] + 1) % 3),
            "the record's hands[1].dealer is",
        ),
        (lambda r: r["hands"][0].update(bonus=1), "the record's hands[0] has bonus"),
        (lambda r: r["hands"].pop(), "the record states 1 hands;"),
        (lambda r: r.update(ranks=r["ranks"][::-1]), "the record's ranks is"),
        (lambda r: r.update(winner=None), "the record's winner is None"),
        (lambda r: r.update(game_over=False), "the record's game_over is False"),
        (lambda r: r["final_hands"][0].append("2C"), "the record's final_hands is"),
        (lambda r: r.pop("hands"), "the record states no hands"),
        (lambda r: r.pop("winner"), "the record states no winner"),
    ],
)
def test_it_checks_every_outcome_the_record_states(change: Any, reason: str) -> None:
    record = finished_record()
    change(record)

    result = verify_record(record)

    assert not result.ok and result.deals_match and not result.outcomes_match
    assert result.reason is not None and result.reason.startswith(reason), result.reason


def test_it_runs_from_the_command_line_with_exit_codes(tmp_path: Path) -> None:
    record = finished_record()
    (tmp_path / "good.json").write_text(json.dumps(record))
    (tmp_path / "moved.json").write_text(json.dumps(_moved_card(record)))
    (tmp_path / "broken.json").write_text("{not json")

    good = _run("good.json", cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["ok"] is True
    assert good.stderr == "good.json: ok (deals and outcomes; not the signature)\n"

    moved = _run("moved.json", cwd=tmp_path)
    assert moved.returncode == 1
    assert json.loads(moved.stdout)["deals_match"] is False
    assert moved.stderr.startswith("moved.json: FAILED: deal 0 is not the seed's: ")

    seen = _run("--commitment", "00" * 32, "good.json", cwd=tmp_path)
    assert seen.returncode == 1
    assert "shown during the game is not SHA-256 of the seed" in seen.stderr

    broken = _run("broken.json", cwd=tmp_path)
    assert broken.returncode == 2
    assert broken.stderr.startswith("broken.json: cannot check: invalid JSON")
    assert _run(cwd=tmp_path).returncode == 2
    # The signature is games.record_check's (cryptography), not the engine's.
    keyed = _run("--key", "00" * 32, "good.json", cwd=tmp_path)
    assert keyed.returncode == 2
    assert "python -m games.record_check --key KEY" in keyed.stderr
