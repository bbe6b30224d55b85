"""Cards, suits and seats as the pages show them.

A face-up card is ``<span class="card" data-card="AH">`` (docs/web.md: tests find cards by
``data-card``); a card the viewer may not see is never given to these tags."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.html import format_html

register = template.Library()

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
CALL_NAMES = {**SUIT_NAMES, "NT": "no trumps", "MIZ": "misère"}
RANK_LABELS = {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"}
RANK_NAMES = {"T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
RANKS = "23456789TJQKA"
#: Hands are shown by suit, black and red alternating, highest card first.
SUIT_ORDER = "SHCD"


def card_name(code: str) -> str:
    """``AH`` → "ace of hearts" (the accessible name of a card)."""
    rank, suit = code[0], code[1]
    return f"{RANK_NAMES.get(rank, rank)} of {SUIT_NAMES[suit]}"


def sort_hand(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUIT_ORDER.index(c[1]), -RANKS.index(c[0])))


@register.filter
def sorted_hand(cards: Iterable[str] | None) -> list[str]:
    return sort_hand(cards or [])


@register.filter
def suit_symbol(suit: str | None) -> str:
    if not suit:
        return ""
    return SUIT_SYMBOLS.get(suit, {"NT": "NT", "MIZ": "MIZ"}.get(suit, suit))


@register.filter
def call_name(suit: str | None) -> str:
    return CALL_NAMES.get(suit or "", suit or "")


@register.filter
def suit_colour(suit: str | None) -> str:
    return "red" if suit in ("H", "D") else "black"


@register.filter
def card_label(code: str) -> str:
    """The name of a card's button: its spoken name, starting with the rank it shows, so
    that saying what is seen ("K", "10") finds it: "K, king of spades", "10 of hearts"."""
    rank, suit = code[0], code[1]
    shown = RANK_LABELS.get(rank, rank)
    if shown.isdigit():
        return f"{shown} of {SUIT_NAMES[suit]}"
    return f"{shown}, {card_name(code)}"


@register.simple_tag
def card(code: str, extra_class: str = "") -> str:
    """A face-up card: ``{% card "AH" %}``."""
    rank, suit = code[0], code[1]
    return format_html(
        '<span class="card {} {}" data-card="{}" role="img" aria-label="{}">'
        '<span class="rank">{}</span><span class="suit">{}</span></span>',
        suit_colour(suit),
        extra_class,
        code,
        card_name(code),
        RANK_LABELS.get(rank, rank),
        SUIT_SYMBOLS[suit],
    )


@register.simple_tag
def card_face(code: str) -> str:
    """The inside of a card button (the button itself carries ``data-card``)."""
    rank, suit = code[0], code[1]
    return format_html(
        '<span class="rank">{}</span><span class="suit">{}</span>',
        RANK_LABELS.get(rank, rank),
        SUIT_SYMBOLS[suit],
    )


@register.filter
def preset_name(rules: object) -> str:
    """A table's rules as a short label: ``classic``, ``woburn (max 3 hands)``."""
    if isinstance(rules, str):
        return rules
    if isinstance(rules, dict):
        preset = str(rules.get("preset", "classic"))
        options = [f"{k.replace('_', ' ')} {v}" for k, v in rules.items() if k != "preset"]
        return f"{preset} ({', '.join(options)})" if options else preset
    return str(rules)


@register.filter
def get_item(mapping: object, key: object) -> object:
    """``{{ names|get_item:seat }}``: a dict's value or a list's item, or ""."""
    try:
        return mapping[key]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        return ""


@register.filter
def times(count: int | None) -> range:
    """``{% for _ in 5|times %}``."""
    return range(count or 0)
