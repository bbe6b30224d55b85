"""``games.engine.verify``: a record checked against its seed, in process and as a command."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest

from games.engine import Game, Rules
from games.engine.verify import verify_record

ROOT = Path(__file__).resolve().parents[2]


def _finished_record(preset: str = "classic", seed: str = "verify-me") -> dict[str, Any]:
    game = Game.new(Rules.from_preset(preset, max_hands=2), seed=seed)
    rng = random.Random(seed)
    while not game.is_over():
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return json.loads(json.dumps(game.record()))


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
    record = _finished_record(preset)

    result = verify_record(record).to_dict()

    assert result == {
        "ok": True,
        "commitment_matches": True,
        "deals_match": True,
        "reason": None,
        "problems": [],
    }
    assert record["seed_commitment"] == sha256(b"verify-me").hexdigest()


def test_it_names_a_card_moved_between_two_hands() -> None:
    record = _finished_record()
    moved = record["deals"][0]["hands"][0][0]

    result = verify_record(_moved_card(record))

    assert not result.ok and result.commitment_matches and not result.deals_match
    assert result.reason is not None
    assert result.reason.startswith("deal 0 is not the seed's: ")
    assert f"{moved} is in seat 1's hand in the record; the seed deals it to seat 0's hand" in (
        result.reason
    )


def test_it_fails_another_seed_on_the_commitment_and_the_deals() -> None:
    record = _finished_record()
    record["seed"] = "another-seed"

    result = verify_record(record)

    assert not result.ok and not result.commitment_matches and not result.deals_match
    assert result.reason is not None and result.reason.startswith(
        f"seed_commitment {record['seed_commitment']} is not SHA-256 of the seed"
    )
    assert any(p.startswith("deal 0 is not the seed's") for p in result.problems)


def test_it_fails_a_wrong_commitment_alone() -> None:
    record = _finished_record()
    record["seed_commitment"] = sha256(b"something else").hexdigest()

    result = verify_record(record)

    assert not result.ok and not result.commitment_matches and result.deals_match
    assert result.problems == [
        f"seed_commitment {record['seed_commitment']} is not SHA-256 of the seed "
        f"(SHA-256 of the seed is {sha256(b'verify-me').hexdigest()})"
    ]


def test_it_checks_the_commitment_seen_during_the_game_when_given() -> None:
    record = _finished_record()

    assert verify_record(record, commitment=sha256(b"verify-me").hexdigest()).ok
    seen = verify_record(record, commitment="ab" * 32)
    assert not seen.ok and not seen.commitment_matches
    assert seen.reason is not None and seen.reason.startswith(
        f"the commitment {'ab' * 32} shown during the game is not SHA-256 of the seed"
    )


def test_it_fails_a_record_without_a_seed_or_with_changed_results() -> None:
    record = _finished_record()
    no_seed = {k: v for k, v in record.items() if k != "seed"}
    assert verify_record(no_seed).reason == "the record has no seed"
    record["scores"] = [s + 1 for s in record["scores"]]
    changed = verify_record(record)
    assert not changed.ok and changed.deals_match
    assert changed.reason is not None and changed.reason.startswith("the record's scores is")


def test_it_fails_a_missing_deal_and_another_first_dealer() -> None:
    record = _finished_record()
    players = Rules.from_preset("classic").players
    shorter = {**record, "deals": record["deals"][:-1]}
    assert verify_record(shorter).problems[-1].startswith("the record has 1 deals")
    turned = {**record, "first_dealer": (record["first_dealer"] + 1) % players}
    result = verify_record(turned)
    assert not result.deals_match
    assert result.reason == (
        f"first_dealer is {turned['first_dealer']}; the seed gives {record['first_dealer']}"
    )


def test_it_runs_from_the_command_line_with_exit_codes(tmp_path: Path) -> None:
    record = _finished_record()
    (tmp_path / "good.json").write_text(json.dumps(record))
    (tmp_path / "moved.json").write_text(json.dumps(_moved_card(record)))
    (tmp_path / "broken.json").write_text("{not json")

    good = _run("good.json", cwd=tmp_path)
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["ok"] is True
    assert good.stderr == "good.json: ok\n"

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
