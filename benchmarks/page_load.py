"""Page benchmark: the web pages' server time against their API twins, and a click's delay.

    .venv/bin/python benchmarks/page_load.py [--games 1000] [--rounds 200] [--moves 200]
                                             [--workers 2] [--jobs 3] [--code DIR]
                                             [--skip-pages] [--skip-clicks]

It starts the platform in service mode on a fresh PostgreSQL database
(``sergeant_bench_pages``) and Redis db 11: uvicorn on loopback (``--workers``), a Celery
worker (prefork, 2 processes), beat and the move timer. It seeds, through the services
(real games, real ratings):

- ``star``, a person with ``--games`` finished rated games (classic, one hand each, played
  out by random legal moves through ``games.play`` in ``--jobs`` processes, against two
  of 150 other people; the worker rates each game as it ends, as on the site), so
  ``/players/star`` has that many games in its history and points in its rating chart;
- a finished swiss of 30 house bots (5 rounds, played by the worker meanwhile), a running
  swiss of 6 people and one taking entries; 8 open tables and 8 games in play;

and vacuums and analyzes the database (as autovacuum keeps a live site's). Then it
measures, in one run:

1. **pages against their API twins.** Each page is fetched as a visitor, then the API calls
   that return the same data (its *twin*: a page that shows several lists has several, and
   its twin is their sum), alternately page first and twin first, ``--rounds`` times after
   20 unmeasured rounds, all over one keep-alive connection. Both carry the server's own
   time (``Server-Timing: app;dur=``, server/handlers.py: from the request reaching Django to
   its response starting), compared as the ratio of the medians (target: no page costs
   more than 2x its twin); the time the client waited (loopback, the whole body read) is
   compared too, and each page is also set against the closest single API call. A page
   that answers 404 in the checkout served is reported as "page missing"; one without
   ``Server-Timing`` (a checkout before it) is compared by the client's times only.
2. **a click's delay.** Two people sign up through ``/signup``, each in a browser context
   of their own (Playwright, Debian's chromium), and play one-hand games of classic with
   ``house:random`` at tables with a move time of an hour (the move timer never plays),
   watched by a visitor in a third context. When a person's page offers a card to play (or
   a trump to call) and the three pages show the same version, the benchmark clicks a
   random one and measures, on the browsers' clock (``Date.now()``), the time from the
   click to the moment each page's table (``main[data-game-id]``) carries a newer
   ``data-version``, and to that page's next frame: the other person's page and the
   spectator's (target p95 <= 250 ms), and the clicker's own. web/static/web/table.js
   long-polls the game's events, then fetches the table: where the time went is taken
   from the pages' Resource Timing entries (the move's POST, the long poll's answer, the
   table's fetch, with the server's Server-Timing of each). Discards are made through the
   page too, not measured. At least ``--moves`` clicks, over several games.

``--code DIR`` serves another checkout (say a worktree with pages this one lacks) with this
checkout's packages. Needs PostgreSQL and Redis on 127.0.0.1, and chromium at
/usr/bin/chromium with the ``playwright`` package (the dev extras). About 5 minutes.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api_load import choose
from common import ROOT, free_port, percentile, service_platform, start_uvicorn

DB_NAME = "sergeant_bench_pages"
REDIS_URL = "redis://127.0.0.1:6379/11"
PASSWORD = "bench-password-1"
#: The profile's player and the other people of its games.
STAR = "star"
OPPONENTS = 150
#: Unmeasured rounds of the page phase first (pools, caches, lazy imports).
WARM_UP_ROUNDS = 20
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
#: The click tables' move time: the move timer never plays for anyone.
CLICK_MOVE_SECONDS = 3600


# --- The platform ------------------------------------------------------------------------


@contextmanager
def platform(code: Path, workers: int) -> Iterator[str]:
    """Service mode (common.service_platform) and uvicorn on loopback; yields its URL."""
    settings = {"RATE_LIMIT_PER_MINUTE": "1000000", "LOG_LEVEL": "WARNING"}
    with service_platform(DB_NAME, REDIS_URL, code=code, settings=settings) as env:
        port = free_port()
        server = start_uvicorn(
            env, port, log_name="bench-pages-uvicorn.log", workers=workers, code=code
        )
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)


def progress(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


# --- Seeding, through the services -------------------------------------------------------


@contextmanager
def quick_passwords() -> Iterator[None]:
    """Seeded accounts never log in: their passwords are hashed cheaply (Django's default
    hasher is slow on purpose, and the seeding makes many accounts)."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


