"""``games.record_check``: a platform record checked in full, in process and as a command:
the engine's check of its deals and outcomes, and the server's Ed25519 signature checked
with ``cryptography`` by the key given (docs/rules.md "Signed records").

The records are the engine's, signed here as the platform signs them (``games.records``
signs with the settings' key; ``tests/test_signed_records.py`` checks the platform's own).
"""

from __future__ import annotations

import copy
import doctest
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import games.record_check
from games.engine.replay import replay_case
from games.engine.verify import verify_record
from games.record_check import check_record, key_id, record_message
from tests.engine.engine_helpers import doctor, finished_record
from tests.support import ROOT

#: A server's key, and another.
SERVER = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
STRANGER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def public(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def signed(record: dict[str, Any], private: Ed25519PrivateKey = SERVER) -> dict[str, Any]:
    """``record`` with ``private``'s signature, as the platform serves it."""
    value = private.sign(record_message(record)).hex()
    signature = {"algorithm": "Ed25519", "key_id": key_id(public(private)), "value": value}
    return {**record, "signature": signature}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m games.record_check ARGS`` in ``cwd``, without Django's settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "games.record_check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def test_it_passes_a_record_signed_by_the_key_given() -> None:
    record = signed(finished_record())

    result = check_record(record, public(SERVER))

    assert result.to_dict() == {
        "ok": True,
        "commitment_matches": True,
        "deals_match": True,
        "outcomes_match": True,
        "signature_valid": True,
        "reason": None,
        "problems": [],
    }
    # Its layout is not signed: the same record indented, keys in another order.
    relaid = json.loads(json.dumps(dict(reversed(record.items())), indent=2))
    assert check_record(relaid, public(SERVER)).ok


def test_it_refuses_doctored_plays_with_other_outcomes_by_the_outcomes() -> None:
    record = finished_record(max_hands=1)
    doctored = doctor(signed(record), outcomes_change=True)
    replayed = replay_case(doctored)

    result = check_record(doctored, public(SERVER))

    assert not result.ok and not result.signature_valid
    assert result.verification.deals_match and not result.verification.outcomes_match
    assert (
        f"the record's hands[0].tricks is {record['hands'][0]['tricks']}; replayed from the "
        f"seed, the game gives {replayed['hands'][0]['tricks']}"
    ) in result.problems


def test_it_refuses_doctored_plays_with_the_same_outcomes_by_their_signature() -> None:
    record = finished_record(max_hands=1)
    doctored = doctor(signed(record), outcomes_change=False)

    result = check_record(doctored, public(SERVER))

    assert doctored["actions"] != record["actions"]
    assert doctored["signature"] == signed(record)["signature"]
    assert verify_record(doctored).ok  # the engine alone cannot tell
    assert not result.ok and result.signature_valid is False
    assert result.verification.deals_match and result.verification.outcomes_match
    assert result.reason == (
        "the signature does not match the record: the record was changed after it was "
        f"signed (key_id {key_id(public(SERVER))!r})"
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(game=r.get("game", 0) + 1),
        lambda r: r["seats"][0].update(username="mallory"),
        lambda r: r["actions"][0].update(seat=r["actions"][0]["seat"]),  # no change: ok
        lambda r: r["hands"][0].update(tricks=[*r["hands"][0]["tricks"][1:], 0]),
        lambda r: r.update(duplicate_of=7),
        lambda r: r["signature"].update(key_id="0" * 16),
        lambda r: r.pop("seats"),
    ],
)
def test_it_refuses_a_record_changed_after_it_was_signed(change: Any) -> None:
    record = signed({"game": 3, "seats": [{"seat": 0, "username": "ann"}], **finished_record()})
    changed = copy.deepcopy(record)
    change(changed)

    result = check_record(changed, public(SERVER))

    assert result.signature_valid is (changed == record)
    assert result.ok is (changed == record)


def test_it_refuses_a_changed_byte_of_the_file() -> None:
    text = json.dumps(signed(finished_record()))
    at = text.index('"scores": [') + len('"scores": [')
    digit = text[at]
    changed = text[:at] + ("1" if digit != "1" else "2") + text[at + 1 :]

    ok = check_record(json.loads(text), public(SERVER))
    refused = check_record(json.loads(changed), public(SERVER))

    assert ok.ok and not refused.ok and refused.signature_valid is False
    assert refused.reason is not None
    assert refused.reason.startswith("the signature does not match the record")


