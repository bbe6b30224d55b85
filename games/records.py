"""The server's signature of the games' records, and its public key (docs/rules.md "Signed
records").

``GET /games/{id}/record`` serves each record signed with the platform's Ed25519 key
(``settings.RECORD_SIGNING_KEY``, made once in ``DATA_DIR`` if not set), and
``GET /records/key`` publishes the key's public half. What is signed, and the check, are
``games.record_check``'s, which needs no Django: anyone holding the platform's package
checks a record offline with ``python -m games.record_check --key KEY record.json``. Signing
and checking are the ``cryptography`` package's Ed25519 (OpenSSL's), never the engine's.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings

from games.record_check import ALGORITHM, FIELD, key_id, record_message


@cache
def _private_key(hex_key: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(hex_key))


def signing_key() -> Ed25519PrivateKey:
    """The key of ``settings.RECORD_SIGNING_KEY`` (read each time: a test may change it)."""
    return _private_key(settings.RECORD_SIGNING_KEY)


def public_key() -> bytes:
    """The signing key's public half, its 32 raw bytes."""
    return signing_key().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def public_key_data() -> dict[str, Any]:
    """``GET /records/key``: the public key as 64 hex digits (what ``--key`` of
    ``python -m games.record_check`` takes, as this answer saved to a file does too), its
    ``key_id`` (as signatures name it) and the same key in PEM (for OpenSSL and others)."""
    public = signing_key().public_key()
    raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
    pem = public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")
    return {
        "algorithm": ALGORITHM,
        "public_key": raw.hex(),
        "key_id": key_id(raw),
        "public_key_pem": pem,
    }


def sign_record(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the server's ``signature`` of its content (every other key)."""
    key = signing_key()
    raw = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    value = key.sign(record_message(record)).hex()
    return {**record, FIELD: {"algorithm": ALGORITHM, "key_id": key_id(raw), "value": value}}