def play_out(game_id: int, rng: random.Random) -> None:
    """Every seat plays random legal actions, through the games services, to the end."""
    from games import play, selectors
    from games.models import Game

    game = Game.objects.get(pk=game_id)
    while game.status != Game.Status.FINISHED:
        seat = game.to_act[0]
        view = selectors.game_view(game, game.engine(), seat)
        action = choose(view, rng)
        after = play.act_for_seat(game_id, seat=seat, action=action, expected_version=game.version)
        game = after if after is not None else Game.objects.get(pk=game_id)


def new_game(seated: list[Any], rules: Any, move_seconds: int) -> int:
    """A started game with ``seated`` (people) in seat order."""
    from games import tables
    from games.models import Game

    table = tables.create_table(
        seated[0], rules=rules, rated=True, move_seconds=move_seconds, seat=None
    )
    for seat, person in enumerate(seated):
        tables.join_table(person, table_id=table.pk, seat=seat)
    return int(Game.objects.get(table=table).pk)


def play_share(task: tuple[int, int, int, list[int]]) -> int:
    """``count`` games of the star against two of the others, in a process of its own."""
    count, seed_, star_id, other_ids = task
    from accounts.models import Player

    star = Player.objects.get(pk=star_id)
    others = list(Player.objects.filter(pk__in=other_ids).order_by("pk"))
    rng = random.Random(seed_)
    one_hand = {"preset": "classic", "max_hands": 1}
    for number in range(count):
        play_out(new_game([star, *rng.sample(others, 2)], one_hand, 600), rng)
        if number % 100 == 99:
            progress(f"  {number + 1} of {count} games played (process {seed_})")
    return count


def seed(games: int, jobs: int) -> dict[str, Any]:
    """The data the pages read; returns what the pairs need (the finished tournament)."""
    from django.db import connections

    from accounts.services import create_person
    from games import tables
    from ratings.models import RatingChange
    from tournaments.models import Tournament
    from tournaments.services import entries, running, setup

    started = time.monotonic()
    with quick_passwords():
        star = create_person(STAR, password=PASSWORD)
        others = [create_person(f"person{i}", password=PASSWORD) for i in range(OPPONENTS)]
    organiser = others[0]

    # The star's games, in ``jobs`` processes: a move waits mostly on PostgreSQL, so a few
    # processes seed faster than one. Each opens its own connections.
    connections.close_all()
    connections["default"].close_pool()
    shares = [games // jobs + (i < games % jobs) for i in range(jobs)]
    other_ids = [person.pk for person in others]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        playing = pool.map_async(
            play_share, [(count, i, star.pk, other_ids) for i, count in enumerate(shares)]
        )
        # Meanwhile the worker plays a swiss of house bots to its end.
        bots = setup.create_tournament(
            organiser,
            values={
                "name": "Benchmark swiss of house bots",
                "rules": "classic",
                "format": "swiss",
                "rounds": 5,
                "hands_per_game": 1,
                "move_seconds": 60,
            },
        )
        for _ in range(30):
            entries.add_entrant(organiser, tournament_id=bots.pk, username="house:random")
        running.start(organiser, tournament_id=bots.pk)
        # What the start page lists besides: open tables, games in play, tournaments.
        for person in others[10:18]:
            tables.create_table(
                person, rules="classic", rated=True, move_seconds=CLICK_MOVE_SECONDS, seat=0
            )
        for i in range(8):
            new_game(others[20 + 3 * i : 23 + 3 * i], "classic", CLICK_MOVE_SECONDS)
        club_night = setup.create_tournament(
            organiser,
            values={
                "name": "Benchmark club night",
                "rules": "classic",
                "format": "swiss",
                "rounds": 3,
                "move_seconds": CLICK_MOVE_SECONDS,
            },
        )
        for person in others[50:56]:  # people enter when they are asked: they accept
            entries.add_entrant(organiser, tournament_id=club_night.pk, username=person.username)
            entries.register(person, tournament_id=club_night.pk)
        running.start(organiser, tournament_id=club_night.pk)
        upcoming = setup.create_tournament(
            organiser,
            values={
                "name": "Benchmark next week",
                "rules": "classic",
                "format": "swiss",
                "rounds": 4,
            },
        )
        for person in others[60:65]:
            entries.add_entrant(organiser, tournament_id=upcoming.pk, username=person.username)
            entries.register(person, tournament_id=upcoming.pk)
        played = sum(playing.get())
    progress(f"  {played} games played in {time.monotonic() - started:.0f} s")

    # Every game rated by the worker, the bots' tournament over.
    deadline = time.monotonic() + 600
    while True:
        rated = RatingChange.objects.filter(player=star).count()
        bots.refresh_from_db()
        if rated >= games and bots.status == Tournament.Status.FINISHED:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"after 10 minutes: {rated} of star's games rated, the swiss {bots.status}"
            )
        time.sleep(0.5)
    # The tables as autovacuum keeps a live site's (it is off on this machine's PostgreSQL):
    # each move rewrote its game's row, and the seeding left many dead rows in games_game,
    # which the profile's counts walked through, and no planner statistics.
    with connections["default"].cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    progress(f"seeded in {time.monotonic() - started:.0f} s")
    return {"tournament": bots.pk}


