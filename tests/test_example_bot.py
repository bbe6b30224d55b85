"""The example bot (``python -m sergeant_sdk.example``) plays whole games against the running
platform, through the SDK only, beside house bots: several at once on one stream, as bot
accounts do (their turns in different games commit in any order)."""

from __future__ import annotations

import subprocess

import pytest
from sergeant_sdk import ApiError, Client

from games.models import Game, GameEvent, GamePlayer
from tests.api_client import register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import ROOT, VENV_BIN, clean_env

pytestmark = pytest.mark.django_db(transaction=True)


GAMES = 4


def test_it_plays_full_games_at_once_with_the_example_bot(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    owner = register(api_server.url, "examplehost")
    bot = owner.ok("POST", "/bots", 201, json={"username": "examplebot", "mode": "poll"})
    game_ids = []
    with Client(api_server.url, owner.token) as sdk:
        for number in range(GAMES):
            table = sdk.create_table({"preset": "classic", "max_hands": 2}, True, 30, seat=None)
            sdk.seat_bot(table["id"], "house:random", 1)
            sdk.seat_bot(table["id"], "house:random", 2)
            started = sdk.seat_bot(table["id"], "examplebot", 0)
            if number == 0:
                with pytest.raises(ApiError) as refused:
                    sdk.seat_bot(table["id"], "house:random", 0)
                assert refused.value.status == 409
            assert started["status"] == "playing"
            game_ids.append(started["game"])

    done = subprocess.run(
        [
            str(VENV_BIN / "python"),
            "-m",
            "sergeant_sdk.example",
            "--server",
            api_server.url,
            "--token",
            bot["token"],
            "--games",
            str(GAMES),
            # The test settings rate no game by themselves: no rating change to wait for.
            "--rating-wait",
            "0",
        ],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert "playing as examplebot" in done.stderr
    reported = sorted(int(line.split(":")[0].split()[1]) for line in done.stdout.splitlines())
    assert reported == sorted(game_ids)  # a line for each game, as it finished

    games = list(Game.objects.filter(pk__in=game_ids))
    assert len(games) == GAMES
    for game in games:
        assert game.status == Game.Status.FINISHED
        mine = GamePlayer.objects.get(game=game, seat=0)
        assert (mine.player.username, mine.timeouts, mine.replaced_by) == ("examplebot", 0, None)
        # It really played: its cards went to tricks, none by the move timer.
        plays = GameEvent.objects.filter(game=game, type="play", payload__seat=0).count()
        assert plays == 16 * game.result["hands_played"]  # 16 tricks a classic hand
        assert not GameEvent.objects.filter(game=game, type="timeout").exists()
