"""A hand from deal to end: :class:`HandSteps`, a part of :class:`~games.engine.Game`.

A hand goes through *steps*. Interactive steps wait for an action and are the ``phase``:
``bid`` (Woburn), ``give`` (phase ``exchange``), ``trump``, ``discard``, ``swap``, ``play``;
automatic steps run as soon as they come up: ``take`` (the dealer takes the kitty, with the
dealer's disclosure) and ``returns`` (9-5-2-tallyn's returns after trump). Returns in the
exchange are made as soon as the rules say (after each batch, or after the last one). When
a hand ends, the next one is dealt at once (or the game ends). Everything here runs inside
the :meth:`~games.engine.Game.apply` that led to it and appends its events to that call's.
"""

from __future__ import annotations

from collections.abc import Callable

from .cards import SUIT_MASKS, cards_to_str, high_cards, indices
from .core import NAMES, TWO_D, GameCore
from .deal import Deal, seeded_deal
from .events import Event
from .hand import HandState

__all__ = ["HandSteps"]


def _recipient_key(
    giver: int, n: int, need: dict[int, int], given_to: set[int]
) -> Callable[[int], tuple[int, bool, bool, int]]:
    """Four-handed plucking: most needed, then not yet given to, not on the giver's left,
    first clockwise from the giver."""

    def key(d: int) -> tuple[int, bool, bool, int]:
        return (-need[d], d in given_to, d == (giver + 1) % n, (d - giver) % n)

    return key


