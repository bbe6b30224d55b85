"""The API's JSON renderer and parser, through orjson (``core.json_codec`` says why)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError
from rest_framework.utils.encoders import JSONEncoder


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer through orjson; types JSON has not (times, decimals, lazy
    strings) are encoded by DRF's own encoder, as before. An indented rendering (asked for
    with ``indent=`` in the ``Accept`` header) is left to DRF."""

    _encode_other = staticmethod(JSONEncoder().default)

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        body = orjson.dumps(
            data,
            default=self._encode_other,
            option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME,
        )
        # As DRF does: escaped, so that the JSON is also a strict subset of JavaScript.
        return body.replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser through orjson, for bodies in UTF-8 (the default); others are left
    to DRF. Malformed JSON is a ``ParseError``, as with DRF's."""

    renderer_class = JSONRenderer

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = parsers.get_encoding(parser_context or {})
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            return super().parse(stream, media_type, parser_context)
        try:
            return orjson.loads(stream.read())
        except orjson.JSONDecodeError as error:
            raise ParseError(f"JSON parse error - {error}") from error
