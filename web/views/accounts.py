"""Sign up, log in, log out: a session cookie for the pages, and an API token for the
browser session so that the page reaches the API with that cookie (accounts.auth)."""

from __future__ import annotations

from django.contrib.auth import login, logout
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services
from accounts.auth import SESSION_TOKEN_KEY
from accounts.models import Player
from core.errors import DomainError
from web.forms import LoginForm, SignupForm, add_domain_errors
from web.people import mark_new_person, signed_in
from web.returns import return_path


def start_session(request: HttpRequest, player: Player) -> None:
    """Log ``player`` into this browser session, with the session's own API token."""
    login(request, player, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_TOKEN_KEY] = services.open_browser_session(player).pk


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    guest = _guest(request)
    if request.method == "POST" and form.is_valid():
        try:
            if guest is not None:
                # A guest signs up in place: its games stay on the new profile.
                player = services.convert_guest(
                    guest,
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password"],
                    email=form.cleaned_data["email"],
                )
            else:
                player = services.create_person(
                    form.cleaned_data["username"],
                    password=form.cleaned_data["password"],
                    email=form.cleaned_data["email"],
                )
        except DomainError as error:
            fields = error.details.get("fields")
            if error.code == "username_taken":
                fields = {"username": [error.message]}
            add_domain_errors(form, fields, error.message)
        else:
            if guest is not None:
                # The guest's session token may only play: a member's session gets its own.
                services.close_browser_session(token_id=request.session.get(SESSION_TOKEN_KEY))
            start_session(request, player)
            mark_new_person(request)
            return HttpResponseRedirect(return_path(request, "/"))
    status = 400 if form.errors else 200
    return render(
        request,
        "web/accounts/signup.html",
        {"form": form, "next": return_path(request, "/"), "guest": guest},
        status=status,
    )


def _guest(request: HttpRequest) -> Player | None:
    person = signed_in(request)
    return person if person is not None and person.is_guest else None


@require_http_methods(["GET", "POST"])
def log_in(request: HttpRequest) -> HttpResponse:
    form = LoginForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            player = services.person_with_password(
                form.cleaned_data["username"], password=form.cleaned_data["password"]
            )
        except DomainError as error:
            form.add_error("password", error.message)
        else:
            start_session(request, player)
            return HttpResponseRedirect(return_path(request, "/"))
    status = 400 if form.errors else 200
    return render(
        request,
        "web/accounts/login.html",
        {"form": form, "next": return_path(request, "/")},
        status=status,
    )


@require_POST
def log_out(request: HttpRequest) -> HttpResponse:
    services.close_browser_session(token_id=request.session.get(SESSION_TOKEN_KEY))
    logout(request)
    return HttpResponseRedirect("/")
