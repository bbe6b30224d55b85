"""The web server's HTTP/1.1 protocol: uvicorn's httptools one, with limits on a request's
head (its request line and headers), refused in the API's JSON error shape.

uvicorn with httptools sets no limit there: a 20 MB header or 100,000 headers were read
whole into memory (40-60 MB each, issue #31). Here, while a request's head is coming in:

* a URL longer than ``MAX_URL_BYTES`` → 414 ``url_too_long``;
* more than ``MAX_HEADERS`` headers, or a head larger than ``MAX_HEAD_BYTES`` → 431
  ``headers_too_large``;

each answered at once, the connection then closed, without waiting for the rest. The parser
holds at most the limit plus what one read brings. Served by ``uvicorn --http
server.http_protocol:BoundedHttpToolsProtocol`` (platform/Procfile, docker-compose.yml);
docs/decisions/0037-request-head-limits.md says why here and not in a proxy.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: uvicorn's ``--http`` for this protocol.
HTTP_PROTOCOL = "server.http_protocol:BoundedHttpToolsProtocol"

#: The URL of the request line (path and query), in bytes (nginx refuses past 8 KB too).
MAX_URL_BYTES = 8 * 1024
#: The whole head: request line and headers, in bytes.
MAX_HEAD_BYTES = 64 * 1024
#: Headers in one request (a browser sends about 20).
MAX_HEADERS = 100

#: At most this long, the rest of a refused request is read and dropped before closing.
LINGER_SECONDS = 2.0

_REASONS = {414: b"URI Too Long", 431: b"Request Header Fields Too Large"}


class HeadTooLarge(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _url_too_long() -> HeadTooLarge:
    return HeadTooLarge(414, "url_too_long", f"URLs are limited to {MAX_URL_BYTES} bytes.")


def _headers_too_large() -> HeadTooLarge:
    return HeadTooLarge(
        431,
        "headers_too_large",
        f"Request heads are limited to {MAX_HEADERS} headers and {MAX_HEAD_BYTES} bytes.",
    )


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with the head limits above.

    The limits are checked at two places only, not in the parser's callback of every header
    or piece of URL (that cost more than the rest of the guard together, decision 0046):
    after each read while a head is incomplete (the URL, the headers and the bytes so far),
    and once a head is complete (its URL and headers). A read brings at most the transport's
    buffer, so the parser holds at most a limit plus one read, as before."""

    # Bytes received since the current request began, while its head is incomplete.
    _head_bytes = 0
    # Whether the next bytes belong to a head (between requests too): the counts above and
    # uvicorn's ``url`` and ``headers`` are then those of a head being received, or those
    # of the last request, which passed.
    _in_head = True
    _refused = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn sets them when a request begins; the checks after a read may come first.
        self.url = b""
        self.headers = []

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # the rest of a refused request, read and dropped (see _refuse)
        self._unset_keepalive_if_required()
        if self._in_head:
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            if isinstance(error.__context__, HeadTooLarge):
                self._refuse(error.__context__)
            else:
                self._bad_request()
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError:
            self._bad_request()
            return
        if self._in_head and (self._head_bytes > MAX_URL_BYTES or len(self.headers) > MAX_HEADERS):
            # A head still incomplete: refused as soon as what came of it is over a limit.
            refusal = _head_refusal(len(self.url), len(self.headers), self._head_bytes)
            if refusal is not None:
                self._refuse(refusal)

    def _bad_request(self) -> None:
        msg = "Invalid HTTP request received."
        self.logger.warning(msg)
        self.send_400_response(msg)

    def _refuse(self, refusal: HeadTooLarge) -> None:
        """Answer, then close. Closing at once with the client's bytes unread would reset the
        connection, and the client could lose the answer before reading it; so, as nginx's
        lingering close does, the end of the request is read and dropped (not kept) until
        the client closes or for ``LINGER_SECONDS`` at most."""
        body = orjson.dumps({"error": {"code": refusal.code, "message": refusal.message}})
        head = [b"HTTP/1.1 %d %s\r\n" % (refusal.status, _REASONS[refusal.status])]
        for name, value in self.server_state.default_headers:
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: application/json\r\n")
        head.append(b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body))
        self.transport.write(b"".join(head) + body)
        self._refused = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_SECONDS, self.transport.close)

    # Parser callbacks.

    def on_headers_complete(self) -> None:
        if len(self.url) > MAX_URL_BYTES:
            raise _url_too_long()
        if len(self.headers) > MAX_HEADERS or (
            # A read can bring a whole head over the limit (uvloop reads up to 256 KiB), which
            # the check after the read would not see: measured only then, so rarely.
            self._head_bytes > MAX_HEAD_BYTES
            and _head_size(self.url, self.headers) > MAX_HEAD_BYTES
        ):
            raise _headers_too_large()
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head = True
        self._head_bytes = 0


def _head_size(url: bytes, headers: list[tuple[bytes, bytes]]) -> int:
    """The bytes of a head's URL and headers, each header with its ``: `` and line end."""
    return len(url) + sum(len(name) + len(value) + 4 for name, value in headers)


def _head_refusal(url_bytes: int, headers: int, head_bytes: int) -> HeadTooLarge | None:
    """The refusal a head with this URL, number of headers and size so far has earned."""
    if url_bytes > MAX_URL_BYTES:
        return _url_too_long()
    if headers > MAX_HEADERS or head_bytes > MAX_HEAD_BYTES:
        return _headers_too_large()
    return None
