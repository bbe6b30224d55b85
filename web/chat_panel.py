"""The chat panel of a game's page and a tournament's (``web/chat/_panel.html``, driven by
``static/web/chat.js``): the rooms its reader may read, with their API and live paths."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from chat import selectors

#: One tap on a phone says these.
QUICK_PHRASES = ("Hello!", "Good luck!", "Well played!", "Thanks!", "Oops", "Good game!")
LABELS = {"players": "Players", "spectators": "Spectators", "tournament": "Tournament"}
#: Who reads each room, said above its messages.
ABOUT = {
    "players": "Only this game's players read this.",
    "spectators": "The spectators' room: the players read it once the game is over.",
    "tournament": "Everyone signed in reads this.",
}


def _panel(viewer: Player | None, rooms: list[selectors.PageRoom], base: str) -> dict[str, Any]:
    shown = []
    for room in rooms:
        query = f"?channel={room.name}" if room.name in selectors.CHANNELS else ""
        shown.append(
            {
                "name": room.name,
                "label": LABELS[room.name],
                "about": ABOUT[room.name],
                "api": f"{base}/chat{query}",
                "live": f"{base}/chat/live{query}",
                "refusal": room.refusal,
                "after_the_game": room.after_the_game,
            }
        )
    return {
        "rooms": shown,
        "open_rooms": sum(not room.after_the_game for room in rooms),
        "me": viewer.username if viewer is not None else None,
        "staff": bool(viewer is not None and viewer.is_staff),
        "muted": selectors.muted_usernames(viewer) if viewer is not None else [],
        "phrases": QUICK_PHRASES,
    }


def game_chat(viewer: Player | None, game_id: int) -> dict[str, Any]:
    """A game page's chat: its players' room for a player (and, after the game, its
    spectators'), its spectators' room for anyone else signed in."""
    rooms = selectors.game_page_rooms(viewer, game_id)
    return _panel(viewer, rooms, f"/api/v1/games/{game_id}")


def tournament_chat(viewer: Player | None, tournament_id: int) -> dict[str, Any]:
    rooms = selectors.tournament_page_rooms(viewer, tournament_id)
    return _panel(viewer, rooms, f"/api/v1/tournaments/{tournament_id}")
