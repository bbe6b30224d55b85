"""The clubs API (docs/clubs.md): clubs, joining, requests, invitations, members and
roles. Views validate, call one service or selector, and shape the
answer; who may do what is checked in the services."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import caller, require_scope
from accounts.models import ApiToken
from api.pagination import paginate, paginated
from api.requests import no_body, valid
from api.schema import ERROR
from clubs import selectors, services
from clubs.models import JoinRequest
from clubs.serializers import (
    ClubChangesSerializer,
    ClubInvitationSerializer,
    ClubSerializer,
    ClubSettingsSerializer,
    InviteSerializer,
    JoinSerializer,
    MemberSerializer,
    PendingJoinSerializer,
    RoleSerializer,
)

CanPlay = require_scope(ApiToken.Scope.PLAY)
CanOrganise = require_scope(ApiToken.Scope.ORGANISE)
NO_CONTENT = OpenApiResponse(description="done")


def _club(slug: str, status: int = 200) -> Response:
    return Response(selectors.club_data(selectors.club(slug)), status=status)


def _member(slug: str, username: str, status: int) -> Response:
    found = selectors.club(slug)
    membership = next(m for m in selectors.members_of(found) if m.player.username == username)
    return Response(selectors.members_shown([membership])[0], status=status)


class ClubsView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "POST" else []

    @extend_schema(operation_id="clubs_list", responses={200: paginated(ClubSerializer)})
    def get(self, request: Request) -> Response:
        """The clubs.

        By name, paginated.
        """
        return paginate(self, request, selectors.clubs(), shown=selectors.clubs_shown)

    @extend_schema(
        operation_id="clubs_create",
        request=ClubSettingsSerializer,
        responses={201: ClubSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 409: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a club.

        The caller owns it → 201 the club; 409 `slug_taken`.
        """
        data = valid(ClubSettingsSerializer, request.data)
        found = services.create_club(
            caller(request),
            name=data["name"],
            joining=data["joining"],
            slug=data.get("slug"),
            description=data.get("description", ""),
        )
        return _club(found.slug, 201)


class ClubView(APIView):
    def get_permissions(self) -> list[Any]:
        return [CanOrganise()] if self.request.method == "PATCH" else []

    @extend_schema(operation_id="clubs_get", responses={200: ClubSerializer, 404: ERROR})
    def get(self, request: Request, slug: str) -> Response:
        """One club."""
        return _club(slug)

    @extend_schema(
        operation_id="clubs_update",
        request=ClubChangesSerializer,
        responses={200: ClubSerializer, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def patch(self, request: Request, slug: str) -> Response:
        """Change a club.

        Its owner or an admin changes `name`, `description` or `joining` → 200 the club.
        """
        changes = valid(ClubChangesSerializer, request.data)
        services.update_club(caller(request), slug=slug, changes=changes)
        return _club(slug)


class JoinView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="clubs_join",
        request=JoinSerializer,
        responses={
            201: MemberSerializer,
            202: PendingJoinSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Join a club.

        The caller, or its bot account `player`: an open club → 201 the member; a club taking
        requests → 202 the pending request (its admins get a `club_request` stream line); a
        club by invitation → 201 if invited, else 403 `invitation_required`. 409
        `already_member`, `already_requested`.
        """
        data = valid(JoinSerializer, request.data)
        joined = services.join(caller(request), slug=slug, username=data.get("player"))
        if isinstance(joined, JoinRequest):
            return Response(selectors.request_data(joined), status=202)
        return _member(slug, joined.player.username, 201)


class RequestsView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_requests_list",
        responses={200: paginated(PendingJoinSerializer), 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        """The pending requests to join.

        The owner or an admin; oldest first, paginated.
        """
        found = selectors.club(slug)
        selectors.require_admin(found, caller(request))
        rows = selectors.pending_requests(found)
        return paginate(self, request, rows, shown=selectors.requests_shown)


class ApproveView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_requests_approve",
        request=None,
        responses={201: MemberSerializer, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, slug: str, username: str) -> Response:
        """Approve a request to join.

        The owner or an admin → 201 the new member.
        """
        no_body(request.data)
        services.approve_request(caller(request), slug=slug, username=username)
        return _member(slug, username, 201)


class DeclineRequestView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_requests_decline",
        request=None,
        responses={204: NO_CONTENT, 401: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, slug: str, username: str) -> Response:
        """Decline a request to join.

        The owner or an admin → 204.
        """
        no_body(request.data)
        services.decline_request(caller(request), slug=slug, username=username)
        return Response(status=204)


class InvitationsView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_invitations_create",
        request=InviteSerializer,
        responses={
            201: ClubInvitationSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Invite someone.

        The owner or an admin invites a person or a bot account `username` → 201 the
        invitation; the person (the bot's owner) gets a `club_invite` stream line and answers
        with `join` or `invitations/decline`. 409 `already_member`, `already_invited`.
        """
        data = valid(InviteSerializer, request.data)
        invitation = services.invite(caller(request), slug=slug, username=data["username"])
        return Response(selectors.invitation_data(invitation), status=201)


class DeclineInvitationView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="clubs_invitations_decline",
        request=JoinSerializer,
        responses={204: NO_CONTENT, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, slug: str) -> Response:
        """Decline an invitation.

        The caller's, or its bot account `player`'s → 204; 409 `not_invited`.
        """
        data = valid(JoinSerializer, request.data)
        services.decline_invitation(caller(request), slug=slug, username=data.get("player"))
        return Response(status=204)


class LeaveView(APIView):
    permission_classes = [CanPlay]

    @extend_schema(
        operation_id="clubs_leave",
        request=JoinSerializer,
        responses={204: NO_CONTENT, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, slug: str) -> Response:
        """Leave a club.

        The caller, or its bot account `player` → 204; 403 `not_a_member`; the owner gets 409
        `owner_cannot_leave` until ownership has passed to another member.
        """
        data = valid(JoinSerializer, request.data)
        services.leave(caller(request), slug=slug, username=data.get("player"))
        return Response(status=204)


class MembersView(APIView):
    @extend_schema(
        operation_id="clubs_members",
        responses={200: paginated(MemberSerializer), 404: ERROR},
    )
    def get(self, request: Request, slug: str) -> Response:
        """A club's members.

        The owner, the admins, then the others, each by joining time, paginated: `{username,
        is_bot, role, joined_at, ratings}` (`ratings`: the display rating in each pool).
        """
        rows = selectors.members_of(selectors.club(slug))
        return paginate(self, request, rows, shown=selectors.members_shown)


class MemberView(APIView):
    permission_classes = [CanOrganise]

    @extend_schema(
        operation_id="clubs_members_role",
        request=RoleSerializer,
        responses={
            200: MemberSerializer,
            400: ERROR,
            401: ERROR,
            403: ERROR,
            404: ERROR,
            409: ERROR,
        },
    )
    def patch(self, request: Request, slug: str, username: str) -> Response:
        """Change a member's role.

        The owner makes a member an `admin` or a `member`, or passes ownership with `owner`
        (the old owner becomes an admin) → 200 the member; 403 `not_club_owner`.
        """
        role = valid(RoleSerializer, request.data)["role"]
        services.set_role(caller(request), slug=slug, username=username, role=role)
        return _member(slug, username, 200)

    @extend_schema(
        operation_id="clubs_members_remove",
        responses={204: NO_CONTENT, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def delete(self, request: Request, slug: str, username: str) -> Response:
        """Remove a member.

        The owner or an admin → 204 (an admin: by the owner only; the owner: never).
        """
        services.remove_member(caller(request), slug=slug, username=username)
        return Response(status=204)
