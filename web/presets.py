"""The rules presets as people read them: a readable name and a one-line description for
each preset of the engine, used by every form that chooses a preset and by ``/rules``; and
each preset's facts (players, cards, targets, how it ends) read from the engine's own data,
so the page cannot drift from what the engine plays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from games.engine import PRESETS, Rules

#: Each preset's readable name, by its code name.
PRESET_LABELS: Final[dict[str, str]] = {
    "classic": "Classic",
    "kitty-first": "Kitty first",
    "most-up-first": "Most up first",
    "3-5-9": "3-5-9",
    "9-5-2": "9-5-2",
    "9-5-2-tallyn": "9-5-2 Tallyn",
    "9-5-3-single-kitty": "9-5-3 single kitty",
    "6-3-8": "6-3-8",
    "17-card-2s-removed": "17 cards, 2♠ out",
    "all-sixteen": "All sixteen",
    "woburn": "Woburn",
    "calls": "Calls",
    "four-handed": "Four-handed",
}

#: Each preset in one line: the same line in every form and on /rules.
PRESET_SUMMARIES: Final[dict[str, str]] = {
    "classic": "The standard game: 16 cards each, a kitty of 4, targets 8, 5 and 3; "
    "12 tricks in one hand win.",
    "kitty-first": "Classic, but the dealer picks up the kitty before choosing the discards.",
    "most-up-first": "Classic, but when two players are up, the one furthest up trades first.",
    "3-5-9": "The dealer aims for 9 and picks up the kitty first; the discards count as "
    "the dealer's first trick.",
    "9-5-2": "Targets 9, 5 and 2, the kitty picked up first; the first score of 10 ends it.",
    "9-5-2-tallyn": "Targets 9, 2 and 5 with its own order of play; a score of +15 or -15 ends it.",
    "9-5-3-single-kitty": "17 cards each and one face-up card that the holder of the 2♦ may "
    "swap for; 13 tricks win.",
    "6-3-8": "No kitty: the 2♣ is out, 17 cards each, targets 8, 6 and 3; the first score "
    "of 10 ends it.",
    "17-card-2s-removed": "No kitty: the 2♠ is out, 17 cards each, targets 9, 5 and 3; only "
    "all 17 tricks win.",
    "all-sixteen": "Classic, but only a player who takes all 16 tricks in a hand wins.",
    "woburn": "The players bid for the first deal, and nobody trades more than 3 cards in "
    "an exchange.",
    "calls": "No exchange: each player calls each suit, no trumps and misère once, over 18 hands.",
    "four-handed": "Four players, 13 cards each, targets 5, 4, 2 and 2; 10 tricks in one hand win.",
}

# Every preset the engine has is described, and nothing else.
assert set(PRESET_LABELS) == set(PRESETS) == set(PRESET_SUMMARIES)

ROLE_NAMES: Final = ("dealer", "eldest", "middle")
SUIT_SYMBOLS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
KITTY_ORDER_WORDS: Final = {
    "discard_then_take": "discards 4, then takes the kitty",
    "take_then_discard": "takes the kitty, then discards 4",
}
TWO_UP_WORDS: Final = {
    "higher_target_first": "the higher target trades first",
    "most_up_first": "the player furthest up trades first",
}


def preset_label(name: str) -> str:
    return PRESET_LABELS.get(name, name)


def preset_summary(name: str) -> str:
    return PRESET_SUMMARIES.get(name, "")


def preset_choices(names: list[str]) -> list[tuple[str, str]]:
    """Form choices: each preset's code name (what is sent) with its readable name."""
    return [(name, preset_label(name)) for name in names]


@dataclass(frozen=True)
class PresetFacts:
    """One preset at a glance, each fact a short phrase."""

    name: str
    label: str
    summary: str
    players: int
    cards: str
    kitty: str
    targets: str
    exchange: str
    ends: str


def _targets(rules: Rules) -> str:
    names = ROLE_NAMES if rules.players == 3 else ("dealer", "eldest", "the next", "the last")
    return ", ".join(f"{name} {target}" for name, target in zip(names, rules.targets, strict=True))


def _ends(rules: Rules) -> str:
    ways = []
    if rules.win_tricks is not None:
        if rules.win_tricks == rules.tricks_per_hand:
            ways.append(f"a player takes all {rules.win_tricks} tricks of a hand")
        else:
            ways.append(f"a player takes {rules.win_tricks} or more tricks in a hand")
    if rules.score_end == "up":
        ways.append(f"a score reaches +{rules.target_score}")
    elif rules.score_end == "up_or_down":
        ways.append(f"a score reaches +{rules.target_score} or -{rules.target_score}")
    if rules.calls:
        ways.append("after 18 hands, when everyone has made each call")
    return " or ".join(ways) if ways else "after the hand limit set for the table"


def _kitty(rules: Rules) -> str:
    if rules.kitty == "none":
        return "none"
    if rules.kitty == "swap_2d":
        return "1 card face up, for the holder of the 2♦"
    return f"{rules.kitty_size} cards; the dealer {KITTY_ORDER_WORDS[rules.kitty_order]}"


def _exchange(rules: Rules) -> str:
    if not rules.exchange:
        return "none"
    if rules.players == 4:
        return "from the second hand; the up players pluck cards from the down players"
    words = f"from the second hand; with two up, {TWO_UP_WORDS[rules.two_up_order]}"
    if rules.exchange_cap is not None:
        words += f"; at most {rules.exchange_cap} cards each"
    return words


def preset_facts(name: str) -> PresetFacts:
    rules = PRESETS[name]
    deck = rules.deck.bit_count()
    removed = "".join(f" ({card[0]}{SUIT_SYMBOLS[card[1]]} out)" for card in rules.removed)
    return PresetFacts(
        name=name,
        label=preset_label(name),
        summary=preset_summary(name),
        players=rules.players,
        cards=f"{deck}{removed}, {rules.hand_size} each",
        kitty=_kitty(rules),
        targets=_targets(rules),
        exchange=_exchange(rules),
        ends=_ends(rules),
    )


def all_preset_facts() -> list[PresetFacts]:
    """Every preset of the engine, in the engine's order."""
    return [preset_facts(name) for name in PRESETS]
