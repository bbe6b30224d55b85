"""What the bots page shows a person who has just created a bot account: the SDK's install
lines and a complete bot, short enough to read on the page (tests/test_web_bots.py compiles
it and checks it calls only what the SDK's client has)."""

from __future__ import annotations

#: The SDK is a package of this repository (sdk/), not published on a package index.
SDK_INSTALL = (
    "pip install ./sdk    # from a clone of the repository\n"
    'pip install "sergeant-major-sdk @ git+<repository URL>#subdirectory=sdk"'
)

#: The SDK README's complete bot, entering the arena and playing on until it is taken out.
FIRST_BOT = """\
import sys

from sergeant_sdk import ApiError, Client

server, token = sys.argv[1], sys.argv[2]
with Client(server, token) as client:
    client.arena_join(pool="classic")  # seated game after game against other bots
    for line in client.stream():  # also plays any table its owner seats it at
        if line["type"] == "your_turn":
            action = dict(line["view"]["legal_actions"][0])
            count = action.pop("count", None)
            if count is not None:  # a discard or a give: name the cards
                action["cards"] = line["view"]["your_hand"][:count]
            try:
                client.act(line["game"], action, expected_version=line["version"])
            except ApiError as error:
                print("refused:", error.code)  # the game moved on: wait for the next turn
        elif line["type"] == "game_finish":
            print("game", line["game"], "over:", line["result"]["ranks"])
        elif line["type"] == "arena_removed":
            print("taken out of the arena:", line["reason"])
            break
"""
