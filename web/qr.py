"""QR codes drawn on the server as inline SVG (segno), for pages that are printed: a phone's
camera opens the address a code holds."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from segno import make

#: Medium error correction: a creased or smudged sheet still scans.
ERROR_CORRECTION = "m"


def qr_svg(url: str, *, label: str, hook: str = "data-qr") -> SafeString:
    """An ``<svg>`` of the QR code of ``url``, sized by the page's CSS (a view box, no
    width), named for screen readers by ``label``; ``hook`` is the attribute that carries
    the address it encodes."""
    code = make(url, error=ERROR_CORRECTION, micro=False)
    svg = code.svg_inline(scale=1, border=4, omitsize=True, title=label, svgclass="qr")
    opening = f'<svg role="img" {hook}="{escape(url)}" '
    return mark_safe(opening + svg.removeprefix("<svg "))