# --- Pages against their API twins ---------------------------------------------------------


@dataclass
class Pair:
    """A page, the API calls that return the same data (its twin), the closest single one."""

    page: str
    twin: list[str]
    closest: str
    note: str = ""
    #: A paginated call of the twin whose every page the page shows (the profile's chart):
    #: its other pages are fetched too, and a second ratio given with them in the twin.
    every_page: str | None = None
    rest: list[str] = field(default_factory=list)  # those other pages
    missing: bool = False
    page_ms: list[float] = field(default_factory=list)  # Server-Timing
    page_client_ms: list[float] = field(default_factory=list)
    twin_ms: list[float] = field(default_factory=list)  # each round's sum
    twin_client_ms: list[float] = field(default_factory=list)
    calls_ms: dict[str, list[float]] = field(default_factory=dict)
    calls_client_ms: dict[str, list[float]] = field(default_factory=dict)
    whole_ms: list[float] = field(default_factory=list)  # the twin and ``rest``
    page_bytes: int = 0
    twin_bytes: int = 0


def pairs(tournament_id: int) -> list[Pair]:
    profile = f"/api/v1/players/{STAR}"
    tournament = f"/api/v1/tournaments/{tournament_id}"
    return [
        Pair(
            "/",
            [
                "/api/v1/tables?status=open",
                "/api/v1/tables?status=playing",
                "/api/v1/ratings?pool=classic",
                "/api/v1/tournaments?status=running",
                "/api/v1/tournaments?status=registering",
            ],
            "/api/v1/ratings?pool=classic",
            "the page shows 8 of each list; each API call returns a page of 50",
        ),
        Pair(
            "/leaderboard",
            ["/api/v1/ratings?pool=classic", "/api/v1/ratings?pool=classic&list=provisional"],
            "/api/v1/ratings?pool=classic",
            "ranked and provisional players, as the page shows both",
        ),
        Pair(
            f"/players/{STAR}",
            [profile, f"{profile}/games", f"{profile}/ratings?pool=classic"],
            f"{profile}/games",
            "one page of each; the page's chart has every rated game (the API: 50 a page)",
            every_page=f"{profile}/ratings?pool=classic",
        ),
        Pair(
            f"/tournaments/{tournament_id}",
            [tournament],
            tournament,
            "30 house bots, 5 rounds",
        ),
    ]


