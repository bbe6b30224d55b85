"""The tournament pages' form and the grids drawn from a tournament's detail.

The form only reads the fields' types; the limits and the defaults are the API's
(``tournaments.serializers.TournamentSettingsSerializer``): the page validates with it and
shows its errors next to the fields, then the service checks again, as for the API.
The grids rearrange ``tournaments.selectors.tournament_detail`` (the data of
``GET /api/v1/tournaments/{id}``) for the page; they compute nothing the API does not give.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django import forms
from django.utils import timezone

from accounts.services import HOUSE_BOTS
from core.errors import DomainError, Invalid
from games.engine import PRESETS
from games.tables import parse_rules
from ratings.display import display_rating, ordinal_of
from tournaments.models import Tournament
from tournaments.serializers import TournamentSettingsSerializer
from tournaments.services.setup import SETTINGS
from web.forms import preset_field
from web.presets import preset_choices
from web.qr import qr_svg

#: The form's fields that are the API's settings under the same name (the rules are the
#: form's preset; the points by rank keep their default).
SAME_NAME = tuple(name for name in SETTINGS if name not in ("rules", "points_by_rank"))
#: Where an error of an API setting is shown when the form calls it differently.
FIELD_OF_SETTING = {"rules": "preset"}
#: Errors of the services that name no field, placed by their code.
FIELD_OF_CODE = {
    "invalid_rules": "preset",
    "unknown_bot": "filler_bot",
    "unknown_club": "club",
    "not_club_admin": "club",
}
#: Fields a form posted without them leaves as they are (the API's default when creating),
#: as the API does with a setting left out.
LEFT_OUT_UNCHANGED = ("venue", "club")
LOCAL_INPUT = "%Y-%m-%dT%H:%M"
RATING_LIMITS = ("min_rating", "max_rating")
#: A cross-table of everyone against everyone is drawn up to this many players.
MATRIX_LIMIT = 40
#: How the page names an in-person table's result (docs/tournaments.md "In-person nights").
#: The scores of an entry are shown only once final: until another player of the table
#: confirms it, or an organiser enters it, it is one player's word.
RESULT_LABELS = {
    "missing": "no result yet",
    "pending": "entered, to be confirmed",
    "disputed": "disputed: an organiser enters it",
    "final": "final",
}
#: Lines of a score sheet when the games play to the preset's own end (no hand limit).
OPEN_ENDED_HANDS = 10
#: The same, in a chip of the round-by-round grid.
RESULT_CHIPS = {"missing": "playing", "pending": "pending", "disputed": "disputed"}


def three_seat_presets() -> list[str]:
    """The rules presets a tournament may use (its tables seat three)."""
    return [name for name in PRESETS if parse_rules(name).players == 3]


def parse_time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


class TournamentForm(forms.Form):
    """Every setting of ``POST /api/v1/tournaments`` (docs/tournaments.md "Settings")."""

    name = forms.CharField(max_length=100)
    venue = forms.ChoiceField(
        required=False,
        choices=[
            ("online", "online: the games are played on this site"),
            ("in_person", "at real tables (in person), with real cards"),
        ],
        initial="online",
        label="Where",
        help_text="In person: the site seats each round and prints the tables' codes; each "
        "table's players enter their scores on a phone. Move time means nothing there, "
        "and odd numbers sit out (byes).",
    )
    # Any slug is passed on: the service says whether the person may name that club.
    club = forms.CharField(
        required=False,
        max_length=50,
        widget=forms.Select,
        help_text="A club's tournament is for its members only, and is listed on the club's "
        "page. Only a club's owner and admins may name it.",
    )
    preset = preset_field()
    hands_per_game = forms.IntegerField(
        required=False,
        initial=3,
        label="Hands per game",
        help_text="3: everyone deals once. Empty: play to the preset's own end.",
    )
    format = forms.ChoiceField(
        choices=[
            ("swiss", "Swiss"),
            ("round_robin", "Round robin"),
            ("knockout", "Knockout"),
        ],
        initial="swiss",
    )
    rounds = forms.IntegerField(
        required=False,
        help_text="Swiss and round robin; empty: chosen from the number of entrants at the "
        "start. Leave empty for a knockout (it takes as many rounds as it needs).",
    )
    move_seconds = forms.IntegerField(initial=60, label="Move time (seconds)")
    round_minutes = forms.IntegerField(
        initial=60,
        label="Round deadline (minutes)",
        help_text="After it, stuck tables may be adjudicated.",
    )
    starts_at = forms.DateTimeField(
        required=False,
        label="Starts at (UTC)",
        input_formats=[LOCAL_INPUT, "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_INPUT),
        help_text="Empty: when an organiser starts it. At this time it starts by itself "
        "if 3 have entered.",
    )
    rated = forms.BooleanField(required=False, initial=True, label="Rated games")
    max_players = forms.IntegerField(
        required=False, label="Most entrants", help_text="Empty: no limit."
    )
    min_rating = forms.IntegerField(required=False, label="Lowest rating")
    max_rating = forms.IntegerField(
        required=False,
        label="Highest rating",
        help_text="Entry limits on the rating in the rules' pool, as the pages show it "
        "(a newcomer's is 1500).",
    )
    humans_allowed = forms.BooleanField(required=False, initial=True, label="People may enter")
    bots_allowed = forms.BooleanField(required=False, initial=True, label="Bots may enter")
    odd_count = forms.ChoiceField(
        choices=[
            ("fillers", "house bots fill the empty seats"),
            ("byes", "some entrants sit a round out (byes)"),
        ],
        initial="fillers",
        label="When the entrants do not fill tables of three",
    )
    filler_bot = forms.ChoiceField(
        choices=[(name, name) for name in HOUSE_BOTS], initial="house:random"
    )
    points_by_rank = forms.CharField(
        initial="3, 1, 0",
        label="Points for 1st, 2nd, 3rd",
        help_text="Three numbers; tied seats share.",
    )
    advance_per_table = forms.TypedChoiceField(
        choices=[(1, "1"), (2, "2")],
        coerce=int,
        initial=1,
        label="Knockout: through per table",
    )
    duplicate = forms.BooleanField(
        required=False,
        initial=False,
        label="Duplicate play",
        help_text="Swiss and round robin: every table of a round gets the same cards; "
        "players are ranked against those who held the same cards.",
    )

    def __init__(
        self, *args: Any, clubs: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        """``clubs``: the ``(slug, name)`` of the clubs the person may name."""
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices(three_seat_presets())
        self.fields["club"].widget.choices = self.club_choices(clubs or [])
        # The browser's hints come from the API's limits (which are what is checked).
        api_fields = TournamentSettingsSerializer().fields
        for name, field in self.fields.items():
            api_field = api_fields.get(name)
            for limit, attr in (("min_value", "min"), ("max_value", "max")):
                value = getattr(api_field, limit, None)
                if value is not None:
                    field.widget.attrs[attr] = value

    def club_choices(self, clubs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """No club, the person's clubs, and a slug typed or given that is none of them (so
        that it stays shown, with the service's answer next to it)."""
        choices = [("", "no club"), *clubs]
        shown = self["club"].value()
        if shown and shown not in dict(choices):
            choices.append((shown, shown))
        return choices

    @classmethod
    def of(
        cls,
        summary: dict[str, Any],
        data: Any = None,
        clubs: list[tuple[str, str]] | None = None,
    ) -> TournamentForm:
        """The form of an existing tournament's settings (its summary as the API gives it)."""
        starts = parse_time(summary["starts_at"])
        initial = {name: summary[name] for name in SAME_NAME if name in summary}
        initial["rounds"] = summary["round_count"]
        initial["starts_at"] = starts.strftime(LOCAL_INPUT) if starts else None
        rules = summary["rules"]
        initial["preset"] = rules.get("preset") if isinstance(rules, dict) else rules
        initial["points_by_rank"] = ", ".join(f"{p:g}" for p in summary["points_by_rank"])
        initial["club"] = summary["club"] or ""
        for name in RATING_LIMITS:
            if initial.get(name) is not None:
                initial[name] = display_rating(initial[name])
        return cls(data, initial=initial, prefix="settings", clubs=clubs)

    def settings(self, changed_only: bool = False) -> dict[str, Any]:
        """The settings as the API takes them (all, or only those the person changed), of
        the fields that could be read."""
        data = self.cleaned_data
        names = set(self.changed_data) if changed_only else set(self.fields)
        names &= set(data)
        names -= {name for name in LEFT_OUT_UNCHANGED if self.add_prefix(name) not in self.data}
        out = {name: data[name] for name in SAME_NAME if name in names}
        # The form's rating limits are display ratings; the API's are ordinals.
        for name in RATING_LIMITS:
            if out.get(name) is not None:
                out[name] = ordinal_of(out[name])
        if "preset" in names:
            out["rules"] = data["preset"]
        if "club" in names:
            out["club"] = data["club"] or None
        if "points_by_rank" in names:
            points = re.split(r"[\s,;]+", data["points_by_rank"])
            out["points_by_rank"] = [number_or_text(p) for p in points if p]
        return out

    def validated(self, changed_only: bool = False) -> dict[str, Any] | None:
        """The settings checked by the API's serializer, or None with its errors placed
        (all of them at once: also when a field could not be read as a number or a time)."""
        readable = self.is_valid()
        serializer = TournamentSettingsSerializer(
            data=self.settings(changed_only), partial=changed_only
        )
        if serializer.is_valid() and readable:
            return dict(serializer.validated_data)
        for setting, problems in serializer.errors.items():
            name = FIELD_OF_SETTING.get(setting, setting)
            if name not in self.errors:  # a field that could not be read: said already
                self.add_error(name if name in self.fields else None, flat_messages(problems))
        return None

    def place_domain_error(self, code: str, message: str) -> None:
        self.add_error(FIELD_OF_CODE.get(code), message)

    def places(self, error: DomainError) -> bool:
        """Shows a service's refusal of the settings on the form: a field's (by its code) or
        the settings' as a whole (``Invalid``); False for any other refusal."""
        if not isinstance(error, Invalid) and error.code not in FIELD_OF_CODE:
            return False
        self.place_domain_error(error.code, error.message)
        return True


