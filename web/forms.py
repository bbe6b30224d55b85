"""The pages' forms: the field checks a person sees next to the field, before a service runs
(the services check again and have the last word, as they do for the API)."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.serializers import USERNAME_PATTERN
from clubs.models import Club
from web.presets import preset_choices


def preset_field() -> forms.ChoiceField:
    """A form's choice of a rules preset, as radio buttons (web/_preset_field.html draws each
    with its description and a link to its rules); the form sets the presets it offers."""
    return forms.ChoiceField(choices=[], initial="classic", label="Rules", widget=forms.RadioSelect)


USERNAME_HELP = "3 to 30 characters: letters, digits and _ . - (starting with a letter or digit)."


class SignupForm(forms.Form):
    username = forms.RegexField(
        regex=USERNAME_PATTERN,
        max_length=30,
        help_text=USERNAME_HELP,
        error_messages={"invalid": "Not a valid username. " + USERNAME_HELP},
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password = forms.CharField(
        min_length=8,
        max_length=200,
        help_text="At least 8 characters, not a common password, not all digits.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    email = forms.EmailField(
        required=False, max_length=254, help_text="Optional; never shown to others."
    )


class LoginForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password = forms.CharField(
        max_length=200, widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )


def add_domain_errors(form: forms.Form, fields: dict[str, Any] | None, message: str) -> None:
    """Show a service's refusal on the form: next to each field it names, else on top."""
    placed = False
    for name, problems in (fields or {}).items():
        if name in form.fields:
            for problem in problems if isinstance(problems, list) else [problems]:
                form.add_error(name, str(problem))
            placed = True
    if not placed:
        form.add_error(None, message)


HOUSE_BOT_CHOICES = [
    ("house:random", "House bot: random"),
    ("house:heuristic", "House bot: heuristic"),
    ("house:strong", "House bot: strong"),
]
DEFAULT = ("", "the preset's default")
MAX_SEATS = 4


class TableForm(forms.Form):
    """A new table: the rules preset and its options, rated, move time, who sits where."""

    preset = preset_field()
    max_hands = forms.IntegerField(
        required=False, min_value=1, max_value=200, help_text="End after this many hands."
    )
    target_score = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1000,
        help_text="For presets that end on a score.",
    )
    kitty_order = forms.ChoiceField(
        required=False,
        choices=[
            DEFAULT,
            ("discard_then_take", "discard, then take"),
            ("take_then_discard", "take, then discard"),
        ],
    )
    one_up_two_down = forms.ChoiceField(
        required=False,
        choices=[DEFAULT, ("simultaneous", "simultaneous"), ("sequential", "sequential")],
    )
    two_up_order = forms.ChoiceField(
        required=False,
        choices=[
            DEFAULT,
            ("higher_target_first", "higher target first"),
            ("most_up_first", "most up first"),
        ],
    )
    exchange_before_trump = forms.ChoiceField(
        required=False, choices=[DEFAULT, ("yes", "yes"), ("no", "no")]
    )
    exchange_cap = forms.IntegerField(
        required=False, min_value=0, max_value=20, help_text="Most cards one player trades."
    )
    deal_packet = forms.ChoiceField(
        required=False, choices=[DEFAULT, ("1", "one at a time"), ("4", "four at a time")]
    )
    rated = forms.BooleanField(required=False, initial=True)
    move_seconds = forms.IntegerField(
        min_value=1, max_value=86400, initial=60, label="Move time (seconds)"
    )
    my_seat = forms.ChoiceField(
        choices=[(str(s), f"Seat {s}") for s in range(MAX_SEATS)] + [("none", "I don't play")],
        initial="0",
        label="Your seat",
    )

    def __init__(
        self, *args: Any, presets: dict[str, int], own_bots: list[str], **kwargs: Any
    ) -> None:
        """``presets``: each preset's number of seats."""
        super().__init__(*args, **kwargs)
        self.seat_counts = presets
        self.fields["preset"].choices = preset_choices(list(presets))
        bots = HOUSE_BOT_CHOICES + [(b, f"My bot: {b}") for b in own_bots]
        for seat in range(MAX_SEATS):
            self.fields[f"seat_{seat}"] = forms.ChoiceField(
                required=False,
                choices=[("", "open for anyone"), *bots],
                label=f"Seat {seat}",
                help_text="Seat 3: four-handed only." if seat == 3 else "",
            )

    def seat_fields(self) -> list[forms.BoundField]:
        return [self[f"seat_{seat}"] for seat in range(MAX_SEATS)]

    def rules(self) -> dict[str, Any]:
        data = self.cleaned_data
        rules: dict[str, Any] = {"preset": data["preset"]}
        for name in ("max_hands", "target_score", "exchange_cap"):
            if data.get(name) is not None:
                rules[name] = data[name]
        for name in ("kitty_order", "one_up_two_down", "two_up_order"):
            if data.get(name):
                rules[name] = data[name]
        if data.get("exchange_before_trump"):
            rules["exchange_before_trump"] = data["exchange_before_trump"] == "yes"
        if data.get("deal_packet"):
            rules["deal_packet"] = int(data["deal_packet"])
        return rules

    def seat(self) -> int | None:
        chosen = self.cleaned_data["my_seat"]
        return None if chosen == "none" else int(chosen)

    def bots(self) -> dict[int, str]:
        return {
            seat: self.cleaned_data[f"seat_{seat}"]
            for seat in range(MAX_SEATS)
            if self.cleaned_data.get(f"seat_{seat}")
        }

    def clean(self) -> dict[str, Any] | None:
        data = super().clean()
        if data is None:
            return data
        seats = self.seat_counts.get(data.get("preset", ""), 3)
        for seat in range(seats, MAX_SEATS):
            if data.get(f"seat_{seat}"):
                self.add_error(f"seat_{seat}", f"This game has {seats} seats (0 to {seats - 1}).")
        if "my_seat" in data:
            mine = self.seat()
            if mine is not None and mine >= seats:
                self.add_error("my_seat", f"This game has {seats} seats (0 to {seats - 1}).")
            elif mine is not None and data.get(f"seat_{mine}"):
                self.add_error(
                    f"seat_{mine}",
                    f"You sit in seat {mine}, so a bot cannot sit there too: choose another "
                    "seat for the bot, or another seat for yourself.",
                )
        return data


