"""The Sergeant Major SDK: a small client of the platform's API (:class:`Client`) and an
example bot (``python -m sergeant_sdk.example``). It needs only ``httpx``."""

from sergeant_sdk.client import (
    LINE_TYPES,
    SIGNATURE_HEADER,
    ApiError,
    Client,
    signature,
    verify_signature,
)

__all__ = [
    "LINE_TYPES",
    "SIGNATURE_HEADER",
    "ApiError",
    "Client",
    "signature",
    "verify_signature",
]
__version__ = "0.1.0"