def number_or_text(text: str) -> float | str:
    """A number typed in the form as the API takes it (a JSON number), or the text as typed,
    for the API's serializer to refuse by name."""
    try:
        return float(text)
    except ValueError:
        return text


def flat_messages(problems: Any) -> list[str]:
    """DRF's errors of one field (a list, or per list item a dict) as plain sentences."""
    if isinstance(problems, dict):
        return [f"item {int(k) + 1}: {m}" for k, v in problems.items() for m in flat_messages(v)]
    if isinstance(problems, list):
        return [m for p in problems for m in flat_messages(p)]
    return [str(problems)]


# --- The tournament page --------------------------------------------------------------------


def rounds_for_page(detail: dict[str, Any], now: datetime | None = None) -> list[dict[str, Any]]:
    """The rounds, newest first, each with how many of its games are over and whether its
    deadline has passed (then an organiser may adjudicate the games still in play)."""
    now = now or timezone.now()
    shown = []
    for round_ in reversed(detail["rounds"]):
        deadline = parse_time(round_["deadline"])
        done = sum(1 for table in round_["tables"] if table["status"] == "finished")
        late = deadline is not None and deadline <= now
        tables = [with_result_label(table) for table in round_["tables"]]
        shown.append(
            {
                **round_,
                "tables": tables,
                "done": done,
                "overdue": round_["status"] != "finished" and late,
            }
        )
    return shown


