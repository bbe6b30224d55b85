"""The SDK is a package of its own (sdk/): installed into a fresh virtual environment outside
the project, with nothing but what its pyproject.toml asks for (httpx, from the package
index), it imports no Django and its example bot plays a game to the end against the live
server. Also: the SDK's calls of the endpoints this repository has, live, and the docs' bot
stays complete and short."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sergeant_sdk import ApiError, Client

from arena.models import Arena, ArenaEntry
from games.models import Game, GamePlayer
from ratings.services import rate_game
from tests.api_client import register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import ROOT, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SDK = ROOT / "sdk"
#: Only what a bot author's machine has: no platform variables, no project on the path.
PLAIN_ENV_KEYS = ("PATH", "HOME", "LANG", "TMPDIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")


def plain_env(venv: Path) -> dict[str, str]:
    import os

    env = {k: os.environ[k] for k in PLAIN_ENV_KEYS if k in os.environ}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["PYTHONNOUSERSITE"] = "1"
    return env


def pip(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The project's pip working on ``venv`` (``--python``): the fresh venv is made without
    pip of its own, which saves its slowest part (ensurepip) and changes nothing installed."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), *args],
        cwd=venv.parent,
        env=plain_env(venv),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def sdk_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv in a temporary folder, with the SDK installed from a copy of sdk/ (so that
    the build writes nothing into the project, and nothing outside sdk/ is reachable) and
    its dependencies from the package index, as a bot author would."""
    where = tmp_path_factory.mktemp("sdk-install")
    source = where / "sdk"
    leave_out = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    shutil.copytree(SDK, source, ignore=leave_out)
    venv = where / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    installed = pip(venv, "install", "--quiet", str(source))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def run_in(venv: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "python"), *args],
        cwd=venv.parent,
        env=plain_env(venv),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_example(venv: Path, *args: str) -> subprocess.Popen[str]:
    """The installed example bot, started in the background with ``args``."""
    return subprocess.Popen(
        [str(venv / "bin" / "python"), "-m", "sergeant_sdk.example", *args],
        cwd=venv.parent,
        env=plain_env(venv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_it_installs_with_httpx_and_no_django(sdk_venv: Path) -> None:
    probe = run_in(
        sdk_venv,
        "-c",
        "import sys, sergeant_sdk, sergeant_sdk.example, httpx; "
        "print(sergeant_sdk.__file__); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'}))",
    )
    assert probe.returncode == 0, probe.stderr
    where, loaded = probe.stdout.splitlines()
    assert Path(where).is_relative_to(sdk_venv)  # the installed copy, not the project's
    assert loaded == "[]"
    missing = run_in(sdk_venv, "-c", "import django")
    assert "ModuleNotFoundError" in missing.stderr
    listed = pip(sdk_venv, "list", "--format=freeze")
    names = {line.split("==")[0].lower() for line in listed.stdout.splitlines()}
    assert {"sergeant-major-sdk", "httpx"} <= names
    assert not names & {"django", "djangorestframework", "celery", "sergeant-major"}


def test_it_runs_the_installed_example_bot_to_a_finished_game(
    sdk_venv: Path, api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    owner = register(api_server.url, "sdkowner")
    with Client(api_server.url, owner.token) as client:
        bot = client.create_bot("sdkbot")
        table = client.create_table({"preset": "classic", "max_hands": 1}, True, 30, seat=None)
        for name in ("sdkbot", "house:random", "house:heuristic"):
            started = client.seat_bot(table["id"], name)
    game_id = started["game"]

    example = start_example(
        sdk_venv, "--server", api_server.url, "--token", bot["token"], "--games", "1"
    )
    try:
        wait_until(
            lambda: Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).exists(),
            timeout=90,
            what="the example bot's game to finish",
        )
        # The test settings leave rating to the tests (RATINGS_RATE_FINISHED_GAMES): rate
        # the game as the worker would; the bot waits for its rating change.
        assert rate_game(game_id)
        out, err = example.communicate(timeout=60)
    finally:
        example.kill()

    assert example.returncode == 0, err
    assert "playing as sdkbot" in err
    done = subprocess.CompletedProcess(example.args, example.returncode, out, err)
    line = re.fullmatch(
        rf"game {game_id}: rank ([123]) of 3, score (-?\d+) \((win|shared|loss)\); "
        r"rating (-?[\d.]+) -> (-?[\d.]+) \(([+-][\d.]+), pool classic\)",
        done.stdout.strip(),
    )
    assert line, done.stdout
    seat = GamePlayer.objects.get(game_id=game_id, player__username="sdkbot")
    assert seat.game.status == Game.Status.FINISHED
    assert (line[1], line[2]) == (str(seat.rank), str(seat.score))
    assert (seat.timeouts, seat.replaced_by) == (0, None)  # it played every card itself


def test_it_finds_a_game_by_seek_with_the_installed_example_bot(
    sdk_venv: Path, api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    owner = register(api_server.url, "seekowner")
    with Client(api_server.url, owner.token) as client:
        bot = client.create_bot("seekbot")
    rules = '{"preset": "classic", "max_hands": 1}'

    done = run_in(
        sdk_venv,
        *("-m", "sergeant_sdk.example", "--server", api_server.url, "--token", bot["token"]),
        *("--seek", "--house-bots-after", "1", "--rules", rules, "--unrated", "--games", "1"),
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert "seeking a game (seek " in done.stderr
    seat = GamePlayer.objects.get(player__username="seekbot")
    assert seat.game.status == Game.Status.FINISHED and not seat.game.rated
    assert done.stdout.strip() == (
        f"game {seat.game_id}: rank {seat.rank} of 3, score {seat.score} ({seat.result}); not rated"
    )
    assert (seat.timeouts, seat.replaced_by) == (0, None)


def test_it_seeks_again_when_its_seek_expires_with_the_example_bot() -> None:
    from sergeant_sdk.example import Bot, parse

    class Seeking:
        """What the bot asks of its client here: one seek after another."""

        def __init__(self) -> None:
            self.seeks = 0

        def seek(self, *args: object, **options: object) -> dict[str, object]:
            self.seeks += 1
            return {"id": self.seeks, "status": "open"}

    client = Seeking()
    bot = Bot(client, parse(["--server", "http://x", "--token", "t", "--seek"]))  # type: ignore[arg-type]
    bot.find_game()
    expired = {"type": "seek_expired", "seek": {"id": 1, "status": "expired"}}

    assert bot.on_line(expired) is False
    assert bot.on_line(expired) is False  # the same line again, after a reconnect

    assert client.seeks == 2


def test_it_plays_a_challenge_between_two_installed_example_bots(
    sdk_venv: Path, api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    owner = register(api_server.url, "challengeowner")
    with Client(api_server.url, owner.token) as client:
        challenger = client.create_bot("challenger")
        accepter = client.create_bot("accepter")
    rules = '{"preset": "classic", "max_hands": 1}'
    answering = start_example(
        sdk_venv,
        *("--server", api_server.url, "--token", accepter["token"]),
        *("--accept-challenges", "--games", "1"),
    )
    try:
        done = run_in(
            sdk_venv,
            *("-m", "sergeant_sdk.example", "--server", api_server.url),
            *("--token", challenger["token"], "--challenge", "accepter", "house:random"),
            *("--rules", rules, "--unrated", "--games", "1"),
            timeout=120,
        )
        out, err = answering.communicate(timeout=60)
    finally:
        answering.kill()

    assert done.returncode == 0, done.stderr
    assert answering.returncode == 0, err
    assert "accepted challenge" in err
    seats = GamePlayer.objects.filter(game__rated=False).select_related("game", "player")
    games = {seat.game_id for seat in seats if seat.player.username in ("challenger", "accepter")}
    assert len(games) == 1
    game = Game.objects.get(pk=games.pop())
    assert game.status == Game.Status.FINISHED
    assert f"game {game.pk}: rank " in done.stdout and f"game {game.pk}: rank " in out


def test_it_plays_in_the_arena_with_the_installed_example_bot(
    sdk_venv: Path, api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    Arena.objects.update_or_create(
        pool="classic",
        defaults={
            "rules": {"preset": "classic", "max_hands": 1},
            "move_seconds": 30,
            "wait_seconds": 0.5,  # alone: house bots fill the table after half a second
        },
    )
    owner = register(api_server.url, "arenaowner")
    with Client(api_server.url, owner.token) as client:
        bot = client.create_bot("arenabot")

    done = run_in(
        sdk_venv,
        *("-m", "sergeant_sdk.example", "--server", api_server.url, "--token", bot["token"]),
        *("--arena", "--games", "1", "--rating-wait", "0"),
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert "in the arena (pool classic)" in done.stderr
    seat = GamePlayer.objects.get(player__username="arenabot")
    assert seat.game.status == Game.Status.FINISHED and seat.game.rated
    assert done.stdout.startswith(f"game {seat.game_id}: rank {seat.rank} of 3")
    assert not ArenaEntry.objects.get(player__username="arenabot").active  # it left at the end


def test_it_leaves_the_arena_when_the_installed_example_bot_is_terminated(
    sdk_venv: Path, api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    Arena.objects.update_or_create(
        pool="classic",
        defaults={"rules": {"preset": "classic"}, "move_seconds": 30, "wait_seconds": 600},
    )
    owner = register(api_server.url, "termowner")
    with Client(api_server.url, owner.token) as client:
        bot = client.create_bot("termbot")
    example = start_example(
        sdk_venv, "--server", api_server.url, "--token", bot["token"], "--arena"
    )
    try:
        wait_until(
            lambda: ArenaEntry.objects.filter(player__username="termbot", active=True).exists(),
            timeout=30,
            what="the bot to join the arena",
        )
        example.terminate()  # SIGTERM, as kill, systemd and docker stop send
        _, err = example.communicate(timeout=30)
    finally:
        example.kill()

    assert example.returncode == 0, err
    assert "Traceback" not in err
    assert not ArenaEntry.objects.get(player__username="termbot").active, err


def test_it_calls_the_bot_table_game_and_tournament_endpoints(api_server: LiveServer) -> None:
    owner = register(api_server.url, "sdkuser")
    with Client(api_server.url, owner.token) as client:
        created = client.create_bot("sdkhelper")
        assert client.update_bot("sdkhelper", mode="poll")["mode"] == "poll"
        fresh = client.rotate_bot_token("sdkhelper")
        with Client(api_server.url, created["token"]) as stale, pytest.raises(ApiError) as refused:
            stale.me()
        assert (refused.value.status, refused.value.code) == (401, "invalid_token")
        with Client(api_server.url, fresh) as bot:
            assert bot.me()["username"] == "sdkhelper"

        open_table = client.create_table("classic", seat=0)
        assert client.cancel_table(open_table["id"]) is None
        with pytest.raises(ApiError) as gone:
            client.cancel_table(open_table["id"])
        assert gone.value.status == 404

        table = client.create_table({"preset": "classic", "max_hands": 1}, False, 600, seat=0)
        client.seat_bot(table["id"], "house:random")
        game_id = client.seat_bot(table["id"], "house:random")["game"]
        view = client.resign(game_id)
        assert view["your_seat"] == 0 and not view.get("legal_actions")

        tournament = owner.ok("POST", "/tournaments", 201, json={"name": "c", "format": "swiss"})
        entrant = client.register_tournament(tournament["id"], player="sdkhelper")
        assert entrant["username"] == "sdkhelper"
        with pytest.raises(ApiError) as not_invited:
            client.decline_tournament(tournament["id"])
        assert not_invited.value.code == "not_invited"


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, re.DOTALL)


def test_it_documents_a_complete_bot_in_under_forty_lines() -> None:
    for doc in (SDK / "README.md", ROOT / "docs" / "bots.md"):
        blocks = python_blocks(doc.read_text())
        bots = [b for b in blocks if "from sergeant_sdk import" in b and "client.act(" in b]
        assert bots, doc
        for code in bots:
            assert len(code.strip().splitlines()) < 40, doc
            compile(code, str(doc), "exec")  # valid Python, as printed


def test_it_knows_every_stream_line_type_the_server_sends_and_documents() -> None:
    from sergeant_sdk.client import LINE_TYPES

    sources = [
        path.read_text()
        # Every app but the pages, which send no line (their "_send" builds a form's action).
        for app in sorted(
            apps.parent for apps in ROOT.glob("*/apps.py") if apps.parent.name != "web"
        )
        for path in app.rglob("*.py")
    ]
    sent = {t for text in sources for t in re.findall(r'\btype="([a-z_]+)"', text)}
    sent |= {
        t for text in sources for t in re.findall(r'_send\([^,()]+(?:\(\w+\))?, "([a-z_]+)"', text)
    }
    after = (ROOT / "docs" / "api.md").read_text().split("| line `type` |")[1]
    stream_table = after.split("\n\n")[0]
    documented = set(re.findall(r"^\| `([a-z_]+)`(?:, `([a-z_]+)`)?", stream_table, re.M))
    documented_types = {t for pair in documented for t in pair if t}
    assert sent == set(LINE_TYPES) == documented_types
