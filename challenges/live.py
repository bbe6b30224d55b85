"""A person's pending challenges, followed live: their challenges page, kept current.

A ``realtime.feeds.PersonalList``: a web process keeps one feed of a player for all that
player's open challenges pages. Every change of a challenge wakes the person channel of
each person it involves (``challenges.services``); the feed compares the list's marks
(``selectors.pending_marks``), and when they moved reads the player's list once and renders
it once (``FRAGMENTS``) for their pages. A challenge that runs out of time without a
wake-up (before the expiry sweep marks it) is caught by the process-wide look, which
compares the marks too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accounts.models import Player
from challenges import selectors
from realtime.delivery import feeds

#: How many challenges the page lists (the newest).
SHOWN = 100
#: The list's renderers: name → render(the player's username, their pending challenges as
#: ``selectors.challenges_data`` gives them, the list's mark). Registered by the web app
#: (config/wiring.py).
FRAGMENTS: dict[str, Callable[[str, list[dict[str, Any]], int], str]] = {}
#: The one fragment the feed renders (the challenges page's lists).
FRAGMENT = "page"


def _pending(player: Player) -> list[dict[str, Any]]:
    return selectors.challenges_data(selectors.pending_challenges(player)[:SHOWN])


def shown(player: Player) -> tuple[list[dict[str, Any]], int]:
    """The challenges the page lists now, and the list's mark (a page's ``after``)."""
    marks = selectors.pending_marks([player.pk])[player.pk]
    return _pending(player), feeds.fingerprint(marks)


def _render(key: int, marks: list[selectors.Mark], version: int) -> str | None:
    player = Player.objects.filter(pk=key).first()
    if player is None:
        return None
    render = FRAGMENTS.get(FRAGMENT)
    return render(player.username, _pending(player), version) if render is not None else ""


SOURCE = feeds.PersonalList("challenges", marks=selectors.pending_marks, render=_render)