def with_result_label(table: dict[str, Any]) -> dict[str, Any]:
    """An in-person table with its result's status in words (an online one as it is)."""
    result = table.get("result")
    if not result:
        return table
    return {**table, "result_label": RESULT_LABELS.get(result["status"], result["status"])}


def table_of(detail: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The table of the latest round where ``name`` sits (with its round's number)."""
    if not detail["rounds"]:
        return None
    latest = detail["rounds"][-1]
    for table in latest["tables"]:
        if any(s["username"] == name and not s["filler"] for s in table["seats"]):
            return {**with_result_label(table), "round": latest["number"]}
    return None


def round_grid(detail: dict[str, Any]) -> dict[str, Any]:
    """Each entrant's rounds, in standings order: the table's rank and game score, or a bye
    (``rows: [{username, standing, cells: [cell | None per round]}]``)."""
    numbers = [r["number"] for r in detail["rounds"]]
    cells: dict[str, dict[int, dict[str, Any]]] = {}
    for round_ in detail["rounds"]:
        for table in round_["tables"]:
            for seat in table["seats"]:
                if seat["filler"]:
                    continue
                cells.setdefault(seat["username"], {})[round_["number"]] = {
                    "bye": False,
                    "rank": seat.get("rank"),
                    "score": seat.get("score"),
                    "game": table["game"],
                    "table": table["number"],
                    "code": table.get("code"),
                    "chip": in_person_chip(table),
                    "playing": table["status"] != "finished",
                    "adjudicated": table["adjudicated"],
                }
        for name in round_["byes"]:
            cells.setdefault(name, {})[round_["number"]] = {"bye": True}
    rows = [
        {
            "username": line["username"],
            "standing": line,
            "cells": [cells.get(line["username"], {}).get(n) for n in numbers],
        }
        for line in detail["standings"]
    ]
    return {"rounds": numbers, "rows": rows}


def in_person_chip(table: dict[str, Any]) -> str | None:
    """What a grid's chip says of an in-person table whose result is not final yet."""
    result = table.get("result")
    return RESULT_CHIPS.get(result["status"]) if result else None


def meeting_matrix(detail: dict[str, Any]) -> dict[str, Any] | None:
    """Everyone against everyone (a round robin's cross-table): for each pair, the tables
    they shared, with each one's rank there. None for other formats or large fields."""
    if detail["format"] != Tournament.Format.ROUND_ROBIN or not detail["rounds"]:
        return None
    names = [line["username"] for line in detail["standings"]]
    if len(names) > MATRIX_LIMIT:
        return None
    met: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for round_ in detail["rounds"]:
        for table in round_["tables"]:
            seated = [s for s in table["seats"] if not s["filler"]]
            for mine in seated:
                for theirs in seated:
                    if mine is theirs:
                        continue
                    mine_rank, their_rank = mine.get("rank"), theirs.get("rank")
                    outcome = "playing"
                    if mine_rank is not None and their_rank is not None:
                        outcome = (
                            "ahead"
                            if mine_rank < their_rank
                            else "behind"
                            if mine_rank > their_rank
                            else "level"
                        )
                    met.setdefault((mine["username"], theirs["username"]), []).append(
                        {
                            "round": round_["number"],
                            "game": table["game"],
                            "rank": mine_rank,
                            "their_rank": their_rank,
                            "outcome": outcome,
                        }
                    )
    rows = [
        {
            "username": me,
            "cells": [None if me == other else met.get((me, other), []) for other in names],
        }
        for me in names
    ]
    return {"names": names, "rows": rows}


def seating_sheet(
    detail: dict[str, Any], result_url: Callable[[str], str]
) -> dict[str, Any] | None:
    """The newest seated round of an in-person tournament as it is printed (None before the
    first round): each table with its seats in seat order (the order of the scores), the
    address of its result page (``result_url`` of its code) and that address's QR code."""
    if not detail["rounds"]:
        return None
    latest = detail["rounds"][-1]
    tables = []
    for table in latest["tables"]:
        url = result_url(table["code"])
        label = f"QR code of table {table['number']}'s result page"
        tables.append(
            {
                **table,
                "url": url,
                "short_url": url.split("://", 1)[-1],
                "qr": qr_svg(url, label=label),
                "sheet_qr": qr_svg(url, label=label, hook="data-sheet-qr"),
            }
        )
    hands = detail["hands_per_game"] or OPEN_ENDED_HANDS
    return {
        "number": latest["number"],
        "deadline": latest["deadline"],
        "byes": latest["byes"],
        "tables": tables,
        "hands": range(1, hands + 1),
    }


def live_version(detail: dict[str, Any], viewer: str | None, extra: Any) -> str:
    """A fingerprint of what the live part shows to this viewer: the same whenever the page
    would not change (the script asks with it and gets 304 until then)."""
    shown = {key: value for key, value in detail.items() if key != "audit"}
    blob = json.dumps([shown, viewer, extra], sort_keys=True, default=str)
    return hashlib.sha1(blob.encode(), usedforsecurity=False).hexdigest()[:16]
