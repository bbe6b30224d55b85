"""The rules presets' readable names and one-line descriptions in templates
(``web.presets`` holds them)."""

from __future__ import annotations

from django import template

from web import presets

register = template.Library()


@register.filter
def preset_label(name: str) -> str:
    return presets.preset_label(str(name))


@register.filter
def preset_summary(name: str) -> str:
    return presets.preset_summary(str(name))