class Browser:
    """One keep-alive connection, sending back the cookies it was given (a visitor's
    browser: the pages' CSRF cookie)."""

    def __init__(self, base_url: str) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)
        self.cookies: dict[str, str] = {}

    def get(self, path: str) -> tuple[int, bytes, float, float]:
        """(status, body, ms the client waited, ms the server says it spent)."""
        headers = {"Accept": "text/html,application/json"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        started = time.perf_counter()
        self.connection.request("GET", path, headers=headers)
        response = self.connection.getresponse()
        body = response.read()
        waited = (time.perf_counter() - started) * 1000
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        timing = response.headers.get("Server-Timing", "")
        server = float(timing.partition("dur=")[2]) if "dur=" in timing else float("nan")
        return response.status, body, waited, server


def measure_pages(base_url: str, pairs_: list[Pair], rounds: int) -> None:
    browser = Browser(base_url)
    for pair in pairs_:
        status, body, _, _ = browser.get(pair.page)
        if status == 404:
            pair.missing = True
            continue
        if status != 200:
            raise RuntimeError(f"{pair.page} answered {status}")
        pair.page_bytes = len(body)
        for path in pair.twin:
            status, body, _, _ = browser.get(path)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}")
            pair.twin_bytes += len(body)
            if path == pair.every_page:
                first = json.loads(body)
                pages = math.ceil(first["count"] / max(1, len(first["results"])))
                pair.rest = [f"{path}&page={number}" for number in range(2, pages + 1)]
    present = [p for p in pairs_ if not p.missing]
    for number in range(-WARM_UP_ROUNDS, rounds):
        for pair in present:
            if number % 2:  # every other round the twin goes first
                twin = [browser.get(path) for path in pair.twin]
                rest = [browser.get(path) for path in pair.rest]
                page = browser.get(pair.page)
            else:
                page = browser.get(pair.page)
                twin = [browser.get(path) for path in pair.twin]
                rest = [browser.get(path) for path in pair.rest]
            if number < 0:
                continue
            if rest:
                pair.whole_ms.append(sum(call[3] for call in twin + rest))
            pair.page_client_ms.append(page[2])
            pair.page_ms.append(page[3])
            pair.twin_client_ms.append(sum(t[2] for t in twin))
            pair.twin_ms.append(sum(t[3] for t in twin))
            for path, call in zip(pair.twin, twin, strict=True):
                pair.calls_client_ms.setdefault(path, []).append(call[2])
                pair.calls_ms.setdefault(path, []).append(call[3])


# --- A click's delay --------------------------------------------------------------------------

#: Each page records [data-version, Date.now(), Date.now() at the next frame] whenever its
#: table shows a new version, and keeps its requests' timings (the Resource Timing API).
WATCH_VERSIONS = """
window.__versions = [];
performance.setResourceTimingBufferSize(100000);
new MutationObserver(() => {
  const main = document.querySelector("main[data-game-id]");
  if (!main) return;
  const version = Number(main.dataset.version);
  const seen = window.__versions;
  if (seen.length && seen[seen.length - 1][0] === version) return;
  const entry = [version, Date.now(), null];
  seen.push(entry);
  requestAnimationFrame(() => {
    entry[2] = Date.now();
    document.documentElement.dataset.benchFrame = version;  // wakes a "mutation" wait
  });
}).observe(document, {subtree: true, childList: true, attributes: true,
                      attributeFilter: ["data-version"]});
"""

#: Where a click's delay went on a page: its POST of the move (the clicker's), the long
#: poll that told it of the move and the table it fetched then (the others'), as
#: {start, end, server} in Date.now() terms (Resource Timing; the server's time from its
#: Server-Timing header).
REQUESTS = """([at, shown]) => {
  const origin = performance.timeOrigin;
  const entries = performance.getEntriesByType("resource").map((e) => ({
    path: new URL(e.name).pathname, start: origin + e.startTime, end: origin + e.responseEnd,
    server: e.serverTiming.find((t) => t.name === "app")?.duration ?? null}));
  const post = entries.find((e) => e.path.endsWith("/actions") && e.start >= at - 1) ?? null;
  const tables = entries.filter(
    (e) => e.path.endsWith("/table") && e.start >= at - 1 && e.end <= shown + 1);
  const table = tables[tables.length - 1] ?? null;
  const polls = entries.filter((e) => e.path.endsWith("/events") && table
    && e.end >= at - 1 && e.end <= table.start + 1);
  return {post, table, poll: polls[polls.length - 1] ?? null};
}"""

#: What a page offers its viewer now.
STATE = """() => {
  const main = document.querySelector("main[data-game-id]");
  if (!main) return null;
  const click = main.querySelectorAll(
    '.hand button[data-send]:not([disabled]), button[data-suit][data-send]:not([disabled])');
  const other = main.querySelectorAll(
    'button[data-send]:not([disabled]):not(.card):not([data-suit])');
  return {version: Number(main.dataset.version), status: main.dataset.status,
          click: click.length, choice: main.querySelector(".choice") !== null,
          other: other.length};
}"""

#: Clicks a random card (or trump) the viewer may play; returns (Date.now(), version).
CLICK = """() => {
  const main = document.querySelector("main[data-game-id]");
  const buttons = [...main.querySelectorAll(
    '.hand button[data-send]:not([disabled]), button[data-suit][data-send]:not([disabled])')];
  const button = buttons[Math.floor(Math.random() * buttons.length)];
  const version = Number(main.dataset.version);
  const at = Date.now();
  button.click();
  return [at, version];
}"""