class QuickPlayForm(forms.Form):
    """A seek (quick play): the rules preset, rated, move time, and the wait for house bots."""

    prefix = "quick"
    preset = preset_field()
    move_seconds = forms.IntegerField(
        min_value=1, max_value=86400, initial=60, label="Move time (seconds)"
    )
    rated = forms.BooleanField(required=False, initial=True)
    house_bots_after = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=3600,
        initial=30,
        label="House bots after (seconds)",
        help_text="Seats still empty after this long are filled with house bots; "
        "leave empty to wait for people.",
    )

    def __init__(self, *args: Any, presets: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices(presets)


class ChallengeForm(forms.Form):
    """A challenge to named players: who (a house bot may fill a seat), the rules preset (and
    a hand limit), rated, move time, how long it waits for answers."""

    opponent_1 = forms.CharField(max_length=150, label="Seat 1")
    opponent_2 = forms.CharField(max_length=150, label="Seat 2")
    opponent_3 = forms.CharField(
        max_length=150, required=False, label="Seat 3", help_text="Four-handed only."
    )
    preset = preset_field()
    max_hands = forms.IntegerField(
        required=False, min_value=1, max_value=200, help_text="End after this many hands."
    )
    rated = forms.BooleanField(required=False, initial=True)
    move_seconds = forms.IntegerField(
        min_value=1, max_value=86400, initial=60, label="Move time (seconds)"
    )
    expires_in = forms.IntegerField(
        min_value=1, max_value=86400, initial=300, label="Wait for answers (seconds)"
    )

    def __init__(self, *args: Any, presets: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"].choices = preset_choices(presets)
        for name in ("opponent_1", "opponent_2", "opponent_3"):
            self.fields[name].widget.attrs["placeholder"] = "username or house:strong"

    def to(self) -> list[str]:
        names = [self.cleaned_data[f"opponent_{n}"].strip() for n in (1, 2, 3)]
        return [name for name in names if name]

    def rules(self) -> dict[str, Any]:
        rules: dict[str, Any] = {"preset": self.cleaned_data["preset"]}
        if self.cleaned_data.get("max_hands") is not None:
            rules["max_hands"] = self.cleaned_data["max_hands"]
        return rules


#: A short game against the computer: the classic rules over this many hands.
SHORT_GAME_HANDS = 3


class ComputerGameForm(forms.Form):
    """``/play/computer``: a full classic game (until someone takes 12 tricks in a hand), or
    a short one of :data:`SHORT_GAME_HANDS` hands."""

    length = forms.ChoiceField(choices=[("full", "full"), ("short", "short")], required=False)

    def rules(self) -> dict[str, Any]:
        if self.cleaned_data.get("length") == "short":
            return {"preset": "classic", "max_hands": SHORT_GAME_HANDS}
        return {"preset": "classic"}


JOINING_HELP = "Open: anyone joins. Request: an admin approves. Invite: only the invited join."


class ClubSettingsForm(forms.Form):
    """What a club's admin changes: the name, the description and how people join."""

    name = forms.CharField(max_length=100)
    description = forms.CharField(
        max_length=2000, required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    joining = forms.ChoiceField(choices=Club.Joining.choices, help_text=JOINING_HELP)


class ClubForm(ClubSettingsForm):
    """A new club: its settings and an optional slug (made from the name when left out)."""

    slug = forms.SlugField(
        max_length=50,
        required=False,
        help_text="Its address, /clubs/SLUG; left out, it is made from the name.",
    )
    field_order = ["name", "slug", "description", "joining"]


class LeagueForm(forms.Form):
    """A club's new league: the sum of every night, or each player's best nights."""

    name = forms.CharField(max_length=100)
    scoring = forms.ChoiceField(
        choices=[("sum", "sum of every night"), ("best", "best nights only")]
    )
    best = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1000,
        help_text="With best nights only: how many of each player's nights count.",
    )
