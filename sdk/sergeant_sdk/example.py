"""An example bot: plays legal moves on a Sergeant Major server through the SDK.

    python -m sergeant_sdk.example --server URL --token TOKEN
        [--seek | --arena | --challenge USER [USER ...]] [--games N] [--accept-challenges]

Where its games come from:

* by default, whatever it is seated at (a table its owner seated it at, a tournament round,
  a challenge it accepted) as the stream announces them;
* ``--seek``: it joins the quick-play queue, and again after each game (and when its seek
  ran out of time unseated);
* ``--arena``: it enters the bot arena of a pool (``--pool``), which seats it game after
  game, and leaves it at the end;
* ``--challenge USER ...``: it challenges these players (``house:...`` may fill a seat), and
  again after each game.

For every ``your_turn`` it picks an action from the view's ``legal_actions`` (the lowest card
it may play, the first call, the lowest cards for a discard or a give) and submits it with
``expected_version`` and an idempotency key. After each game it prints the result and the
rating change (``GET /players/{username}/games``). It uses only ``sergeant_sdk`` (and so only
``httpx``): copy this file to start your own bot, and replace :func:`choose`.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import time
from collections.abc import Mapping, Sequence
from typing import Any

from sergeant_sdk.client import ApiError, Client

log = logging.getLogger("sergeant.example")

RANKS = "23456789TJQKA"
SUITS = "CDHS"
#: How long to wait for a rated game's rating change (ratings are updated by a task).
RATING_WAIT = 15.0
#: How often, at most, to look for the rating changes still awaited while playing.
REPORT_EVERY = 1.0


def card_order(card: str) -> tuple[int, int]:
    """Low cards first: by rank, then suit (C D H S)."""
    return RANKS.index(card[0]), SUITS.index(card[1])


def choose(view: Mapping[str, Any]) -> dict[str, Any]:
    """This bot's decision: replace it with your own strategy."""
    legal: Sequence[Mapping[str, Any]] = view["legal_actions"]
    plays = [a for a in legal if a["type"] == "play"]
    if plays:
        return dict(min(plays, key=lambda a: card_order(a["card"])))
    action = dict(legal[0])
    count = action.pop("count", None)
    if count is not None:  # discard or give: name the cards, here the lowest ones
        action["cards"] = sorted(view["your_hand"], key=card_order)[:count]
    return action


def history_entry(client: Client, username: str, game_id: int) -> dict[str, Any] | None:
    """The player's entry of the game in its match history (rank, score, result and
    ``rating_change``), or None if it is not there (yet)."""
    page = client.player_games(username)
    return next((e for e in page["results"] if e["game"] == game_id), None)


def settled(entry: Mapping[str, Any] | None) -> bool:
    """Whether an entry is complete: a rated game's rating change comes just after the game
    (the platform rates it in a task)."""
    return entry is not None and (not entry["rated"] or bool(entry["rating_change"]))


def describe(game_id: int, entry: Mapping[str, Any] | None) -> str:
    """One line for a finished game: rank, score, result and rating change."""
    if entry is None:
        return f"game {game_id}: finished"
    seats = len(entry["seats"])
    text = (
        f"game {game_id}: rank {entry['rank']} of {seats}, score {entry['score']} "
        f"({entry['result']})"
    )
    change = entry.get("rating_change")
    if not entry["rated"]:
        return text + "; not rated"
    if not change:
        return text + "; rating change not in yet"
    return (
        f"{text}; rating {change['ordinal_before']:.2f} -> {change['ordinal']:.2f} "
        f"({change['ordinal_change']:+.2f}, pool {change['pool']})"
    )


