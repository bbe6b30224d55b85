"""The forms of the leaderboard, profile and "My bots" pages (the same checks as the API's
``GET /players/{u}/games`` filters and ``POST /bots``)."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.serializers import USERNAME_PATTERN
from bots.models import BotAccount
from games.engine import PRESETS
from ratings.pools import POOL_PRESETS
from web.forms import USERNAME_HELP

RESULTS = [("win", "won"), ("shared", "shared first"), ("loss", "lost")]


def pool_choices() -> list[tuple[str, str]]:
    """The rating pools, with the presets each one holds: ``(pool, "preset, preset")``."""
    return [(pool, ", ".join(presets)) for pool, presets in POOL_PRESETS.items()]


class HistoryFilterForm(forms.Form):
    """``?rules=&result=`` of a match history: a preset and a result, both optional."""

    rules = forms.ChoiceField(
        required=False,
        choices=[("", "any rules"), *((p, p) for p in PRESETS)],
        error_messages={"invalid_choice": "Not a rules preset."},
    )
    result = forms.ChoiceField(
        required=False,
        choices=[("", "any result"), *RESULTS],
        error_messages={"invalid_choice": "The result is won, shared first or lost."},
    )

    def preset(self) -> str | None:
        return self.cleaned_data.get("rules") or None

    def outcome(self) -> str | None:
        return self.cleaned_data.get("result") or None


class BotForm(forms.Form):
    """A new bot account: its name, and how it learns that it is to act."""

    username = forms.RegexField(
        regex=USERNAME_PATTERN,
        max_length=30,
        help_text=USERNAME_HELP,
        error_messages={"invalid": "Not a valid username. " + USERNAME_HELP},
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        label="Bot's username",
    )
    mode = forms.ChoiceField(
        choices=[
            (BotAccount.Mode.POLL, "poll: the bot asks the API for its turns"),
            (BotAccount.Mode.WEBHOOK, "webhook: we POST each turn to the bot's URL"),
        ],
        initial=BotAccount.Mode.POLL,
        label="Mode",
    )
    webhook_url = forms.URLField(
        required=False,
        max_length=500,
        assume_scheme="https",
        label="Webhook URL",
        help_text="Only for webhook mode: where each turn is sent (https://...).",
        widget=forms.URLInput(attrs={"placeholder": "https://bot.example.org/turn"}),
    )

    def clean(self) -> dict[str, Any] | None:
        data = super().clean()
        if data is not None and data.get("mode") != BotAccount.Mode.WEBHOOK:
            data["webhook_url"] = ""
        return data
