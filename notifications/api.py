"""The notifications API (docs/api.md "Notifications"): what waits on the caller."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import IsAuthenticated, caller
from api.schema import ERROR
from notifications import selectors
from notifications.serializers import NotificationsSerializer


class NotificationsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="notifications_list",
        responses={200: NotificationsSerializer, 401: ERROR},
    )
    def get(self, request: Request) -> Response:
        """What waits on the caller.

        The games whose turn is the caller's, the tournament rounds that seated it (online
        or in person) and are not finished, the challenges waiting on its answer, the
        tournament invitations and the club invitations it answers (its own, and its bot
        accounts'), and the pending requests to join the clubs it owns or administers, in
        that order: what the web pages' bell lists. Only ever the caller's own.
        """
        return Response(selectors.notifications(caller(request)))
