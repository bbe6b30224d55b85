"""Cards as words in a line of text (the replay's list of steps): ``{% card_text "AH" %}``
is ``A♥`` in the suit's colour, with ``data-card`` like every face-up card (docs/web.md)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, format_html_join

from web.replay import Part
from web.templatetags.cards import RANK_LABELS, SUIT_SYMBOLS, card_name, suit_colour

register = template.Library()


@register.simple_tag
def card_text(code: str) -> str:
    rank, suit = code[0], code[1]
    return format_html(
        '<span class="card-text {}" data-card="{}" role="img" aria-label="{}">{}{}</span>',
        suit_colour(suit),
        code,
        card_name(code),
        RANK_LABELS.get(rank, rank),
        SUIT_SYMBOLS[suit],
    )


@register.filter
def words_and_cards(parts: list[Part]) -> str:
    """A replay's short line (``web.replay.Part`` pieces): words, and cards as
    :func:`card_text` (one filter for a whole line: the list of a hand's steps is long)."""
    return format_html_join(" ", "{}", ((card_text(p.card) if p.card else p.text,) for p in parts))
