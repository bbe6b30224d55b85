"""Lists in pages: ``{"count", "next", "previous", "results"}`` with ``?page=`` (50 a page)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.core.paginator import Paginator
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class PageNumbers(PageNumberPagination):
    """``?page=`` as the schema has it: a number from 1, the first page when absent. Anything
    else is no page (404 "Invalid page."), where the REST framework read an empty ``?page=``
    as the first page and ``?page=last`` as the last."""

    last_page_strings = ()

    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> Any:
        return request.query_params.get(self.page_query_param, 1)


def paginate(
    view: APIView,
    request: Request,
    items: Any,
    *,
    shown: Callable[[list[Any]], Sequence[Any]] = list,
) -> Response:
    """The page ``?page=`` asks for of ``items`` (a queryset or a list), each page's items
    shown by ``shown`` (called once with the page's items)."""
    paginator = PageNumbers()
    page = paginator.paginate_queryset(items, request, view=view)
    return paginator.get_paginated_response(shown(list(page or [])))


def paginated(item: type[serializers.Serializer[Any]]) -> serializers.Serializer[Any]:
    """The documented shape of a paginated list of ``item``: {count, next, previous, results}."""
    name = item.__name__.removesuffix("Serializer")
    return inline_serializer(
        f"Paginated{name}List",
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
        },
    )
