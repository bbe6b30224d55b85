"""Check a finished game's record: ``python -m games.engine.verify RECORD.json``.

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
* the outcomes: everything the record states of the game's course and end is what its
  actions give on that replay (:data:`OUTCOMES`): each finished hand's dealer, targets,
  trump, tricks won, score, exchange and disclosures, then the scores, the end, the winner,
  the ranks and the cards left. A record whose plays were changed so that they stay legal
  (two cards of one hand exchanged everywhere) but win other tricks fails here.

Not the record's ``signature``: a record whose plays were changed so that every outcome
stays the same (the same tricks won by the same seats) is still a game the seed could have
had, and only the server's signature tells it from the one played. The signature is
checked outside the engine, with the ``cryptography`` package: ``python -m
games.record_check --key KEY RECORD.json`` runs this check and the signature's
(docs/rules.md "Signed records").

Pure Python, standard library only (no Django). The command prints one JSON object per file
(:meth:`Verification.to_dict` plus ``file``) and exits 0 when every file is ok, 1 when a
record fails the check, 2 when a file cannot be read.

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

__all__ = [
    "Verification",
    "main",
    "read_record",
    "seed_commitment",
    "verify_file",
    "verify_record",
]

#: At most this many differing cards are named for one deal.
_CARDS_NAMED = 4


@dataclass
class Verification:
    """The outcome of :func:`verify_record`: ``problems`` name what failed, first first."""

    commitment_matches: bool = False
    deals_match: bool = False
    outcomes_match: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.commitment_matches
            and self.deals_match
            and self.outcomes_match
            and not self.problems
        )

    @property
    def reason(self) -> str | None:
        """The first problem, or None when the record is ok."""
        return self.problems[0] if self.problems else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "commitment_matches": self.commitment_matches,
            "deals_match": self.deals_match,
            "outcomes_match": self.outcomes_match,
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


#: What a record states of the game's course and end besides its deals and actions: each
#: must be what the replay of its actions gives (docs/replay.md "Output"; ``ranks``: the
#: engine's record). ``hands`` item by item, field by field.
OUTCOMES = ("hands", "scores", "game_over", "winner", "ranks", "final_hands")


def _same(stated: object, given: object) -> bool:
    """Equal as JSON: ``true`` is not ``1``, nor ``1.0`` a ``1``."""
    return json.dumps(stated, sort_keys=True) == json.dumps(given, sort_keys=True)


def _mismatch(what: str, recorded: object, replayed: object) -> str:
    return (
        f"the record's {what} is {recorded!r}; replayed from the seed, the game gives {replayed!r}"
    )


def _compare_hands(recorded: object, replayed: list[dict[str, Any]]) -> list[str]:
    """Where the record's ``hands`` (each hand's dealer, targets, trump, tricks, diffs,
    exchange and disclosures) differ from the replay's, hand by hand, in the replay's order
    of fields."""
    if not isinstance(recorded, list):
        return [f"the record's hands is {type(recorded).__name__}, not a list"]
    problems = []
    for number, (stated, given) in enumerate(zip(recorded, replayed, strict=False)):
        if not isinstance(stated, Mapping):
            problems.append(f"the record's hands[{number}] is not an object")
            continue
        for key, value in given.items():
            if key not in stated:
                problems.append(f"the record's hands[{number}] states no {key}")
            elif not _same(stated[key], value):
                problems.append(_mismatch(f"hands[{number}].{key}", stated[key], value))
        problems += [
            f"the record's hands[{number}] has {key}, which the replay does not give"
            for key in stated
            if key not in given
        ]
    if len(recorded) != len(replayed):
        problems.append(
            f"the record states {len(recorded)} hands; replayed from the seed, the game "
            f"has {len(replayed)}"
        )
    return problems


def _compare_outcomes(record: Mapping[str, Any], replayed: Mapping[str, Any]) -> list[str]:
    """Where what the record states of the game (:data:`OUTCOMES`) is not what its plays
    give: every finished hand's trump, tricks won and score, the scores, the end, the
    winner, the ranks and the cards left. (Who won each trick is checked by the replay
    itself: the winner leads the next trick, so a record naming another seat to play next
    is refused; the last trick of a hand counts in that hand's ``tricks``.)"""
    problems = []
    for key in OUTCOMES:
        if key not in record:
            problems.append(f"the record states no {key}")
        elif key == "hands":
            problems += _compare_hands(record[key], replayed[key])
        elif not _same(record[key], replayed[key]):
            problems.append(_mismatch(key, record[key], replayed[key]))
    return problems


def verify_record(record: object, commitment: str | None = None) -> Verification:
    """Check a record (a parsed ``GET /games/{id}/record``) against its seed and its plays;
    ``commitment``: the ``seed_commitment`` seen during the game, if the caller kept it.
    Never raises."""
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
    if not _same(record.get("first_dealer"), first):
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
        outcome_problems = _compare_outcomes(record, replayed)
        result.outcomes_match = not outcome_problems
        result.problems += outcome_problems
    return result


def verify_file(path: str, commitment: str | None = None) -> dict[str, Any]:
    """Read and check one record file; ``{"file", "error"}`` if it cannot be read."""
    try:
        data = read_record(path)
    except ValueError as error:
        return {"file": path, "error": str(error)}
    return {"file": path, **verify_record(data, commitment).to_dict()}


def read_record(path: str) -> object:
    """The JSON of a record file. Raises ValueError, saying why, when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise ValueError(f"cannot read file: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError("the file is not UTF-8 text") from None
    except (ValueError, RecursionError) as error:
        raise ValueError(f"invalid JSON: {error}") from None


USAGE = (
    "usage: python -m games.engine.verify [--commitment HEX] RECORD.json [RECORD.json ...]\n"
    "  (the record's signature: python -m games.record_check --key KEY RECORD.json)"
)


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
            print(f"{path}: ok (deals and outcomes; not the signature)", file=sys.stderr)
        print(json.dumps(result), flush=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
