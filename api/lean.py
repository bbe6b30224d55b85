"""Lean views: the hot endpoints (``/me``, a game, an action) without the REST framework's
dispatch, with its behaviour.

A REST framework view spent much of a request's CPU on its own machinery (its ``Request``,
negotiation, authenticator and throttle objects, the renderer's context, the cycles left
behind) around work that is a token lookup, a rate-limit count and one selector.
A lean view does the same steps, in the same order, with the same functions:

1. content negotiation (406 ``not_acceptable``; an ``Accept`` of JSON or anything, the
   common case, is decided without the framework's parser of media types);
2. authentication, by the REST framework's configured authenticators (``accounts.auth``'s:
   a token, or a browser session; named in settings, since api sits below accounts);
3. the permissions of its documentation class (``permission_classes``: the schema shows
   them, so what is documented is what is checked);
4. the rate limit (the REST framework's throttle classes, so anonymous callers are counted
   by the same address);
5. the handler: one service or selector; a body is parsed by ``api.rendering.JSONParser``
   under the framework's rules (an empty body is ``{}``; another type than JSON is a 415);

and answers every error through ``api.errors.exception_handler`` (the one status table) and
encodes the response once, with ``api.rendering.JSONRenderer``. The headers are the REST
framework's (``Allow``; ``WWW-Authenticate`` on a 401, ``Retry-After`` on a 429).

The documentation class stays the endpoint's OpenAPI source (the view's ``cls``, as the
async views have it); a method it has and the lean view has not (``OPTIONS``, a method not
allowed) is answered by that class through the REST framework, as before.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from api.errors import exception_handler
from api.rendering import JSONParser, JSONRenderer

JSON = "application/json"
#: ``Accept`` headers that pick the JSON renderer as the framework's negotiation would
#: (``api.rendering.JSONRenderer`` is the only renderer); any other goes through it.
_ACCEPTS_JSON = frozenset({"", "*/*", JSON, "application/*"})

_renderer = JSONRenderer()
_parser = JSONParser()


@dataclass
class Call:
    """One request to a lean view: the request, and its caller as authentication found it
    (``player`` and ``token`` None for an anonymous caller)."""

    request: HttpRequest
    # The account and token models live above this layer (accounts): typed by the handlers.
    player: Any
    token: Any

    # The REST framework's permissions and throttles read these of its request.
    @property
    def auth(self) -> Any:
        return self.token

    @property
    def user(self) -> Any:
        return self.player

    @property
    def META(self) -> dict[str, Any]:  # the name they read
        return self.request.META

    @property
    def _request(self) -> HttpRequest:  # what an authenticator reads of its request
        return self.request

    @property
    def headers(self) -> Any:
        return self.request.headers

    @property
    def method(self) -> str:
        return self.request.method or ""

    def data(self) -> Any:
        """The body, decoded: ``{}`` when empty; a 415 when not JSON, a 400
        ``malformed_json`` when not valid (as the REST framework's ``request.data``)."""
        request = self.request
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length == 0:
            return {}
        if request.content_type == JSON and request.content_params in ({}, {"charset": "utf-8"}):
            return _parser.parse(io.BytesIO(request.body))
        # Another spelling of the type, another charset or none: the framework decides.
        return Request(request, parsers=[_parser]).data


Handler = Callable[..., tuple[int, Any]]


def lean_view(doc: type[APIView], **handlers: Handler) -> Callable[..., HttpResponse]:
    """A view answering with ``handlers`` (by lower-case method name: ``get=``, ``post=``;
    each takes the :class:`Call` and the path's arguments and returns the status and the
    data), documented and checked as ``doc``, the REST framework class it replaces.
    ``HEAD`` is answered as ``GET``, as Django's views do."""
    if "get" in handlers:
        handlers.setdefault("head", handlers["get"])
    permissions = [permission() for permission in doc.permission_classes]
    authenticators = [authenticator() for authenticator in doc.authentication_classes]
    allow = ", ".join(
        method.upper()
        for method in doc.http_method_names
        if hasattr(doc, method) or (method == "head" and hasattr(doc, "get"))
    )
    framework_view = doc.as_view()

    @csrf_exempt
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        handler = handlers.get((request.method or "").lower())
        if handler is None:
            return framework_view(request, **kwargs)
        media_type = JSON
        try:
            media_type = _negotiated(request)
            call = _authenticated(request, authenticators)
            for permission in permissions:
                if not permission.has_permission(call, None):
                    raise exceptions.PermissionDenied()
            # A throttle keeps its wait between its two calls: one a request, as the framework.
            throttles = [throttle() for throttle in doc.throttle_classes]
            waits = [t.wait() for t in throttles if not t.allow_request(call, None)]
            if waits:
                raise exceptions.Throttled(max((w for w in waits if w is not None), default=None))
            status, data = handler(call, **kwargs)
            headers: dict[str, str] = {}
        except Exception as error:  # the error table decides, or re-raises
            answer = exception_handler(error, {"request": request, "view": None})
            if answer is None:
                raise
            status, data = answer.status_code, answer.data
            headers = {name: value for name, value in answer.items() if name != "Content-Type"}
        response = HttpResponse(
            _renderer.render(data, media_type, {}), status=status, content_type=JSON
        )
        response["Allow"] = allow
        for name, value in headers.items():
            response[name] = value
        return response

    view.cls = doc  # the schema's source (drf-spectacular)
    view.initkwargs = {}
    return view


def _authenticated(request: HttpRequest, authenticators: list[Any]) -> Call:
    """The request's caller, as the first of ``authenticators`` that recognises it finds it
    (the REST framework's order; none: anonymous)."""
    call = Call(request, None, None)
    for authenticator in authenticators:
        found = authenticator.authenticate(call)
        if found is not None:
            call.player, call.token = found
            break
    return call


def _negotiated(request: HttpRequest) -> str:
    """The media type the response is rendered with; 406 if the ``Accept`` header takes no
    JSON (the REST framework's ``DefaultContentNegotiation``, for all but the common case)."""
    accept = request.META.get("HTTP_ACCEPT", "").strip()
    if accept in _ACCEPTS_JSON and api_settings.URL_FORMAT_OVERRIDE not in request.GET:
        return JSON
    _, media_type = DefaultContentNegotiation().select_renderer(Request(request), [_renderer])
    return str(media_type)