#: A choice of cards (a discard, a give): the first cards, the first receiving seat.
CHOOSE = """() => {
  const row = document.querySelector("main .choice");
  let count = Number(row.dataset.count);
  const to = row.querySelector("button[data-to]");
  if (to) { to.click(); count = Number(to.dataset.count); }
  const picks = [...document.querySelectorAll("main .hand button.pick")].slice(0, count);
  picks.forEach((button) => button.click());
  row.querySelector('[data-action="confirm"]').click();
}"""

#: Anything else the viewer may send (none in classic): the first.
OTHER = """() => document.querySelector(
  'main button[data-send]:not([disabled]):not(.card):not([data-suit])').click()"""

#: [the version, Date.now() when the page's table showed it, Date.now() at its next frame]
#: for the first version after ``version``.
SHOWN_AFTER = "version => window.__versions.find(([v, , frame]) => v > version && frame)"

#: Waits until SHOWN_AFTER has an answer, checking after each change of the page's DOM (no
#: timer: the wait costs the page nothing until then); false after 30 s.
WAIT_SHOWN = """async (version) => {
  const shown = () => window.__versions.find(([v, , frame]) => v > version && frame);
  if (shown()) return true;
  return await new Promise((resolve) => {
    const timer = setTimeout(() => { observer.disconnect(); resolve(false); }, 30000);
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve(true);
    });
    observer.observe(document, {subtree: true, childList: true, attributes: true});
  });
}"""


@dataclass
class Delays:
    """One page's delays after each measured click, in ms from the click."""

    shown: list[float] = field(default_factory=list)  # the table in the page (DOM)
    frame: list[float] = field(default_factory=list)  # the next frame after it
    posted: list[float] = field(default_factory=list)  # the move's POST answered (clicker)
    post_server: list[float] = field(default_factory=list)
    told: list[float] = field(default_factory=list)  # the long poll answered
    fetch: list[float] = field(default_factory=list)  # the table's fetch, start to end
    fetch_server: list[float] = field(default_factory=list)
    swap: list[float] = field(default_factory=list)  # fetched to shown

    def add(self, at: float, shown: list[float], requests: dict[str, Any]) -> None:
        self.shown.append(shown[0] - at)
        self.frame.append(shown[1] - at)
        post, table, poll = requests["post"], requests["table"], requests["poll"]
        if post:
            self.posted.append(post["end"] - at)
            self.post_server.append(post["server"])
        if poll:
            self.told.append(poll["end"] - at)
        if table:
            self.fetch.append(table["end"] - table["start"])
            self.fetch_server.append(table["server"])
            self.swap.append(shown[0] - table["end"])


@dataclass
class Clicks:
    other_person: Delays = field(default_factory=Delays)
    spectator: Delays = field(default_factory=Delays)
    own: Delays = field(default_factory=Delays)
    games: int = 0
    unmeasured: int = 0


def sign_up(page: Any, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/signup")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password"]', PASSWORD)
    page.click('main form button[type="submit"]')
    page.wait_for_load_state()
    if page.url.rstrip("/").endswith("/signup"):
        raise RuntimeError(f"could not sign up {username}")


