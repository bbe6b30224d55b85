"""My bots: a person's own bot accounts with their ratings and recent games, and the form
that creates one (its token is shown once, on the answer to the form, and never again)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.models import Player
from bots import selectors as bots
from bots.models import BotAccount
from bots.services import create_bot_account
from core.errors import DomainError
from games import selectors as games
from web.first_bot import FIRST_BOT, SDK_INSTALL
from web.forms import add_domain_errors
from web.people import signed_in
from web.player_forms import BotForm

RECENT_GAMES = 5


def _bot_rows(owner: Player) -> list[dict[str, Any]]:
    """Each of ``owner``'s bots with its profile (ratings included) and latest games."""
    rows = []
    for bot in bots.own_bots(owner):
        name = bot["username"]
        history = games.player_history(name, preset=None, result=None)[:RECENT_GAMES]
        rows.append(
            {
                **bot,
                "profile": games.player_profile(name),
                "recent": games.history_entries(list(history)),
            }
        )
    return rows


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def my_bots(request: HttpRequest) -> HttpResponse:
    person = signed_in(request)
    assert person is not None
    created: dict[str, Any] | None = None
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            account, key = create_bot_account(
                person,
                username=data["username"],
                mode=data["mode"],
                webhook_url=data["webhook_url"],
            )
        except DomainError as error:
            fields = error.details.get("fields")
            if error.code == "username_taken":
                fields = {"username": [error.message]}
            add_domain_errors(form, fields, error.message)
        else:
            # Shown on this answer only: not stored, not put in a redirect's URL.
            created = {
                "username": account.player.username,
                "token": key,
                "mode": account.mode,
                "webhook_secret": account.webhook_secret
                if account.mode == BotAccount.Mode.WEBHOOK
                else "",
            }
            form = BotForm()
    context = {
        "form": form,
        "created": created,
        "bots": _bot_rows(person),
        "person": person,
        # The next steps shown with a new bot's token.
        "sdk_install": SDK_INSTALL,
        "first_bot": FIRST_BOT,
        "server": request.build_absolute_uri("/").rstrip("/"),
    }
    return render(request, "web/bots/bots.html", context, status=400 if form.errors else 200)
