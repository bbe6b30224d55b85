"""Benchmark: 30 bot accounts in the arena, playing continuously, on PostgreSQL + Redis with
real Celery processes and uvicorn.

    .venv/bin/python benchmarks/arena_run.py [--bots 30] [--minutes 60] [--hands 0]
        [--move-seconds 10]

Creates a fresh database (``sergeant_bench_arena``), Redis db 12, a Celery worker (prefork,
2 processes), beat, the move timer and uvicorn (one process) on loopback. An owner makes
``--bots`` bot accounts; each is played by a client thread in this process that reads its
``GET /stream`` and answers every ``your_turn`` at once with a cheap legal action (a third of
the bots the first legal action, a third the last, a third a random one, so that their
ratings can part). Each bot joins the classic arena, and the server seats them game after
game for ``--minutes``. Prints, every minute and at the end: the arena games completed (and
per hour), games per bot, timeouts, bots taken out, and the spread of the bots' ratings in
the pool (min, max and standard deviation of mu and of the ordinal). ``--hands 0`` plays
whole classic games (to a big hand); ``--hands N`` ends each game after N hands.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import threading
import time
from typing import Any

import httpx
from common import ROOT, free_port, service_platform, start_uvicorn, stop

DB_NAME = "sergeant_bench_arena"
REDIS_URL = "redis://127.0.0.1:6379/12"


def cheap_action(view: dict[str, Any], style: str, rng: random.Random) -> dict[str, Any]:
    """A legal action from the view's ``legal_actions``: the first, the last or a random one
    (the cards of a discard or give: the first, the last or random ones of the hand)."""
    options = view["legal_actions"]
    option = {"first": options[0], "last": options[-1]}.get(style) or rng.choice(options)
    if option["type"] in ("discard", "give"):
        hand, count = view["your_hand"], option["count"]
        cards = {"first": hand[:count], "last": hand[-count:]}.get(style) or rng.sample(hand, count)
        action = {"type": option["type"], "cards": cards}
        if option["type"] == "give":
            action["to"] = option["to"]
        return action
    return dict(option)


class BotClient(threading.Thread):
    """One bot: its stream read in this thread, its turns answered at once."""

    def __init__(self, url: str, token: str, style: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.url, self.style, self.rng = url, style, random.Random(seed)
        self.headers = {"Authorization": f"Token {token}"}
        self.http = httpx.Client(base_url=url, timeout=httpx.Timeout(30, read=15))
        self.stopping = threading.Event()
        self.connected = threading.Event()
        self.actions = self.refused = self.reconnects = 0

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                with self.http.stream("GET", "/api/v1/stream", headers=self.headers) as stream:
                    self.connected.set()
                    for raw in stream.iter_lines():
                        if self.stopping.is_set():
                            return
                        if raw:
                            self.read(json.loads(raw))
            except httpx.HTTPError:
                self.reconnects += 1
                time.sleep(0.2)

    def read(self, line: dict[str, Any]) -> None:
        if line["type"] != "your_turn" or not line["view"]["legal_actions"]:
            return
        action = cheap_action(line["view"], self.style, self.rng)
        action["expected_version"] = line["version"]
        response = self.http.post(
            f"/api/v1/games/{line['game']}/actions", json=action, headers=self.headers
        )
        self.actions += 1
        self.refused += response.status_code != 200


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    deviation = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"min {min(values):.2f}, max {max(values):.2f}, stdev {deviation:.2f}"


def main() -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--hands", type=int, default=0, help="0: whole classic games")
    parser.add_argument("--move-seconds", type=int, default=10)
    args = parser.parse_args()

    with service_platform(DB_NAME, REDIS_URL) as env:
        from accounts.services import register_player
        from arena.models import Arena, ArenaEntry, ArenaGame
        from bots.services import create_bot_account
        from games.models import Game, GameEvent, GamePlayer
        from ratings.models import Rating

        port = free_port()
        server = start_uvicorn(
            {**env, "PYTHONPATH": str(ROOT)}, port, log_name=f"{DB_NAME}-uvicorn.log"
        )
        url = f"http://127.0.0.1:{port}"
        clients: list[BotClient] = []
        try:
            owner, _ = register_player("arena-owner", password="bench-password-1")
            rules: dict[str, Any] = {"preset": "classic"}
            if args.hands:
                rules["max_hands"] = args.hands
            Arena.objects.create(
                pool="classic", rules=rules, move_seconds=args.move_seconds, wait_seconds=20
            )
            styles = ("first", "last", "random")
            for i in range(args.bots):
                _, key = create_bot_account(
                    owner, username=f"arena-bot-{i:02d}", mode="poll", webhook_url=""
                )
                clients.append(BotClient(url, key, styles[i % 3], seed=i))
            for client in clients:
                client.start()
                assert client.connected.wait(30), "a stream did not open"
            started = time.monotonic()
            for client in clients:
                response = client.http.post(
                    "/api/v1/arena/join", json={"pool": "classic"}, headers=client.headers
                )
                assert response.status_code == 200, response.text
            print(
                f"{args.bots} bots joined the classic arena ({rules}, "
                f"{args.move_seconds} s a move); running {args.minutes:g} min",
                flush=True,
            )
            end = started + args.minutes * 60
            next_report = started + 60
            while time.monotonic() < end:
                time.sleep(min(5.0, max(0.0, end - time.monotonic())))
                if time.monotonic() >= next_report:
                    next_report += 60
                    done = Game.objects.filter(
                        pk__in=ArenaGame.objects.values("game_id"), status=Game.Status.FINISHED
                    ).count()
                    minutes = (time.monotonic() - started) / 60
                    print(
                        f"  {minutes:5.1f} min: {done} games finished "
                        f"({done / minutes * 60:.0f}/h)",
                        flush=True,
                    )
            elapsed = time.monotonic() - started
            arena_games = ArenaGame.objects.values("game_id")
            finished = Game.objects.filter(pk__in=arena_games, status=Game.Status.FINISHED)
            done = finished.count()
            moves = sum(finished.values_list("version", flat=True))
            timeouts = GameEvent.objects.filter(game_id__in=arena_games, type="timeout").count()
            fills = (
                GamePlayer.objects.filter(game__in=finished, player__username__startswith="house:")
                .values("game_id")
                .distinct()
                .count()
            )
            entries = list(ArenaEntry.objects.select_related("player"))
            per_bot = [e.games for e in entries]
            removed = [e.player.username for e in entries if e.removed_reason == "timeouts"]
            time.sleep(3)  # the last games' ratings (tasks on the worker)
            rows = list(
                Rating.objects.filter(pool="classic", player__username__startswith="arena-bot-")
            )
            mus = [r.mu for r in rows]
            ordinals = [r.mu - 3 * r.sigma for r in rows]
            hours = elapsed / 3600
            print(
                f"\n{args.bots} bots, {elapsed / 60:.1f} min: {done} arena games finished "
                f"({done / hours:.0f} games/hour), {moves} moves ({moves / elapsed:.1f}/s), "
                f"{fills} with house bots, {timeouts} timeouts, "
                f"{len(removed)} bots taken out{(': ' + ', '.join(removed)) if removed else ''}"
            )
            print(
                f"games per bot: min {min(per_bot)}, max {max(per_bot)}, "
                f"mean {statistics.mean(per_bot):.1f}"
            )
            print(f"ratings of {len(rows)} bots in classic: mu {spread(mus)}")
            print(f"  ordinal (mu - 3 sigma) {spread(ordinals)}")
            by_style: dict[str, list[float]] = {}
            for row in rows:
                number = int(row.player.username.rsplit("-", 1)[1])
                by_style.setdefault(styles[number % 3], []).append(row.mu)
            print(
                "  mean mu by style: "
                + ", ".join(f"{s} {statistics.mean(v):.2f}" for s, v in sorted(by_style.items()))
            )
            refused = sum(c.refused for c in clients)
            print(
                f"client actions: {sum(c.actions for c in clients)} "
                f"({refused} refused), stream reconnects {sum(c.reconnects for c in clients)}"
            )
        finally:
            for client in clients:
                client.stopping.set()
            stop(server)


if __name__ == "__main__":
    main()
