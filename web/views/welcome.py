"""Playing at once: a game against the computer (``/play/computer``) and the coached first
game (``/learn``), for a member or a visitor. A visitor plays as a guest: an account made
for the browser's session (accounts.services.create_guest), kept if they sign up from it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services as accounts
from accounts.models import Player
from core.errors import DomainError, RateLimited
from games import selectors as games
from games import tables
from web.forms import SHORT_GAME_HANDS, ComputerGameForm
from web.people import signed_in
from web.table import table_context
from web.views.accounts import start_session

#: The lesson: the classic game over two hands (the second opens with the exchange), dealt
#: from one fixed seed, so that every newcomer gets the same good first hand as dealer. The
#: seed is public (it is here), which is harmless: only house bots sit at the table, the game
#: is unrated, and the coach reads nothing but the person's own view.
LESSON_RULES = {"preset": "classic", "max_hands": 2}
LESSON_SEED = "lesson-14"
#: The session's record of the person's lesson game.
LESSON_KEY = "web.lesson_game"


def _person_or_guest(request: HttpRequest) -> Player:
    """The signed-in person; for a visitor, a new guest logged into this session."""
    person = signed_in(request)
    if person is not None:
        return person
    guest = accounts.create_guest(address=request.META.get("REMOTE_ADDR", ""))
    start_session(request, guest)
    return guest


def _refused(request: HttpRequest, template: str, error: DomainError) -> HttpResponse:
    status = 429 if isinstance(error, RateLimited) else 403
    context = {"error": error.message, "short_hands": SHORT_GAME_HANDS}
    return render(request, template, context, status=status)


@require_http_methods(["GET", "POST"])
def play_computer(request: HttpRequest) -> HttpResponse:
    """GET: what a game against the computer is, and its buttons. POST: seat the person (a
    visitor as a guest) at a new classic unrated table with two house bots (a full game, or
    a short one: ``length``); go to it."""
    template = "web/welcome/computer.html"
    form = ComputerGameForm(request.POST if request.method == "POST" else None)
    if request.method == "GET" or not form.is_valid():
        status = 200 if request.method == "GET" else 400
        return render(request, template, {"short_hands": SHORT_GAME_HANDS}, status=status)
    try:
        game = tables.start_computer_game(_person_or_guest(request), rules=form.rules())
    except DomainError as error:
        return _refused(request, template, error)
    return HttpResponseRedirect(f"/games/{game.pk}")


@never_cache
@require_http_methods(["GET", "POST"])
def learn(request: HttpRequest) -> HttpResponse:
    """GET: the lesson's game with its coach, or the start of the lesson when there is none
    in this session. POST: a new lesson game (a visitor as a guest)."""
    template = "web/welcome/learn_start.html"
    if request.method == "POST":
        try:
            game = tables.start_computer_game(
                _person_or_guest(request), rules=LESSON_RULES, deal_seed=LESSON_SEED
            )
        except DomainError as error:
            return _refused(request, template, error)
        request.session[LESSON_KEY] = game.pk
        return HttpResponseRedirect("/learn")
    person = signed_in(request)
    game_id = request.session.get(LESSON_KEY)
    if person is None or not isinstance(game_id, int):
        return render(request, template, {})
    try:
        view = games.game_view_for(game_id, person)
    except (DomainError, Http404):
        return render(request, template, {})
    if view.get("your_seat") is None:
        return render(request, template, {})
    context = {**table_context(view), "short_hands": SHORT_GAME_HANDS}
    return render(request, "web/welcome/learn.html", context)


@login_required
@require_POST
def hints(request: HttpRequest) -> HttpResponse:
    """Switch the table's hints for the person's first games on or off (``on``: 1 or 0)."""
    person = signed_in(request)
    assert person is not None
    accounts.set_hints(person, on=request.POST.get("on") == "1")
    wanted = request.POST.get("next") or "/"
    safe = url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()})
    return HttpResponseRedirect(wanted if safe else "/")