class Bot:
    """Plays from the stream, and finds the next game the way it was asked to."""

    def __init__(self, client: Client, args: argparse.Namespace) -> None:
        self.client = client
        self.args = args
        self.username = ""
        self.finished: set[int] = set()
        self.expired_seeks: set[int] = set()
        self.seen_turns: set[tuple[int, int]] = set()
        self.actions = 0
        #: Finished games not reported yet: their deadline for the rating change.
        self.unreported: dict[int, float] = {}
        self.last_report = 0.0

    def find_game(self) -> None:
        """Ask for one more game (seek or challenge; the arena seats it by itself)."""
        a = self.args
        if a.seek:
            seek = self.client.seek(
                a.rules, a.rated, a.move_seconds, house_bots_after=a.house_bots_after
            )
            log.info("seeking a game (seek %s)", seek.get("id"))
        elif a.challenge:
            made = self.client.challenge(a.challenge, a.rules, a.rated, a.move_seconds)
            log.info("challenged %s (challenge %s)", ", ".join(a.challenge), made.get("id"))

    def on_line(self, line: Mapping[str, Any]) -> bool:
        """Handle one stream line; True when the bot is done."""
        kind = line.get("type")
        if kind == "your_turn":
            self.play(line)
        elif kind == "game_start":
            log.info("game %s started", line.get("game"))
        elif kind == "game_finish":
            game_id = int(line["game"])
            if game_id in self.finished:
                return False  # a line may come twice
            self.finished.add(game_id)
            self.unreported[game_id] = time.monotonic() + self.args.rating_wait
            if self.args.games is not None and len(self.finished) >= self.args.games:
                return True
            self.find_game()
        elif kind == "challenge" and self.args.accept_challenges:
            challenge = line["challenge"]
            if challenge["from"] != self.username:
                try:
                    self.client.accept_challenge(int(challenge["id"]))
                except ApiError as error:  # e.g. withdrawn or expired meanwhile
                    log.info("could not accept challenge %s: %s", challenge["id"], error)
                else:
                    log.info("accepted challenge %s from %s", challenge["id"], challenge["from"])
        elif kind in ("challenge_declined", "challenge_canceled", "challenge_expired"):
            challenge = line["challenge"]
            log.info("challenge %s: %s", challenge["id"], kind.removeprefix("challenge_"))
            if self.args.challenge and challenge["from"] == self.username:
                self.find_game()  # challenge again
        elif kind == "seek_expired":
            seek_id = int(line["seek"]["id"])
            if seek_id in self.expired_seeks:
                return False  # a line may come twice
            self.expired_seeks.add(seek_id)
            log.info("seek %s expired unseated", seek_id)
            if self.args.seek:
                self.find_game()  # seek again
        elif kind in ("tournament_round", "tournament_invite"):
            log.info("%s: %s", kind, dict(line))
        return False

    def report(self, wait: bool = False) -> None:
        """Print the finished games whose outcome is complete, or whose wait for the rating
        change is over. Playing goes on meanwhile (a wait would cost other games' moves);
        ``wait``: at the end, wait for all of them."""
        while self.unreported:
            self.last_report = time.monotonic()
            for game_id, deadline in sorted(self.unreported.items()):
                entry = history_entry(self.client, self.username, game_id)
                if settled(entry) or time.monotonic() > deadline:
                    print(describe(game_id, entry), flush=True)
                    del self.unreported[game_id]
            if not wait:
                return
            if self.unreported:
                time.sleep(0.5)

    def play(self, turn: Mapping[str, Any]) -> None:
        key = (turn["game"], turn["version"])
        if key in self.seen_turns:
            return
        self.seen_turns.add(key)
        try:
            self.client.act(turn["game"], choose(turn["view"]), expected_version=turn["version"])
            self.actions += 1
        except ApiError as error:
            # version_conflict / not_your_turn: the game moved on (a timeout, or a turn seen
            # twice after a reconnect); the stream brings the next turn.
            log.info("game %s: %s", turn["game"], error)

    def run(self) -> None:
        self.username = self.client.me()["username"]
        log.info("playing as %s", self.username)
        try:
            if self.args.arena:
                self.client.arena_join(self.args.pool)
                log.info("in the arena (pool %s)", self.args.pool or "classic")
            self.find_game()
            for line in self.client.stream():
                if self.on_line(line):
                    break
                if time.monotonic() - self.last_report >= REPORT_EVERY:
                    self.report()
        finally:
            if self.args.arena:
                try:
                    self.client.arena_leave(self.args.pool)
                except ApiError as error:  # stopped before the join was answered
                    log.info("arena: %s", error)
        self.report(wait=True)


def rules_arg(text: str) -> str | dict[str, Any]:
    """A preset's name, or rules as a JSON object."""
    if text.lstrip().startswith("{"):
        rules = json.loads(text)
        if not isinstance(rules, dict):
            raise argparse.ArgumentTypeError("rules must be a preset or a JSON object")
        return rules
    return text


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="the bot account's (or your) token")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--seek", action="store_true", help="find games in the quick-play queue")
    where.add_argument("--arena", action="store_true", help="play in the bot arena")
    where.add_argument("--challenge", nargs="+", metavar="USER", help="challenge these players")
    parser.add_argument("--games", type=int, default=None, help="stop after N finished games")
    parser.add_argument("--pool", default=None, help="--arena: the rating pool (classic)")
    parser.add_argument(
        "--rules",
        type=rules_arg,
        default="classic",
        help='--seek, --challenge: a preset, or JSON: \'{"preset": "classic", "max_hands": 2}\'',
    )
    parser.add_argument("--unrated", dest="rated", action="store_false", help="unrated games")
    parser.add_argument("--move-seconds", type=int, default=60)
    parser.add_argument(
        "--house-bots-after", type=int, default=None, help="--seek: fill with house bots after"
    )
    parser.add_argument(
        "--accept-challenges", action="store_true", help="accept every challenge received"
    )
    parser.add_argument(
        "--rating-wait",
        type=float,
        default=RATING_WAIT,
        help="seconds to wait for a rated game's rating change before printing it without",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    # SIGTERM (kill, systemd, docker stop) ends the bot as Ctrl-C does: through run()'s
    # finally, so that it leaves the arena rather than being seated while it is gone.
    signal.signal(signal.SIGTERM, _stop)
    with Client(args.server, args.token) as client:
        bot = Bot(client, args)
        try:
            bot.run()
        except KeyboardInterrupt:
            log.info("stopped")
    log.info("done: %d games, %d actions", len(bot.finished), bot.actions)


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
