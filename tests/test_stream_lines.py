"""Stream lines are spliced from the stored JSON text: the same objects as the messages."""

from __future__ import annotations

import json

import pytest

from accounts.models import Player
from realtime import stream
from realtime.models import PlayerMessage


@pytest.mark.django_db
def test_it_builds_each_line_as_the_type_followed_by_the_payload() -> None:
    player = Player.objects.create(username="liner")
    other = Player.objects.create(username="other-liner")
    payloads = [
        ("game_start", {"game": 7, "table": 3}),
        ("your_turn", {"game": 7, "view": {"hand": ["AS", "10H"], "note": 'ça va\n"ok"'}}),
        ("tournament_round", {}),
    ]
    first = PlayerMessage.objects.create(player=player, type="game_start", payload={"game": 1})
    PlayerMessage.objects.create(player=other, type="game_start", payload={"game": 9})
    for kind, payload in payloads:
        PlayerMessage.objects.create(player=player, type=kind, payload=payload)

    lines = stream.stream_lines_after(player, first.id)

    assert [json.loads(line) for _, line, _ in lines] == [
        {"type": kind, **payload} for kind, payload in payloads
    ]
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for _, line, _ in lines)
    ids = [message_id for message_id, _, _ in lines]
    assert ids == sorted(ids) and ids[0] > first.id
    assert stream.stream_lines_after(player, ids[-1]) == []
