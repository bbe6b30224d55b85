"""Outbound HTTP to webhook bots: only to public http(s) addresses, bounded in time and size.

The address is resolved once, checked, and then connected to directly (the ``Host`` header
and TLS server name stay the URL's), so a hostname cannot pass the check with a public
address and then be re-resolved to a private one (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx


class UnsafeUrl(ValueError):
    """A URL the platform will not call."""


class Unresolvable(UnsafeUrl):
    """The URL's host does not resolve (now; it may later)."""


@dataclass(frozen=True)
class Target:
    url: str  # the URL with its host replaced by the checked address
    host: str  # the URL's own host, for the Host header and TLS
    https: bool


def resolve_target(url: str, allow_private: bool) -> Target:
    """Check ``url`` and pin it to one checked address; raise :class:`UnsafeUrl`."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeUrl("only http and https URLs with a host are allowed")
    if parts.username or parts.password:
        raise UnsafeUrl("credentials in the URL are not allowed")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise Unresolvable(f"cannot resolve {parts.hostname}: {error}") from error
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    if not allow_private and not all(a.is_global for a in addresses):
        raise UnsafeUrl(f"{parts.hostname} resolves to a private or reserved address")
    address = addresses[0]
    literal = f"[{address}]" if address.version == 6 else str(address)
    netloc = f"{literal}:{port}"
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return Target(url=pinned, host=parts.netloc, https=parts.scheme == "https")


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes


class ReplyTooLarge(Exception):
    pass


def post(
    target: Target,
    body: bytes,
    headers: dict[str, str],
    connect_timeout: float,
    read_timeout: float,
    max_bytes: int,
) -> Reply:
    """POST ``body``; no redirects; the reply is read up to ``max_bytes`` (else ReplyTooLarge)
    and within ``read_timeout`` in all (a reply trickling in byte by byte is cut off too).

    Raises ``httpx.HTTPError`` for network failures and timeouts.
    """
    give_up_at = time.monotonic() + connect_timeout + read_timeout
    timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
    extensions = {"sni_hostname": target.host.rsplit(":", 1)[0]} if target.https else {}
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        request = client.build_request(
            "POST",
            target.url,
            content=body,
            headers={**headers, "Host": target.host},
            extensions=extensions,
        )
        response = client.send(request, stream=True)
        try:
            received = bytearray()
            for chunk in response.iter_bytes():
                received += chunk
                if len(received) > max_bytes:
                    raise ReplyTooLarge(f"reply larger than {max_bytes} bytes")
                if time.monotonic() > give_up_at:
                    raise httpx.ReadTimeout("the reply took longer than the read timeout")
            return Reply(status=response.status_code, body=bytes(received))
        finally:
            response.close()
