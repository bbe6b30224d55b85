"""A game row's state keeps to the hand in play: at each hand's end the engine's journal
(deals, actions, the hand's full results) goes to a part of its own, and the record is put
together from the state and the parts (games.models.GameJournalPart)."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from accounts.services import register_player
from games import play, selectors, tables
from games.engine import Game as Engine
from games.models import Game, GameJournalPart
from tests.game_helpers import choose_action

pytestmark = pytest.mark.django_db

RULES = {"preset": "all-sixteen", "max_hands": 6}


def test_it_keeps_the_stored_state_to_the_hand_in_play_and_records_the_whole_game() -> None:
    players = [
        register_player(f"journal{i}", password="correct horse battery")[0] for i in range(3)
    ]
    game = tables.start_seated_game(
        players[0], rules=RULES, rated=True, move_seconds=600, players=players
    )
    shadow = Engine.new(game.rules, seed=game.seed)  # the same game, never stored
    rng = random.Random(5)
    sizes_at_deal: list[int] = []
    while True:
        game = Game.objects.get(pk=game.pk)
        engine = Engine.from_json(game.state)
        (seat,) = engine.to_act()
        action = choose_action(engine.view(seat), rng)
        shadow.apply_dict(seat, dict(action))
        view = play.submit_action(
            players[seat], game_id=game.pk, action=action, expected_version=None
        ).view
        if view["status"] == "finished":
            break
        if view["hand_number"] != engine.hand_number:  # a hand ended; the next is dealt
            state = Game.objects.get(pk=game.pk).state
            parts = GameJournalPart.objects.filter(game=game.pk)
            assert parts.count() == view["hand_number"] - 1
            assert json.loads(state)["log"] == ""  # no action of a finished hand
            sizes_at_deal.append(len(state))

    # The state grew by a hand's summary a hand, not by its journal (about 1.5 KB a hand of
    # all-sixteen: the actions, the deal, the exchange).
    assert len(sizes_at_deal) == 5
    assert max(b - a for a, b in itertools.pairwise(sizes_at_deal)) < 150
    assert GameJournalPart.objects.filter(game=game.pk).count() == 6
    assert not Engine.from_json(Game.objects.get(pk=game.pk).state).has_whole_journal

    # The last move's response, the record and the finished game's view hold the whole game.
    record = selectors.game_record(game.pk)
    # The platform's fields beside the engine's record: the game, its seats, what it replays.
    assert record["duplicate_of"] is None
    platform_fields = ("game", "seats", "duplicate_of")
    assert {k: v for k, v in record.items() if k not in platform_fields} == shadow.record()
    assert view["record"] == shadow.record()
    assert selectors.game_view_for(game.pk, None)["record"] == shadow.record()
    assert len(record["hands"]) == 6 and len(record["actions"]) == len(shadow.record()["actions"])
