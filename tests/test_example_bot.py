"""The example bot (``python -m sergeant_sdk.example``) plays whole games against the running
platform, through the SDK only, beside house bots: several at once on one stream, as bot
accounts do (their turns in different games commit in any order). And the short bot the bots
page shows a person who has just created a bot account (web/first_bot.py), as printed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sergeant_sdk import ApiError, Client

from games.models import Game, GameEvent, GamePlayer
from tests.api_client import register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import ROOT, VENV_BIN, clean_env, wait_until
from web.first_bot import FIRST_BOT

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


def test_it_plays_a_game_with_the_bot_the_bots_page_shows(
    api_server: LiveServer, celery_worker: WorkerInfo, tmp_path: Path
) -> None:
    owner = register(api_server.url, "firsthost")
    bot = owner.ok("POST", "/bots", 201, json={"username": "firstbot", "mode": "poll"})
    script = tmp_path / "mybot.py"
    script.write_text(FIRST_BOT)
    out = tmp_path / "out.txt"
    with out.open("w") as printed:
        running = subprocess.Popen(
            [str(VENV_BIN / "python"), str(script), api_server.url, bot["token"]],
            cwd=tmp_path,
            env=clean_env(PYTHONUNBUFFERED="1"),
            stdout=printed,
            stderr=subprocess.STDOUT,
        )
    try:
        with Client(api_server.url, owner.token) as sdk:
            table = sdk.create_table({"preset": "classic", "max_hands": 1}, False, 30, seat=None)
            sdk.seat_bot(table["id"], "house:random", 1)
            sdk.seat_bot(table["id"], "house:random", 2)
            game_id = sdk.seat_bot(table["id"], "firstbot", 0)["game"]
        # It says so when its game is over.
        wait_until(
            lambda: f"game {game_id} over:" in out.read_text(),
            timeout=120,
            interval=0.5,
            what=f"the bot's line for game {game_id}",
        )
    finally:
        running.terminate()
        running.wait(timeout=10)
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    # It was in the arena, and it played its own cards, none by the move timer.
    assert owner.ok("GET", "/arena?pool=classic", 200)["bots"][0]["username"] == "firstbot"
    mine = GamePlayer.objects.get(game_id=game_id, seat=0)
    assert (mine.timeouts, mine.replaced_by) == (0, None)
    assert GameEvent.objects.filter(game_id=game_id, type="play", payload__seat=0).count() == 16
