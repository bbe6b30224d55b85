"""``python -m games.engine.replay CASE.json [CASE.json ...]`` (docs/replay.md).

For each file, prints one JSON object on one line: the replay's ``steps``, completed
``hands``, ``scores``, ``game_over``, ``winner`` and ``final_hands``, or
``{"file": ..., "error": "..."}`` for a file that cannot be read. Exits 0 if every file was
read, 2 otherwise. Needs no database and no Django settings.

>>> case = {"rules": "classic", "first_dealer": 0, "deals": [], "actions": []}
>>> replay_case(case, "x.json")["error"]
'deals must be a non-empty list'

Programmatic use: :func:`replay_case` (a parsed document), :func:`replay_file` (a path), and
:func:`load_case`: the game a document starts from (dealt, no action applied yet) and its
actions, to apply one at a time (the web replay steps through a record this way).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .deal import Deal
from .errors import EngineError, IllegalAction
from .game import Game
from .rules import Rules

__all__ = ["CaseError", "load_case", "main", "replay_case", "replay_file"]


class CaseError(ValueError):
    """A replay document that cannot be replayed (the message says why)."""


def load_case(data: object) -> tuple[Game, list[Any]]:
    """The game of a replay document (or a record), dealt and before its first action, and
    the document's actions in order (each ``{"seat": S, "type": ...}``, for
    :meth:`Game.apply_dict`). Raises :class:`CaseError` for a malformed document."""
    if not isinstance(data, Mapping):
        raise CaseError("a replay file must hold a JSON object")
    if "rules" not in data:
        raise CaseError("missing 'rules'")
    try:
        rules = Rules.from_dict(data["rules"])
    except EngineError as error:
        raise CaseError(f"rules: {error}") from None
    first = data.get("first_dealer")
    if type(first) is not int or not 0 <= first < rules.players:
        raise CaseError(f"first_dealer must be a seat 0..{rules.players - 1}, not {first!r}")
    deals_raw = data.get("deals")
    if not isinstance(deals_raw, list) or not deals_raw:
        raise CaseError("deals must be a non-empty list")
    deals = []
    for number, raw in enumerate(deals_raw):
        try:
            deals.append(Deal.from_dict(raw, rules))
        except EngineError as error:
            raise CaseError(f"deal {number}: {error}") from None
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise CaseError("actions must be a list")
    return Game.from_deals(rules, deals, first), actions


def replay_case(data: object, file: str = "") -> dict[str, Any]:
    """Replay a parsed replay document; returns the docs/replay.md output object."""
    try:
        game, actions = load_case(data)
    except CaseError as error:
        return {"file": file, "error": str(error)}
    steps = []
    for action in actions:
        step: dict[str, Any] = {
            "phase": game.phase,
            "to_act": game.to_act(),
            "legal_plays": game.legal_plays(),
            "result": "ok",
        }
        seat = action.get("seat") if isinstance(action, Mapping) else None
        try:
            game.apply_dict(seat, action)
        except IllegalAction as error:
            step["result"] = f"illegal:{error.code}"
        steps.append(step)
    outcome = game.outcome()
    return {
        "file": file,
        "steps": steps,
        "hands": game.history,
        "scores": game.scores,
        "game_over": game.is_over(),
        "winner": outcome.winner if outcome is not None else None,
        "final_hands": [[str(c) for c in game.hand(s)] for s in range(game.players)],
    }


def replay_file(path: str) -> dict[str, Any]:
    """Read and replay one file; never raises on bad content."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        return {"file": path, "error": f"cannot read file: {error.strerror or error}"}
    except UnicodeDecodeError:
        return {"file": path, "error": "the file is not UTF-8 text"}
    try:
        data = json.loads(text)
    except ValueError as error:
        return {"file": path, "error": f"invalid JSON: {error}"}
    except RecursionError:
        return {"file": path, "error": "invalid JSON: nested too deeply"}
    try:
        return replay_case(data, path)
    except Exception as error:  # never a traceback (docs/replay.md); a bug shows up here
        return {"file": path, "error": f"internal error: {type(error).__name__}: {error}"}


def main(argv: Sequence[str] | None = None) -> int:
    """The command line entry point; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or any(a in ("-h", "--help") for a in args):
        print("usage: python -m games.engine.replay CASE.json [CASE.json ...]", file=sys.stderr)
        return 0 if args else 2
    status = 0
    for path in args:
        result = replay_file(path)
        if "error" in result:
            status = 2
        print(json.dumps(result), flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
