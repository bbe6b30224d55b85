"""Creating and configuring a tournament: its settings (checked here) and its
co-organisers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import Player
from accounts.services import HOUSE_BOTS, refuse_guest
from core.errors import Conflict, Invalid, NotFound
from games.tables import parse_rules
from tournaments.models import Tournament
from tournaments.services.changes import (
    audit,
    changed,
    locked,
    require_organiser,
    require_registering,
)

#: Fields an organiser may set at creation and change until the start.
SETTINGS = (
    "name",
    "rules",
    "format",
    "rounds",
    "hands_per_game",
    "move_seconds",
    "round_minutes",
    "starts_at",
    "rated",
    "max_players",
    "min_rating",
    "max_rating",
    "humans_allowed",
    "bots_allowed",
    "odd_count",
    "filler_bot",
    "points_by_rank",
    "advance_per_table",
    "duplicate",
)


def game_rules(*, rules: object, hands_per_game: int | None) -> dict[str, Any]:
    """The rules of every game: the preset and options, with ``max_hands`` from
    ``hands_per_game`` (the preset's own end still applies)."""
    data = parse_rules(rules).to_dict()
    if hands_per_game:
        data["max_hands"] = hands_per_game
    parsed = parse_rules(data)
    if parsed.players != 3:
        message = "Tournaments are for 3-seat tables."
        raise Invalid("invalid_rules", message, fields={"rules": [message]})
    return parsed.to_dict()


def _check_settings(values: Mapping[str, Any]) -> None:
    game_rules(rules=values["rules"], hands_per_game=values["hands_per_game"])
    low, high = values["min_rating"], values["max_rating"]
    if low is not None and high is not None and low > high:
        message = "min_rating is above max_rating."
        raise Invalid("invalid", message, fields={"min_rating": [message]})
    if not values["humans_allowed"] and not values["bots_allowed"]:
        message = "Nobody could enter: allow humans, bots or both."
        raise Invalid("invalid", message, fields={"humans_allowed": [message]})
    if values["filler_bot"] not in HOUSE_BOTS:
        message = "filler_bot must be a house bot."
        raise Invalid(
            "unknown_bot", message, known=list(HOUSE_BOTS), fields={"filler_bot": [message]}
        )
    if values["format"] == Tournament.Format.KNOCKOUT and values["rounds"] is not None:
        message = "A knockout has as many rounds as it takes; omit rounds."
        raise Invalid("invalid", message, fields={"rounds": [message]})
    if values["format"] == Tournament.Format.KNOCKOUT and values["duplicate"]:
        message = (
            "A knockout goes by the ranks at each table: duplicate is for swiss and round robin."
        )
        raise Invalid("invalid", message, fields={"duplicate": [message]})


def create_tournament(creator: Player, *, values: Mapping[str, Any]) -> Tournament:
    """A new tournament organised by ``creator``, with the :data:`SETTINGS` in ``values``
    (the others keep their defaults)."""
    refuse_guest(creator, doing="organise tournaments")
    fields = {key: values[key] for key in SETTINGS if key in values}
    tournament = Tournament(created_by=creator, **fields)
    _check_settings({key: getattr(tournament, key) for key in SETTINGS})
    tournament.rules = parse_rules(tournament.rules).to_dict()
    with transaction.atomic():
        tournament.save()
        audit(tournament, creator, "created", settings=_settings_log(tournament))
    return tournament


def _settings_log(tournament: Tournament) -> dict[str, Any]:
    out = {key: getattr(tournament, key) for key in SETTINGS}
    if isinstance(out["starts_at"], datetime):
        out["starts_at"] = out["starts_at"].isoformat()
    return out


def update_tournament(
    actor: Player, *, tournament_id: int, changes: Mapping[str, Any]
) -> Tournament:
    """An organiser changes some of the :data:`SETTINGS` before the start."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        require_registering(tournament)
        altered = {key: changes[key] for key in SETTINGS if key in changes}
        for key, value in altered.items():
            setattr(tournament, key, value)
        _check_settings({key: getattr(tournament, key) for key in SETTINGS})
        tournament.rules = parse_rules(tournament.rules).to_dict()
        tournament.save()
        logged = _settings_log(tournament)
        audit(tournament, actor, "configured", changes={k: logged[k] for k in altered})
        changed(tournament)
    return tournament


def add_co_organiser(actor: Player, *, tournament_id: int, username: str) -> Player:
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        player = _human(username)
        if player.pk == tournament.created_by_id:
            raise Conflict("already_organiser", f"'{username}' created the tournament.")
        tournament.co_organisers.add(player)
        audit(tournament, actor, "co_organiser_added", username=player.username)
        changed(tournament)
    return player


def remove_co_organiser(actor: Player, *, tournament_id: int, username: str) -> None:
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        player = tournament.co_organisers.filter(username=username).first()
        if player is None:
            raise NotFound("not_found", f"'{username}' is not a co-organiser.")
        tournament.co_organisers.remove(player)
        audit(tournament, actor, "co_organiser_removed", username=username)
        changed(tournament)


def _human(username: str) -> Player:
    player = Player.objects.filter(username=username, is_active=True, is_bot=False).first()
    if player is None:
        raise NotFound("not_found", f"No human player '{username}'.")
    return player