class HandSteps(GameCore):
    """The deal, the order of a hand's steps, its automatic steps (the exchange's plan
    and returns, the kitty) and its end (a part of :class:`~games.engine.Game`)."""

    # ------------------------------------------------------------------ the deal
    def _get_deal(self, number: int) -> Deal | None:
        if self._deals is not None:
            return self._deals[number] if number < len(self._deals) else None
        assert self._seed is not None
        return seeded_deal(self._seed, number, rules=self._rules, dealer=self._dealer)

    def _start_hand(self, events: list[Event]) -> None:
        deal = self._get_deal(self._deal_number + 1)
        if deal is None:
            self._stopped = True
            self._hand.step = "over"
            self._hand.steps = []
            events.append(Event("stopped", {"reason": "no_more_deals"}))
            return
        self._deal_number += 1
        rules = self._rules
        n = self._n
        hand = self._hand = HandState.new(n)
        hand.cards = list(deal.hands)
        self._deal_log.append([*deal.hands, deal.kitty])
        if rules.kitty == "swap_2d":
            hand.faceup = deal.kitty.bit_length() - 1
        hand.kitty = hand.kitty_cards = deal.kitty
        if rules.bidding and not self._history:
            hand.steps = ["bid"]
            hand.bid_turn = self._dealer
        else:
            hand.targets = rules.seat_targets(self._dealer)
            self._plan_exchange()
            hand.steps = self._hand_steps(exchange=bool(hand.plan))
        events.append(
            Event(
                "hand_start",
                {
                    "hand_number": len(self._history) + 1,
                    "deal_number": self._deal_number,
                    "dealer": self._dealer,
                    "targets": self.targets,
                    "face_up": NAMES[hand.faceup] if hand.faceup >= 0 else None,
                    "exchange": [{"from": g, "to": r, "count": k} for g, r, k in hand.plan],
                },
            )
        )
        for seat in range(n):
            events.append(
                Event(
                    "deal",
                    {"seat": seat, "cards": cards_to_str(hand.cards[seat])},
                    frozenset((seat,)),
                )
            )
        self._next_step(events)

    # ------------------------------------------------------------------ the order of steps
    def _hand_steps(self, exchange: bool) -> list[str]:
        rules = self._rules
        give = ["give"] if exchange else []
        if rules.kitty == "dealer":
            kitty = (
                ["discard", "take"]
                if rules.kitty_order == "discard_then_take"
                else ["take", "discard"]
            )
        elif rules.kitty == "swap_2d":
            kitty = [] if self._hand.faceup == TWO_D else ["swap"]
        else:
            kitty = []
        if rules.sequence == "tallyn":
            return kitty + give + ["trump"] + (["returns"] if exchange else []) + ["play"]
        if rules.exchange_before_trump:
            return [*give, "trump", *kitty, "play"]
        return ["trump", *give, *kitty, "play"]

    def _next_step(self, events: list[Event]) -> None:
        """Run the automatic steps that come next, up to the next interactive one."""
        hand = self._hand
        while True:
            step = hand.steps.pop(0)
            if step == "take":
                self._take_kitty(events)
                continue
            if step == "returns":
                self._returns_after_trump(events)
                continue
            if step == "play":
                hand.leader = (self._dealer + 1) % self._n
                hand.leaders = [hand.leader]
            hand.step = step
            return

    # ------------------------------------------------------------------ the exchange
    def _plan_exchange(self) -> None:
        rules = self._rules
        hand = self._hand
        diffs = self._prev_diffs
        targets = hand.targets
        hand.plan = []
        if not rules.exchange or diffs is None or targets is None:
            return
        n = self._n
        ups = [s for s in range(n) if diffs[s] > 0]
        downs = [s for s in range(n) if diffs[s] < 0]
        if not ups:
            return
        cap = rules.exchange_cap
        raw: list[tuple[int, int, int]] = []
        give_any = False
        if n == 3:
            if len(ups) == 1:
                downs.sort(key=lambda s: targets[s])
                raw = [(ups[0], d, -diffs[d]) for d in downs]
                give_any = len(downs) == 2 and rules.one_up_two_down == "simultaneous"
            else:
                if rules.two_up_order == "higher_target_first":
                    ups.sort(key=lambda s: -targets[s])
                else:
                    ups.sort(key=lambda s: (-diffs[s], -targets[s]))
                raw = [(u, downs[0], diffs[u]) for u in ups]
            given = [0] * n
            received = [0] * n
            for g, r, owed in raw:
                k = owed
                if cap is not None:
                    k = min(owed, cap - given[g], cap - received[r])
                if k > 0:
                    hand.plan.append([g, r, k])
                    given[g] += k
                    received[r] += k
            return_mode = "after_gives" if give_any else "immediate"
        else:
            dealer = self._dealer
            ups.sort(key=lambda s: (-diffs[s], -targets[s], (s - dealer) % n))
            need = {d: -diffs[d] for d in downs}
            received = [0] * n
            counts: dict[tuple[int, int], int] = {}
            for g in ups:
                given_to: set[int] = set()
                for count in range(diffs[g]):
                    if cap is not None and count >= cap:
                        break
                    cands = [d for d in downs if need[d] > 0 and (cap is None or received[d] < cap)]
                    if not cands:
                        break
                    d = min(cands, key=_recipient_key(g, n, need, given_to))
                    need[d] -= 1
                    received[d] += 1
                    given_to.add(d)
                    counts[(g, d)] = counts.get((g, d), 0) + 1
            hand.plan = [[g, d, k] for (g, d), k in counts.items()]
            return_mode = "after_gives"
        hand.give_any = give_any and len(hand.plan) > 1
        hand.return_mode = "after_trump" if rules.sequence == "tallyn" else return_mode

    def _return_batch(self, record: list[int], events: list[Event]) -> None:
        cards = self._hand.cards
        giver, receiver, given, _ = record
        held = cards[receiver]
        returned = 0
        for s in range(4):
            k = (given & SUIT_MASKS[s]).bit_count()
            if k:
                returned |= high_cards(held, s, k)
        cards[receiver] = held & ~returned
        cards[giver] |= returned
        record[3] = returned
        self._return_events(record, events)

    def _return_events(self, record: list[int], events: list[Event]) -> None:
        giver, receiver, _, returned = record
        events.append(
            Event("return", {"from": receiver, "to": giver, "count": returned.bit_count()})
        )
        events.append(
            Event(
                "return_cards",
                {"from": receiver, "to": giver, "cards": cards_to_str(returned)},
                frozenset((giver, receiver)),
            )
        )

    def _returns_by_rank(self, events: list[Event]) -> None:
        """Returns after every batch is given: per receiver and suit, the highest return
        goes to the giver of the highest card received (docs/rules.md, four-handed)."""
        batches = self._hand.batches
        cards = self._hand.cards
        receivers = sorted({rec[1] for rec in batches})
        for r in receivers:
            records = [rec for rec in batches if rec[1] == r]
            held = cards[r]
            for s in range(4):
                got = [(idx, rec) for rec in records for idx in indices(rec[2] & SUIT_MASKS[s])]
                if not got:
                    continue
                got.sort(key=lambda item: -item[0])
                tops = sorted(indices(high_cards(held, s, len(got))), reverse=True)
                for (_, rec), top in zip(got, tops, strict=True):
                    rec[3] |= 1 << top
            for rec in records:
                cards[r] &= ~rec[3]
                cards[rec[0]] |= rec[3]
        for rec in batches:
            self._return_events(rec, events)

    def _returns_after_trump(self, events: list[Event]) -> None:
        for rec in self._hand.batches:
            self._return_batch(rec, events)

    # ------------------------------------------------------------------ the kitty
    def _take_kitty(self, events: list[Event]) -> None:
        hand = self._hand
        d = self._dealer
        kitty = hand.kitty
        hand.cards[d] |= kitty
        hand.kitty = 0
        hand.kitty_taken = True
        events.append(Event("kitty_taken", {"seat": d, "count": kitty.bit_count()}))
        events.append(
            Event("kitty_cards", {"seat": d, "cards": cards_to_str(kitty)}, frozenset((d,)))
        )
        # The dealer's disclosure.
        if self._prev_diffs is None or self._prev_diffs[d] >= 0:
            return
        for up in range(self._n):
            returned = 0
            for g, r, _, ret in hand.batches:
                if r == d and g == up:
                    returned |= ret
            if not returned:
                continue
            shown = 0
            for s in range(4):
                part = returned & SUIT_MASKS[s]
                if part:
                    lowest = (part & -part).bit_length() - 1
                    above = ~((1 << (lowest + 1)) - 1)
                    shown |= kitty & SUIT_MASKS[s] & above
            if shown:
                hand.disclosures.append([up, shown])
                events.append(
                    Event(
                        "disclosure",
                        {"from": d, "to": up, "cards": cards_to_str(shown)},
                        frozenset((up,)),
                    )
                )

    # ------------------------------------------------------------------ the end of a hand
    def _end_hand(self, events: list[Event]) -> None:
        rules = self._rules
        n = self._n
        hand = self._hand
        targets = hand.targets
        assert targets is not None
        tricks = hand.tricks
        if hand.trump == "MIZ":
            diffs = [targets[s] - tricks[s] for s in range(n)]
        else:
            diffs = [tricks[s] - targets[s] for s in range(n)]
        for s in range(n):
            self._scores[s] += diffs[s]
        self._history.append(
            {
                "dealer": self._dealer,
                "targets": list(targets),
                "trump": hand.trump,
                "tricks": list(tricks),
                "diffs": diffs,
                "exchange": [
                    {
                        "from": g,
                        "to": r,
                        "given": cards_to_str(given),
                        "returned": cards_to_str(ret),
                    }
                    for g, r, given, ret in hand.batches
                ],
                "disclosures": [
                    {"to": u, "cards": cards_to_str(m)} for u, m in sorted(hand.disclosures)
                ],
            }
        )
        events.append(
            Event(
                "hand_end",
                {
                    "hand_number": len(self._history),
                    "dealer": self._dealer,
                    "targets": list(targets),
                    "trump": hand.trump,
                    "tricks": list(tricks),
                    "diffs": list(diffs),
                    "scores": list(self._scores),
                },
            )
        )
        hand.step = "over"
        hand.steps = []
        reason = None
        if rules.win_tricks is not None:
            for s in range(n):
                if tricks[s] >= rules.win_tricks:
                    self._win_seat = s
                    reason = "tricks"
        if reason is None and rules.target_score is not None and rules.score_end != "none":
            top = rules.target_score
            if any(sc >= top for sc in self._scores) or (
                rules.score_end == "up_or_down" and any(sc <= -top for sc in self._scores)
            ):
                reason = "score"
        if reason is None and rules.calls and len(self._history) >= 6 * n:
            reason = "calls"
        if reason is None and rules.max_hands is not None and len(self._history) >= rules.max_hands:
            reason = "max_hands"
        if reason is not None:
            self._over = True
            self._end_reason = reason
            outcome = self.outcome()
            assert outcome is not None
            events.append(Event("game_over", outcome.to_dict()))
            return
        self._prev_diffs = diffs
        self._dealer = (self._dealer + 1) % n
        self._start_hand(events)
