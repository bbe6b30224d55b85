"""``/rules``: the rules of the game for people (the classic game step by step, then every
preset of the engine with its facts read from the engine's data)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from web.presets import all_preset_facts


@require_safe
def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "web/rules/rules.html", {"presets": all_preset_facts()})
