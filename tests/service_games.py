"""Games of three people played in-process through the games services (no HTTP)."""

from __future__ import annotations

from accounts.models import Player
from accounts.services import create_person
from games import play, tables
from games.models import Game

PASSWORD = "a long pass phrase"


def seated_game(
    preset: str, names: tuple[str, str, str] = ("ann", "bob", "cy")
) -> tuple[Game, list[Player]]:
    """A game of ``preset`` between three new people, seated in the order of ``names``."""
    people = [create_person(n, password=PASSWORD) for n in names]
    table = tables.create_table(people[0], rules=preset, rated=True, move_seconds=600, seat=0)
    for person in people[1:]:
        tables.join_table(person, table_id=table.pk, seat=None)
    return Game.objects.get(table=table), people


def play_until(game: Game, people: list[Player], phase: str) -> Game:
    """Act for whoever is to act (the timeout rule's choice) until the game reaches ``phase``
    (or ``finished``)."""
    for _ in range(5000):
        game.refresh_from_db()
        if game.phase == phase or game.status == phase:
            return game
        seat = game.to_act[0]
        engine = game.engine()
        action = engine.fallback_action(seat).to_dict()
        play.submit_action(
            people[seat], game_id=game.pk, action=action, expected_version=game.version
        )
    raise AssertionError(f"never reached {phase}")
