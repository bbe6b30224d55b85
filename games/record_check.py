"""A platform record checked in full: ``python -m games.record_check --key KEY RECORD.json``
(docs/rules.md "Signed records").

The platform signs each record it serves (``GET /api/v1/games/{id}/record``) with its
Ed25519 key, whose public half it publishes (``GET /api/v1/records/key``). The record
carries the signature as::

    "signature": {"algorithm": "Ed25519", "key_id": "<16 hex digits>", "value": "<128 hex digits>"}

* The signed message is :func:`record_message`: the bytes ``sergeant-major|record|``
  followed by the record without its ``signature``, in canonical JSON: keys sorted, no
  spaces (``,`` and ``:`` alone), strings as UTF-8 with only ``"``, ``\\`` and control
  characters escaped, integers in decimal. (For a record, whose keys are ASCII and which
  holds no fractions, that is RFC 8785's JSON Canonicalization Scheme.) So the signature
  covers the record's content, not its layout: a record saved indented, or with its keys
  in another order, still checks; any changed value, card, seat, key or number does not.
* ``value`` is the 64-byte Ed25519 signature of that message, in lowercase hex.
* ``key_id`` is :func:`key_id` of the signing key: the first 16 hex digits of SHA-256 of its
  32 raw bytes. It only names the key: the check is the signature's, by the key the checker
  was given (the published one), never by a key the record names.

:func:`check_record` is the whole check: the engine's
(:func:`games.engine.verify.verify_record`: the deals against the seed, every outcome
against the replay of the plays) and the signature's, by the key given, with the maintained
``cryptography`` package's Ed25519 (OpenSSL's). The engine itself knows nothing of
signatures: it stays on the standard library. The server signs with the same package
(``games.records``, which takes what is signed from here), and ``GET /games/{id}/verify``
checks its own record with :func:`check_record`.

This module needs no Django (contract ``standalone-record-check`` in pyproject.toml): it
imports only the engine, the standard library and ``cryptography``, so the command runs
wherever the platform's package is installed, without settings. It prints one line per
record on standard output (``RECORD: ok (...)`` or ``RECORD: FAILED: <reason>``, the first
problem), and exits 0 when every record is ok, 1 when one fails, 2 when a file or the key
cannot be read (said on standard error).

>>> record_message({"seed": "demo", "signature": {"value": "ab"}, "game": 1})
b'sergeant-major|record|{"game":1,"seed":"demo"}'
>>> public_key_from_text('{"public_key": "' + "00" * 32 + '"}') == bytes(32)
True
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from hashlib import sha256
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from games.engine.verify import Verification, read_record, verify_record

__all__ = [
    "ALGORITHM",
    "FIELD",
    "PREFIX",
    "RecordCheck",
    "check_record",
    "check_signature",
    "key_id",
    "main",
    "public_key_from_text",
    "read_public_key",
    "record_message",
]

#: The record's key that holds the signature, and the signature's algorithm.
FIELD = "signature"
ALGORITHM = "Ed25519"
#: What every signed message starts with: only a record is signed with the key.
PREFIX = b"sergeant-major|record|"

_HEX_KEY = re.compile(r"[0-9a-f]{64}")
_HEX_SIGNATURE = re.compile(r"[0-9a-f]{128}")


def record_message(record: Mapping[str, Any]) -> bytes:
    """The bytes signed for ``record``: :data:`PREFIX` and its canonical JSON without its
    ``signature``. Raises ValueError for what JSON cannot hold (NaN, infinities)."""
    body = {key: value for key, value in record.items() if key != FIELD}
    text = json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return PREFIX + text.encode("utf-8")


def key_id(public_key: bytes) -> str:
    """A short name of a public key: the first 16 hex digits of SHA-256 of its raw bytes."""
    return sha256(public_key).hexdigest()[:16]


def public_key_from_text(text: str) -> bytes:
    """A public key (its 32 bytes) from its 64 hex digits, or from the JSON
    ``GET /records/key`` answers (``{"public_key": HEX, ...}``). Raises ValueError for
    anything else."""
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            raise ValueError("the key is not valid JSON") from None
        text = data.get("public_key", "") if isinstance(data, dict) else ""
        if not isinstance(text, str):
            text = ""
    text = text.strip().lower()
    if not _HEX_KEY.fullmatch(text):
        raise ValueError("a public key is 64 hex digits (the public_key of GET /records/key)")
    return bytes.fromhex(text)


def read_public_key(given: str) -> bytes:
    """``--key``'s value: a file holding the key (its 64 hex digits, or the JSON of
    ``GET /records/key``), else the 64 hex digits themselves. Raises ValueError."""
    try:
        with open(given, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        try:
            return public_key_from_text(given)
        except ValueError:
            raise ValueError(
                f"{given!r} is neither a file nor a public key (64 hex digits)"
            ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {given}: {error}") from None
    return public_key_from_text(text)


def check_signature(record: Mapping[str, Any], public_key: bytes) -> str | None:
    """None when ``record`` carries a valid signature by ``public_key`` (its 32 bytes);
    else the problem, in words. The signature is checked by ``cryptography``'s
    ``Ed25519PublicKey.verify``."""
    given = key_id(public_key)
    signature = record.get(FIELD)
    if signature is None:
        return "the record is not signed (it has no signature)"
    value = signature.get("value") if isinstance(signature, Mapping) else None
    if (
        not isinstance(signature, Mapping)
        or signature.get("algorithm") != ALGORITHM
        or not isinstance(value, str)
        or not _HEX_SIGNATURE.fullmatch(value)
    ):
        return (
            "the record's signature is not "
            '{"algorithm": "Ed25519", "key_id": ..., "value": <128 hex digits>}'
        )
    try:
        message = record_message(record)
    except ValueError as error:
        return f"the record cannot be put in canonical JSON to check its signature: {error}"
    try:
        key = Ed25519PublicKey.from_public_bytes(public_key)
    except ValueError:
        return f"the key given (key_id {given!r}) is not an Ed25519 public key"
    named = signature.get("key_id")
    try:
        key.verify(bytes.fromhex(value), message)
    except InvalidSignature:
        if named != given:
            return (
                f"the record is signed by another key (key_id {named!r}), not by the key "
                f"given (key_id {given!r})"
            )
        return (
            f"the signature does not match the record: the record was changed after it was "
            f"signed (key_id {given!r})"
        )
    if named != given:
        return f"the signature's key_id is {named!r}; the key that signed it is {given!r}"
    return None


@dataclass(frozen=True)
class RecordCheck:
    """The outcome of :func:`check_record`: the engine's check of the deals and outcomes,
    and the problem with the signature (None: it is the key's)."""

    verification: Verification
    signature_problem: str | None

    @property
    def signature_valid(self) -> bool:
        return self.signature_problem is None

    @property
    def problems(self) -> list[str]:
        """Every problem, the signature's first."""
        first = [self.signature_problem] if self.signature_problem is not None else []
        return first + self.verification.problems

    @property
    def ok(self) -> bool:
        return self.verification.ok and self.signature_valid

    @property
    def reason(self) -> str | None:
        """The first problem, or None when the record is ok."""
        problems = self.problems
        return problems[0] if problems else None

    def to_dict(self) -> dict[str, Any]:
        """``GET /games/{id}/verify``'s answer: the engine's fields and ``signature_valid``."""
        return {
            "ok": self.ok,
            "commitment_matches": self.verification.commitment_matches,
            "deals_match": self.verification.deals_match,
            "outcomes_match": self.verification.outcomes_match,
            "signature_valid": self.signature_valid,
            "reason": self.reason,
            "problems": self.problems,
        }


def check_record(record: object, public_key: bytes, commitment: str | None = None) -> RecordCheck:
    """Check a record (a parsed ``GET /games/{id}/record``): its deals against its seed and
    its outcomes against its plays (the engine's :func:`verify_record`; ``commitment``: the
    ``seed_commitment`` seen during the game, if the caller kept it), and its signature by
    ``public_key`` (the server's 32 bytes, ``GET /records/key``). Never raises."""
    verification = verify_record(record, commitment)
    if isinstance(record, Mapping):
        signature_problem = check_signature(record, public_key)
    else:  # the engine names the problem
        signature_problem = "the record is not a JSON object, so it carries no signature"
    return RecordCheck(verification, signature_problem)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m games.record_check",
        description="Check platform records: their deals against their seed, every outcome "
        "against the replay of their plays, and the server's signature by the key given.",
    )
    parser.add_argument(
        "--key",
        required=True,
        help="the server's public key: its 64 hex digits, or a file holding them or the "
        "answer of GET /api/v1/records/key",
    )
    parser.add_argument("--commitment", metavar="HEX", help="the seed_commitment seen in play")
    parser.add_argument("records", nargs="+", metavar="RECORD.json")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 ok, 1 a record fails, 2 unreadable)."""
    args = _parser().parse_args(argv)
    try:
        public_key = read_public_key(args.key)
        Ed25519PublicKey.from_public_bytes(public_key)
    except ValueError as error:
        print(f"--key: {error}", file=sys.stderr)
        return 2
    status = 0
    for path in args.records:
        try:
            record = read_record(path)
        except ValueError as error:
            status = 2
            print(f"{path}: cannot check: {error}", file=sys.stderr)
            continue
        result = check_record(record, public_key, args.commitment)
        if result.ok:
            print(
                f"{path}: ok (the seed's deals, outcomes that follow from the plays, signed by "
                f"the key given: key_id {key_id(public_key)})"
            )
        else:
            status = max(status, 1)
            print(f"{path}: FAILED: {result.reason}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
