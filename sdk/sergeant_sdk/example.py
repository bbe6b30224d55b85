"""An example bot: plays legal moves on the Sergeant Major platform through the SDK.

    python -m bots.example --server http://127.0.0.1:8000 --token BOT_TOKEN [--games N]

It reads its stream; for every ``your_turn`` it picks an action from the view's
``legal_actions`` (the lowest card it may play, the first call, the lowest cards for a
discard or a give) and submits it with ``expected_version`` and an idempotency key. It uses
only ``bots.sdk`` (and so only ``httpx``): copy both files to start your own bot.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from bots.sdk import ApiError, Client

log = logging.getLogger("sergeant.example")

RANKS = "23456789TJQKA"
SUITS = "CDHS"


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


def play(client: Client, games: int | None) -> int:
    """Answer turns until ``games`` games have finished (forever if None); returns the
    number of actions made."""
    actions = 0
    for turn in client.turns(until_finished=games):
        action = choose(turn["view"])
        try:
            client.act(turn["game"], action, expected_version=turn["version"])
            actions += 1
        except ApiError as error:
            # version_conflict / not_your_turn: the game moved on (a timeout, or a turn
            # seen twice after a reconnect); the stream brings the next turn.
            log.info("game %s: %s", turn["game"], error)
    return actions


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True, help="e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="the bot account's token")
    parser.add_argument("--games", type=int, default=None, help="stop after N finished games")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    with Client(args.server, args.token) as client:
        me = client.me()
        log.info("playing as %s", me["username"])
        actions = play(client, args.games)
    log.info("done: %d actions", actions)


if __name__ == "__main__":
    main()
