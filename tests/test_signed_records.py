"""Signed records (docs/rules.md "Signed records"): the server signs every record it serves
with its Ed25519 key and publishes the key's public half at ``GET /records/key``; the
offline check, ``python -m games.record_check --key KEY`` (the engine's check and the
signature's, with ``cryptography``), refuses a record changed after it was signed, even one
whose plays were doctored so that every outcome still follows.

The games are played in process through the services, dealt from a fixed seed with fixed
random actions (so the same on every database); the API is called in process too.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.models import Player
from games import tables
from games.engine.verify import verify_record
from games.models import Game, Table
from games.record_check import check_record, key_id, record_message
from tests.engine.engine_helpers import doctor
from tests.rating_helpers import new_players, play_out
from tests.support import ROOT

pytestmark = pytest.mark.django_db

ANOTHER_KEY = "5e" * 32


def finished_game(humans: list[Player], deal_seed: str = "signed-records") -> int:
    """A finished one-hand classic game of ``humans`` and a house bot, dealt from
    ``deal_seed`` and played with ``random.Random(7)``."""
    table = tables.create_table(
        humans[0],
        rules={"preset": "classic", "max_hands": 1},
        rated=False,
        move_seconds=600,
        seat=None,
    )
    for seat, human in enumerate(humans):
        tables.join_table(human, table_id=table.pk, seat=seat)
    Table.objects.filter(pk=table.pk).update(deal_seed=deal_seed)
    tables.seat_bot(humans[0], table_id=table.pk, bot="house:random", seat=len(humans))
    game_id = Game.objects.get(table_id=table.pk).pk
    play_out(game_id, random.Random(7))
    return game_id


@pytest.fixture
def game_id() -> int:
    return finished_game(new_players("signer", 2))


@pytest.fixture
def api() -> APIClient:
    # An address of its own: anonymous callers are rate-limited per address.
    return APIClient(REMOTE_ADDR="198.51.100.58")


def get(api: APIClient, path: str) -> dict[str, Any]:
    response = api.get(f"/api/v1{path}")
    assert response.status_code == 200, response.content
    return dict(response.json())


def check_command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m games.record_check ARGS`` in ``tmp_path``, without Django's settings."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "games.record_check", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )


def test_it_serves_each_record_signed_by_the_key_it_publishes(
    api: APIClient, game_id: int, tmp_path: Path
) -> None:
    key = get(api, "/records/key")
    record = get(api, f"/games/{game_id}/record")
    public = bytes.fromhex(key["public_key"])

    assert set(key) == {"algorithm", "public_key", "key_id", "public_key_pem"}
    assert key["algorithm"] == "Ed25519" and key["key_id"] == key_id(public)
    pem = load_pem_public_key(key["public_key_pem"].encode())
    assert isinstance(pem, Ed25519PublicKey)
    pem.verify(bytes.fromhex(record["signature"]["value"]), record_message(record))  # OpenSSL's
    assert record["signature"]["key_id"] == key["key_id"]
    assert check_record(record, public).ok
    assert get(api, f"/games/{game_id}/verify") == {
        "ok": True,
        "commitment_matches": True,
        "deals_match": True,
        "outcomes_match": True,
        "signature_valid": True,
        "reason": None,
        "problems": [],
    }
    # Offline, with the key's answer saved to a file, as docs/rules.md shows.
    (tmp_path / "key.json").write_text(json.dumps(key))
    (tmp_path / "record.json").write_text(json.dumps(record))
    checked = check_command(tmp_path, "--key", "key.json", "record.json")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout == (
        "record.json: ok (the seed's deals, outcomes that follow from the plays, signed by "
        f"the key given: key_id {key['key_id']})\n"
    )


def test_it_refuses_a_record_whose_plays_were_doctored_consistently(
    api: APIClient, game_id: int, tmp_path: Path
) -> None:
    key = get(api, "/records/key")
    record = get(api, f"/games/{game_id}/record")
    doctored = doctor(record, outcomes_change=False)
    (tmp_path / "doctored.json").write_text(json.dumps(doctored))

    # The doctored plays are legal on the seed's deal and win the same tricks: the engine's
    # check (deals and outcomes) cannot tell them from the game played.
    assert doctored["actions"] != record["actions"]
    assert verify_record(doctored).ok
    refused = check_command(tmp_path, "--key", key["public_key"], "doctored.json")
    assert refused.returncode == 1
    assert refused.stdout == (
        "doctored.json: FAILED: the signature does not match the record: the record was "
        f"changed after it was signed (key_id {key['key_id']!r})\n"
    )
    assert check_record(doctored, bytes.fromhex(key["public_key"])).signature_valid is False


def test_it_refuses_a_record_with_a_byte_changed_after_signing(
    api: APIClient, game_id: int, tmp_path: Path
) -> None:
    key = get(api, "/records/key")
    text = json.dumps(get(api, f"/games/{game_id}/record"))
    at = text.index('"username": "signer1"') + len('"username": "signer')
    (tmp_path / "key.json").write_text(json.dumps(key))
    changed = text[:at] + "0" + text[at + 1 :]
    (tmp_path / "changed.json").write_text(changed)

    refused = check_command(tmp_path, "--key", "key.json", "changed.json")

    assert refused.returncode == 1
    assert refused.stdout.startswith(
        "changed.json: FAILED: the signature does not match the record"
    )
    result = check_record(json.loads(changed), bytes.fromhex(key["public_key"]))
    assert not result.ok and not result.signature_valid
    assert result.verification.ok  # the seats are not replayed: only the signature tells


def test_it_refuses_a_record_signed_by_another_key(api: APIClient, game_id: int) -> None:
    published = get(api, "/records/key")
    with override_settings(RECORD_SIGNING_KEY=ANOTHER_KEY):
        other_key = get(api, "/records/key")
        other = get(api, f"/games/{game_id}/record")

    refused = check_record(other, bytes.fromhex(published["public_key"]))

    assert other_key["key_id"] != published["key_id"]
    assert not refused.ok and refused.signature_valid is False
    assert refused.reason == (
        f"the record is signed by another key (key_id {other_key['key_id']!r}), not by the "
        f"key given (key_id {published['key_id']!r})"
    )
    assert check_record(other, bytes.fromhex(other_key["public_key"])).ok


def test_it_signs_the_record_only_after_the_end(api: APIClient) -> None:
    ann, bob = new_players("early", 2)
    table = tables.create_table(ann, rules="classic", rated=False, move_seconds=600, seat=0)
    tables.join_table(bob, table_id=table.pk, seat=1)
    tables.seat_bot(ann, table_id=table.pk, bot="house:random", seat=2)
    game_id = Game.objects.get(table_id=table.pk).pk

    response = api.get(f"/api/v1/games/{game_id}/record")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "game_in_progress"
