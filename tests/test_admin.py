"""The Django admin shows players, tokens, tables and games; game state is read-only."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import register_player
from games import tables
from games.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game() -> Game:
    players = [register_player(f"adm{i}", password="correct horse battery")[0] for i in range(3)]
    table = tables.create_table(players[0], rules="classic", rated=True, move_seconds=60, seat=0)
    tables.join_table(players[1], table_id=table.pk, seat=None)
    tables.join_table(players[2], table_id=table.pk, seat=None)
    return Game.objects.get(table=table)


def test_it_lists_players_tokens_tables_games_and_events(admin_client: Client, game: Game) -> None:
    for path in (
        "/admin/accounts/player/",
        "/admin/accounts/apitoken/",
        "/admin/games/table/",
        "/admin/games/game/",
        "/admin/games/gameevent/",
        "/admin/bots/botaccount/",
    ):
        assert admin_client.get(path).status_code == 200, path


def test_it_shows_a_game_read_only(admin_client: Client, game: Game) -> None:
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/")

    assert page.status_code == 200
    assert b'name="state"' not in page.content  # shown, but not as an editable field
    assert admin_client.get("/admin/games/game/add/").status_code == 403
    before = Game.objects.get(pk=game.pk).state
    admin_client.post(f"/admin/games/game/{game.pk}/change/", {"state": "{}", "version": 99})
    assert Game.objects.get(pk=game.pk).state == before
