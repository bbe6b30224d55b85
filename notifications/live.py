"""What waits on a person, followed live: the notification bell of every page of theirs.

A ``realtime.feeds.PersonalList``: a web process keeps one feed of a person for all their
open pages (every page has the bell). Whatever changes what waits on a person wakes their
person channel once it commits: a turn of theirs that starts or ends (``games.changes``), a
challenge they are in (``challenges.services``), an invitation of theirs made, answered,
cancelled or lapsed, a round that seats them opened or finished (``tournaments.services``),
a club invitation of theirs or a join request of a club they administer made or answered
(``clubs.services``).
The feed then compares the person's list (``selectors.waiting_on``, whose items are the
marks) and, when it moved, renders the bell once (``FRAGMENTS``) for all their pages. What
changes without a wake-up (a challenge that runs out of time) is caught by the
process-wide look, which reads every followed person's list in one query a kind.
"""

from __future__ import annotations

from collections.abc import Callable

from accounts.models import Player
from notifications import selectors
from realtime.delivery import feeds

#: The bell's renderers: name → render(the person's username, their notices, the list's
#: mark). Registered by the web app (config/wiring.py).
FRAGMENTS: dict[str, Callable[[str, list[selectors.Notice], int], str]] = {}
#: The one fragment the feed renders (the bell's panel).
FRAGMENT = "bell"


def shown(player: Player) -> tuple[list[selectors.Notice], int]:
    """What waits on ``player`` now, and the list's mark (a page's ``after``)."""
    notices = selectors.waiting_on([player.pk])[player.pk]
    return notices, feeds.fingerprint(notices)


def _render(key: int, notices: list[selectors.Notice], version: int) -> str | None:
    username = Player.objects.filter(pk=key).values_list("username", flat=True).first()
    if username is None:
        return None
    render = FRAGMENTS.get(FRAGMENT)
    return render(username, notices, version) if render is not None else ""


SOURCE = feeds.PersonalList("notifications", marks=selectors.waiting_on, render=_render)
