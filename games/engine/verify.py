"""Check a finished game's record against its seed: ``python -m games.engine.verify RECORD.json``.

Every platform game commits to its shuffle before the first card is dealt: its views carry
``seed_commitment``, :func:`seed_commitment` of the game's secret seed (the lowercase hex
SHA-256 of the seed's UTF-8 bytes). After the end the record (docs/api.md, "The record")
carries the ``seed`` and the ``seed_commitment``, and :func:`verify_record` checks:

* the commitment: ``seed_commitment`` is SHA-256 of ``seed`` (and, given ``commitment``,
  the one seen during the game is that one too);
* the deals: the first dealer and every deal of the record are those the seed gives with
  the documented shuffle (:mod:`.deal`, docs/rules.md "Fair and verifiable deals"), each
  dealt by the dealer the game had when it was dealt. The dealers follow from the rules and
  the actions (the deal passes left after each hand and after a Woburn redeal, and to the
  winning bidder in Woburn), so the record's actions are replayed on a game dealt from the
  seed alone; its deals, as they come, are compared with the record's;
* the results: the replay from the seed ends with the record's scores and winner.

Pure Python (no Django). The command prints one JSON object per file (:meth:`Verification.to_dict`
plus ``file``) and exits 0 when every file is ok, 1 when a record fails the check, 2 when a
file cannot be read.

>>> from hashlib import sha256
>>> seed_commitment("demo") == sha256(b"demo").hexdigest()
True
>>> verify_record({"seed": "demo"}).reason
'the record has no seed_commitment'
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .deal import first_dealer, seed_commitment
from .errors import EngineError, IllegalAction
from .game import Game
from .rules import Rules

__all__ = ["Verification", "main", "seed_commitment", "verify_file", "verify_record"]

#: At most this many differing cards are named for one deal.
_CARDS_NAMED = 4


@dataclass
class Verification:
    """The outcome of :func:`verify_record`: ``problems`` name what failed, first first."""

    commitment_matches: bool = False
    deals_match: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.commitment_matches and self.deals_match and not self.problems

    @property
    def reason(self) -> str | None:
        """The first problem, or None when the record is ok."""
        return self.problems[0] if self.problems else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "commitment_matches": self.commitment_matches,
            "deals_match": self.deals_match,
            "reason": self.reason,
            "problems": list(self.problems),
        }


def _check_commitment(
    record: Mapping[str, Any], seed: str | None, commitment: str | None
) -> list[str]:
    problems = []
    recorded = record.get("seed_commitment")
    if not isinstance(recorded, str) or not recorded:
        problems.append("the record has no seed_commitment")
    elif seed is not None and recorded.lower() != seed_commitment(seed):
        problems.append(
            f"seed_commitment {recorded} is not SHA-256 of the seed "
            f"(SHA-256 of the seed is {seed_commitment(seed)})"
        )
    if commitment is not None and seed is not None and commitment.lower() != seed_commitment(seed):
        problems.append(
            f"the commitment {commitment} shown during the game is not SHA-256 of the seed "
            f"(SHA-256 of the seed is {seed_commitment(seed)})"
        )
    return problems


def _where(hands: Sequence[Sequence[str]], kitty: Sequence[str]) -> dict[str, str]:
    """card → "seat S's hand" or "the kitty"."""
    place = {str(card): "the kitty" for card in kitty}
    for seat, hand in enumerate(hands):
        for card in hand:
            place[str(card)] = f"seat {seat}'s hand"
    return place


def _compare_deal(number: int, recorded: object, dealt: Mapping[str, Any]) -> list[str]:
    """Where the record's deal ``number`` differs from the one the seed gives."""
    if (
        not isinstance(recorded, Mapping)
        or not isinstance(recorded.get("hands"), list)
        or not all(isinstance(h, list) for h in recorded["hands"])
        or not isinstance(recorded.get("kitty", []), list)
    ):
        return [f"deal {number} is not a deal ({{hands, kitty}})"]
    try:
        hands = [[str(Card.parse(c)) for c in hand] for hand in recorded["hands"]]
        kitty = [str(Card.parse(c)) for c in recorded.get("kitty", [])]
    except (IllegalAction, TypeError, ValueError) as error:
        return [f"deal {number}: {error}"]
    if len(hands) != len(dealt["hands"]):
        return [f"deal {number} has {len(hands)} hands, not {len(dealt['hands'])}"]
    have = _where(hands, kitty)
    want = _where(dealt["hands"], dealt["kitty"])
    counts = [len(h) for h in hands] + [len(kitty)]
    if sum(counts) != len(have):
        return [f"deal {number}: a card appears twice"]
    differing = [card for card in want if have.get(card) != want[card]]
    differing += [card for card in have if card not in want]
    if not differing:
        return []
    named = [
        f"{card} is in {have[card]} in the record; the seed deals it to {want[card]}"
        if card in have and card in want
        else f"{card} is missing from the record"
        if card in want
        else f"{card} is not in the deck the seed shuffles"
        for card in differing[:_CARDS_NAMED]
    ]
    more = len(differing) - _CARDS_NAMED
    tail = f" (and {more} more cards)" if more > 0 else ""
    return [f"deal {number} is not the seed's: {'; '.join(named)}{tail}"]


