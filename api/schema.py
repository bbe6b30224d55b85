"""What the OpenAPI schema says of every endpoint alike."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

#: An error answer, documented once: ``{"error": {"code", "message", ...}}``.
ERROR = OpenApiResponse(description='`{"error": {"code", "message", ...}}`')