def test_it_refuses_a_record_signed_by_another_key_or_not_signed() -> None:
    record = finished_record()
    stranger = signed(record, STRANGER)

    other = check_record(stranger, public(SERVER))
    unsigned = check_record(record, public(SERVER))
    garbled = check_record({**stranger, "signature": "yes"}, public(SERVER))

    assert check_record(stranger, public(STRANGER)).ok
    assert not other.ok and other.signature_valid is False and other.verification.deals_match
    assert other.reason == (
        f"the record is signed by another key (key_id {key_id(public(STRANGER))!r}), not by "
        f"the key given (key_id {key_id(public(SERVER))!r})"
    )
    assert not unsigned.ok and unsigned.reason == "the record is not signed (it has no signature)"
    assert not garbled.ok and garbled.reason is not None
    assert garbled.reason.startswith("the record's signature is not")
    # A record signed by another key, but naming the server's key, is refused all the same.
    named = {**stranger["signature"], "key_id": key_id(public(SERVER))}
    impostor = {**stranger, "signature": named}
    assert check_record(impostor, public(SERVER)).signature_valid is False
    assert not check_record([record], public(SERVER)).ok


def test_it_runs_from_the_command_line_with_exit_codes(tmp_path: Path) -> None:
    record = signed(finished_record(max_hands=1))
    key = public(SERVER).hex()
    (tmp_path / "key.json").write_text(json.dumps({"algorithm": "Ed25519", "public_key": key}))
    (tmp_path / "key.txt").write_text(key + "\n")
    (tmp_path / "signed.json").write_text(json.dumps(record, indent=2))
    (tmp_path / "doctored.json").write_text(json.dumps(doctor(record, outcomes_change=False)))
    (tmp_path / "stranger.json").write_text(json.dumps(signed(finished_record(), STRANGER)))
    (tmp_path / "broken.json").write_text("{not json")

    for given in ("key.json", "key.txt", key, key.upper()):
        good = run("--key", given, "signed.json", cwd=tmp_path)
        assert good.returncode == 0, good.stderr
        assert good.stdout == (
            "signed.json: ok (the seed's deals, outcomes that follow from the plays, signed "
            f"by the key given: key_id {key_id(public(SERVER))})\n"
        )
        assert good.stderr == ""
    commitment = record["seed_commitment"]
    both = run("--commitment", commitment, "--key", key, "signed.json", cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    seen = run("--key", key, "--commitment", "00" * 32, "signed.json", cwd=tmp_path)
    assert seen.returncode == 1
    assert "shown during the game is not SHA-256 of the seed" in seen.stdout

    # The doctored plays win the same tricks: only the signature tells.
    refused = run("--key", "key.json", "doctored.json", "stranger.json", cwd=tmp_path)
    assert refused.returncode == 1
    first, second = refused.stdout.splitlines()
    assert first.startswith("doctored.json: FAILED: the signature does not match the record")
    assert second.startswith("stranger.json: FAILED: the record is signed by another key")

    broken = run("--key", key, "broken.json", "signed.json", cwd=tmp_path)
    assert broken.returncode == 2
    assert broken.stderr.startswith("broken.json: cannot check: invalid JSON")
    assert broken.stdout.startswith("signed.json: ok")
    bad_key = run("--key", "missing.json", "signed.json", cwd=tmp_path)
    assert bad_key.returncode == 2
    assert bad_key.stderr.startswith("--key: 'missing.json' is neither a file nor a public key")
    no_key = run("signed.json", cwd=tmp_path)
    assert no_key.returncode == 2
    assert "the following arguments are required: --key" in no_key.stderr
    assert run("--key", key, cwd=tmp_path).returncode == 2
    assert run("--help", cwd=tmp_path).returncode == 0


def test_it_needs_no_django_to_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    found = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, games.record_check; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'}))",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=True,
    )

    assert found.stdout == "[]\n"


def test_it_runs_the_docstring_examples() -> None:
    result = doctest.testmod(games.record_check)

    assert result.attempted >= 2 and result.failed == 0