def verify_record(record: object, commitment: str | None = None) -> Verification:
    """Check a record (a parsed ``GET /games/{id}/record``) against its seed; ``commitment``:
    the ``seed_commitment`` seen during the game, if the caller kept it. Never raises."""
    result = Verification()
    if not isinstance(record, Mapping):
        result.problems.append("a record must be a JSON object")
        return result
    raw_seed = record.get("seed")
    seed = str(raw_seed) if type(raw_seed) in (str, int) and raw_seed != "" else None
    if seed is None:
        result.problems.append("the record has no seed")
    commitment_problems = _check_commitment(record, seed, commitment)
    result.commitment_matches = seed is not None and not commitment_problems
    result.problems += commitment_problems
    if seed is None:
        return result
    try:
        rules = Rules.from_dict(record.get("rules"))
    except (EngineError, TypeError, ValueError) as error:
        result.problems.append(f"rules: {error}")
        return result
    deal_problems = []
    first = first_dealer(seed, rules.players)
    if record.get("first_dealer") != first:
        deal_problems.append(
            f"first_dealer is {record.get('first_dealer')!r}; the seed gives {first}"
        )
    game = Game.new(rules, seed=seed)
    actions = record.get("actions")
    action_problems = []
    if not isinstance(actions, list):
        action_problems.append("actions must be a list")
        actions = []
    for index, action in enumerate(actions):
        seat = action.get("seat") if isinstance(action, Mapping) else None
        try:
            game.apply_dict(seat, action)
        except IllegalAction as error:
            action_problems.append(
                f"action {index} ({json.dumps(action)}) is illegal in the game the seed "
                f"deals: {error}"
            )
            break
        except (EngineError, TypeError, ValueError) as error:
            action_problems.append(f"action {index} ({json.dumps(action)}): {error}")
            break
    replayed = game.record()
    deals = record.get("deals")
    if not isinstance(deals, list):
        deal_problems.append("deals must be a list")
        deals = []
    dealt = replayed["deals"]
    for number in range(min(len(deals), len(dealt))):
        deal_problems += _compare_deal(number, deals[number], dealt[number])
    if len(deals) != len(dealt):
        deal_problems.append(
            f"the record has {len(deals)} deals; its seed and actions deal {len(dealt)}"
        )
    result.deals_match = not deal_problems
    result.problems += deal_problems + action_problems
    if not deal_problems and not action_problems:
        for key in ("scores", "winner", "game_over"):
            if key in record and record[key] != replayed[key]:
                result.problems.append(
                    f"the record's {key} is {record[key]!r}; replayed from the seed, the "
                    f"game gives {replayed[key]!r}"
                )
    return result


def verify_file(path: str, commitment: str | None = None) -> dict[str, Any]:
    """Read and check one record file; ``{"file", "error"}`` if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        return {"file": path, "error": f"cannot read file: {error.strerror or error}"}
    except UnicodeDecodeError:
        return {"file": path, "error": "the file is not UTF-8 text"}
    except (ValueError, RecursionError) as error:
        return {"file": path, "error": f"invalid JSON: {error}"}
    return {"file": path, **verify_record(data, commitment).to_dict()}


USAGE = "usage: python -m games.engine.verify [--commitment HEX] RECORD.json [RECORD.json ...]"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line entry point; returns the exit status (0 ok, 1 failed, 2 unreadable)."""
    args = list(sys.argv[1:] if argv is None else argv)
    commitment = None
    if args[:1] == ["--commitment"] and len(args) >= 2:
        commitment = args[1]
        args = args[2:]
    if not args or any(a in ("-h", "--help") or a.startswith("--") for a in args):
        print(USAGE, file=sys.stderr)
        return 0 if args and all(a in ("-h", "--help") for a in args) else 2
    status = 0
    for path in args:
        result = verify_file(path, commitment)
        if "error" in result:
            status = 2
            print(f"{path}: cannot check: {result['error']}", file=sys.stderr)
        elif not result["ok"]:
            status = max(status, 1)
            print(f"{path}: FAILED: {result['reason']}", file=sys.stderr)
        else:
            print(f"{path}: ok", file=sys.stderr)
        print(json.dumps(result), flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