def api(page: Any, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """An API call from the page's script (session cookie and CSRF token)."""
    result: dict[str, Any] = page.evaluate(
        """async ([method, path, body]) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const response = await fetch(path, {method, credentials: "same-origin",
            headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
            body: JSON.stringify(body)});
          return {status: response.status, body: await response.json()};
        }""",
        [method, path, body],
    )
    if result["status"] >= 300:
        raise RuntimeError(f"{method} {path}: {result}")
    return dict(result["body"])


def click_table(person_a: Any, person_b: Any) -> int:
    """A one-hand classic table: the two people and house:random; returns its game."""
    rules = {"preset": "classic", "max_hands": 1}
    options = {"rules": rules, "move_seconds": CLICK_MOVE_SECONDS, "seat": 0}
    table = api(person_a, "POST", "/api/v1/tables", options)
    api(person_b, "POST", f"/api/v1/tables/{table['id']}/join", {"seat": 1})
    table = api(
        person_a, "POST", f"/api/v1/tables/{table['id']}/bots", {"bot": "house:random", "seat": 2}
    )
    return int(table["game"])


def settled(pages: list[Any], timeout: float = 60) -> tuple[int | None, dict[str, Any]]:
    """Waits until every page shows the same version and one of the people may act (or the
    game is over); returns (the acting page's index or None at the end, its state)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = [page.evaluate(STATE) for page in pages]
        if all(states) and len({s["version"] for s in states}) == 1:
            if all(s["status"] == "finished" for s in states):
                return None, states[0]
            for index in (0, 1):
                state = states[index]
                if state["click"] or state["choice"] or state["other"]:
                    return index, state
        time.sleep(0.01)
    raise RuntimeError(f"the pages did not settle: {states}")


def wait_shown(pages: list[Any], version: int) -> None:
    for page in pages:
        if not page.evaluate(WAIT_SHOWN, version):
            raise RuntimeError(f"{page.url} did not show a version after {version} in 30 s")


def measure_clicks(base_url: str, moves: int) -> Clicks:
    from playwright.sync_api import sync_playwright

    clicks = Clicks()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        contexts = [browser.new_context() for _ in range(3)]
        for context in contexts:
            context.add_init_script(WATCH_VERSIONS)
        person_a, person_b, spectator = (context.new_page() for context in contexts)
        sign_up(person_a, base_url, "clicker-a")
        sign_up(person_b, base_url, "clicker-b")
        while len(clicks.other_person.shown) < moves:
            game_id = click_table(person_a, person_b)
            pages = [person_a, person_b, spectator]
            for page in pages:
                page.goto(f"{base_url}/games/{game_id}")
            clicks.games += 1
            while True:
                index, state = settled(pages)
                if index is None:
                    break
                actor = pages[index]
                if not state["click"]:
                    actor.evaluate(CHOOSE if state["choice"] else OTHER)
                    clicks.unmeasured += 1
                    wait_shown(pages, state["version"])
                    continue
                at, version = actor.evaluate(CLICK)
                wait_shown(pages, version)
                roles = {index: clicks.own, 1 - index: clicks.other_person, 2: clicks.spectator}
                for number, page in enumerate(pages):
                    shown = page.evaluate(SHOWN_AFTER, version)
                    requests = page.evaluate(REQUESTS, [at, shown[1]])
                    roles[number].add(at, shown[1:], requests)
            progress(f"  game {clicks.games}: {len(clicks.other_person.shown)} clicks measured")
        browser.close()
    return clicks


# --- The report -----------------------------------------------------------------------------


def ms(values: list[float], q: float) -> float:
    return percentile(values, q) if values else float("nan")


def report_pages(pairs_: list[Pair], rounds: int) -> None:
    print(
        f"pages against their API twins: a visitor, {rounds} rounds (page and twin "
        "alternately first), one keep-alive connection; ms"
    )
    header = (
        f"  {'page':26} {'p50':>6} {'p95':>6}   {'twin p50':>8} {'p95':>6}   {'ratio':>5}   "
        f"{'closest p50':>11} {'ratio':>5}   target <= 2x"
    )
    for title, page_of, twin_of, call_of in (
        ("server time (Server-Timing: in Django)", "page_ms", "twin_ms", "calls_ms"),
        (
            "client time (loopback, to the whole body)",
            "page_client_ms",
            "twin_client_ms",
            "calls_client_ms",
        ),
    ):
        print(f"{title}:")
        print(header)
        for pair in pairs_:
            if pair.missing:
                print(f"  {pair.page:26} page missing (404 in the checkout served)")
                continue
            page_ms, twin_ms = getattr(pair, page_of), getattr(pair, twin_of)
            if any(math.isnan(value) for value in page_ms):
                print(f"  {pair.page:26} no Server-Timing on the page (the checkout served)")
                continue
            page, twin = statistics.median(page_ms), statistics.median(twin_ms)
            closest = statistics.median(getattr(pair, call_of)[pair.closest])
            ratio = page / twin
            print(
                f"  {pair.page:26} {page:6.1f} {ms(page_ms, 0.95):6.1f}   {twin:8.1f} "
                f"{ms(twin_ms, 0.95):6.1f}   {ratio:5.2f}   {closest:11.1f} "
                f"{page / closest:5.2f}   {'met' if ratio <= 2 else 'NOT met'}"
            )
    print("the twins (server p50 of each call, ms), and the bytes of the page / the twin:")
    for pair in pairs_:
        if pair.missing:
            continue
        calls = " + ".join(
            f"{path} {statistics.median(pair.calls_ms[path]):.1f}" for path in pair.twin
        )
        print(f"  {pair.page} ({pair.page_bytes:,} / {pair.twin_bytes:,} bytes): {calls}")
        print(f"    {pair.note}; closest single call: {pair.closest}")
        if pair.whole_ms:
            whole = statistics.median(pair.whole_ms)
            print(
                f"    with all {len(pair.rest) + 1} pages of {pair.every_page} in the twin: "
                f"p50 {whole:.1f} ms, ratio {statistics.median(pair.page_ms) / whole:.2f}"
            )


def report_clicks(clicks: Clicks) -> None:
    count = len(clicks.other_person.shown)
    print(
        f"a click's delay until the other pages show it: {count} clicks (cards and trumps) "
        f"in {clicks.games} one-hand games of classic with house:random, {clicks.unmeasured} "
        "discards not measured; ms from the click"
    )
    print(f"  {'page':20} {'p50':>5} {'p95':>5} {'max':>5}   {'frame p50':>9} {'p95':>5}   target")
    for name, delays, target in (
        ("the other person's", clicks.other_person, True),
        ("the spectator's", clicks.spectator, True),
        ("the clicker's own", clicks.own, False),
    ):
        p95 = ms(delays.shown, 0.95)
        verdict = f"p95 <= 250 ms: {'met' if p95 <= 250 else 'NOT met'}" if target else ""
        print(
            f"  {name:20} {statistics.median(delays.shown):5.0f} {p95:5.0f} "
            f"{max(delays.shown):5.0f}   {statistics.median(delays.frame):9.0f} "
            f"{ms(delays.frame, 0.95):5.0f}   {verdict}"
        )
    print("  where it went (p50 / p95, ms):")
    own = clicks.own
    print(
        f"    the move's POST answered (clicker)    {median_p95(own.posted)}   "
        f"of which in Django {median_p95(own.post_server)}"
    )
    for name, delays in (("other person", clicks.other_person), ("spectator", clicks.spectator)):
        print(
            f"    {name + ':':13} long poll answered {median_p95(delays.told)}   table fetched in "
            f"{median_p95(delays.fetch)} (Django {median_p95(delays.fetch_server)})   "
            f"parsed and swapped {median_p95(delays.swap)}"
        )
    print(
        f"    clicker:      table fetched in {median_p95(own.fetch)} "
        f"(Django {median_p95(own.fetch_server)})   parsed and swapped {median_p95(own.swap)}"
    )


def median_p95(values: list[float]) -> str:
    if not values:
        return "  -- /   --"
    return f"{statistics.median(values):4.0f} / {ms(values, 0.95):4.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="finished games of the profile")
    parser.add_argument("--rounds", type=int, default=200, help="measured rounds of the pages")
    parser.add_argument("--moves", type=int, default=200, help="clicks measured (at least)")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn's worker processes")
    parser.add_argument("--jobs", type=int, default=3, help="processes playing the seed games")
    parser.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        help="serve another checkout of the platform (say one with more pages)",
    )
    parser.add_argument("--skip-pages", action="store_true", help="no page/API comparison")
    parser.add_argument("--skip-clicks", action="store_true", help="no click delays")
    args = parser.parse_args()

    code = args.code.resolve()
    load_before = os.getloadavg()
    with platform(code, args.workers) as base_url:
        progress(f"seeding ({args.games} games of {STAR})")
        seeded = seed(args.games, args.jobs)
        pairs_ = pairs(seeded["tournament"])
        if not args.skip_pages:
            progress("pages and their twins")
            measure_pages(base_url, pairs_, args.rounds)
        clicks = None
        if not args.skip_clicks:
            progress("clicks")
            clicks = measure_clicks(base_url, args.moves)
    print(f"code: {code}")
    print(
        f"server: uvicorn --workers {args.workers}, PostgreSQL, Redis, a Celery worker; "
        f"{STAR} has {args.games} finished rated games"
    )
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before[0]:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end (1 minute)"
    )
    if not args.skip_pages:
        report_pages(pairs_, args.rounds)
    if clicks is not None:
        report_clicks(clicks)


if __name__ == "__main__":
    main()
