"""Limits on a request's head (its URL and headers), the same as platform/nginx.conf's.

Where the platform faces the network with no proxy in front (``make run``, the container
image alone), uvicorn's h11 protocol keeps a head from being read whole: it refuses one that
is still incomplete past ``--h11-max-incomplete-event-size``. A head that arrives whole in one
read gets past it, so its size is checked here too, before anything else reads it; refused
in the API's error shape. Behind nginx, nginx refuses them first.
"""

from typing import Any

import orjson

#: The URL of the request line (path and query), in bytes.
MAX_URL_BYTES = 8 * 1024
#: The URL and headers together, in bytes.
MAX_HEAD_BYTES = 32 * 1024
#: Headers in one request (a browser sends about 20).
MAX_HEADERS = 100


def head_refusal(scope: dict[str, Any]) -> tuple[int, str, str] | None:
    """``(status, code, message)`` refusing this request's head, or None if it is within the
    limits."""
    url_bytes = len(scope.get("raw_path") or scope["path"]) + len(scope["query_string"])
    if url_bytes > MAX_URL_BYTES:
        return 414, "url_too_long", f"A request's URL is limited to {MAX_URL_BYTES} bytes."
    headers = scope["headers"]
    if len(headers) > MAX_HEADERS or (
        url_bytes + sum(len(name) + len(value) + 4 for name, value in headers) > MAX_HEAD_BYTES
    ):
        return (
            431,
            "headers_too_large",
            f"A request's head is limited to {MAX_HEADERS} headers and {MAX_HEAD_BYTES} bytes.",
        )
    return None


async def send_refusal(send: Any, status: int, code: str, message: str) -> None:
    body = orjson.dumps({"error": {"code": code, "message": message}})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
