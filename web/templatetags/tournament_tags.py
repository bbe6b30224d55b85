"""Times, formats and places as the tournament pages show them."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from django import template
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from ratings.display import display_rating

register = template.Library()

FORMAT_NAMES = {"swiss": "Swiss", "round_robin": "Round robin", "knockout": "Knockout"}
ORDINAL_ENDINGS = {1: "st", 2: "nd", 3: "rd"}


@register.filter
def as_display_rating(ordinal: float | None) -> int | None:
    """A rating limit of the API (an ordinal) on the pages' scale (None stays None)."""
    return None if ordinal is None else display_rating(ordinal)


@register.simple_tag
def when(value: str | None, empty: str = "—") -> str:
    """An ISO time of the API as ``<time datetime="...">Tue 4 Mar, 18:00 UTC</time>`` (the
    year added when it is not this year's)."""
    if not value:
        return empty
    moment = timezone.localtime(datetime.fromisoformat(value))
    shown = moment.strftime("%a %-d %b")
    if moment.year != timezone.localtime().year:
        shown += moment.strftime(" %Y")
    return format_html(
        '<time datetime="{}">{}, {} UTC</time>', value, shown, moment.strftime("%H:%M")
    )


@register.filter
def format_name(value: str) -> str:
    return FORMAT_NAMES.get(value, value)


@register.filter
def place(rank: int | None) -> str:
    """1 → "1st", 2 → "2nd", 11 → "11th"."""
    if rank is None:
        return ""
    ending = "th" if 10 <= rank % 100 <= 20 else ORDINAL_ENDINGS.get(rank % 10, "th")
    return f"{rank}{ending}"


@register.filter
def words(value: str) -> str:
    """``entrant_added`` → "entrant added"."""
    return value.replace("_", " ")


@register.filter
def compact(value: object) -> str:
    """A detail of the audit log in a few words: lists joined, objects as key=value."""
    if isinstance(value, list):
        return ", ".join(compact(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}={compact(v)}" for k, v in value.items())
    return "—" if value is None else str(value)


@register.filter
def points(value: float | None) -> str:
    """Tournament points with at most two decimals: 4, 1.5, 1.33."""
    if value is None:
        return ""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@register.simple_tag
def entrant(e: dict[str, object] | None, name: str = "", plain: bool = False) -> SafeString:
    """A name in a tournament, linking to the account's profile: an entrant ``e`` (with a
    bot badge unless ``plain``), or a filler house bot called ``name``. A tag, not an
    included template: a tournament page shows a few hundred of them."""
    if e:
        link = (
            f'<a href="/players/{quote(str(e["account"]), safe="/")}">{escape(e["username"])}</a>'
        )
        badge = ' <span class="badge bot">bot</span>' if e.get("is_bot") and not plain else ""
        return mark_safe(link + badge)
    return mark_safe(
        f'<a href="/players/{quote(name, safe="/")}">{escape(name)}</a> <span class="badge"'
        ' title="fills an empty seat; not an entrant">filler</span>'
    )


@register.filter
def address_breaks(value: str) -> SafeString:
    """``value``, a web address, with a line break allowed after each slash: a long address
    wraps between its parts rather than inside a word."""
    return mark_safe("/<wbr>".join(escape(part) for part in str(value).split("/")))
