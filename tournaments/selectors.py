"""Reads: tournaments, rounds, tables, standings and the audit log, as the API shows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from accounts.models import Player
from core.errors import NotFound
from core.snapshot import snapshot
from games.models import Game
from games.selectors import iso
from tournaments import seating
from tournaments.models import (
    AuditEntry,
    Entrant,
    ForbiddenPair,
    Invitation,
    Result,
    Round,
    Tournament,
    TournamentTable,
)
from tournaments.results import ranks_of
from tournaments.standings import Entry, Line, RoundResult, rank_standings


class RatingSource(Protocol):
    """Called with players, the tournament's rules and its venue (an in-person night reads
    the ratings of games at real tables); returns {player_id: rating}, the unrated left out."""

    def __call__(
        self, players: Sequence[Player], rules: dict[str, Any], *, venue: str = ...
    ) -> dict[int, float]: ...


#: Where seeding ratings come from (the ratings app can register one).
RATING_SOURCES: list[RatingSource] = []
#: How a rating is shown (the ratings app registers its display rating): rating → integer.
RATING_DISPLAYS: list[Callable[[float], int]] = []


def tournaments(status: str | None) -> QuerySet[Tournament]:
    rows = Tournament.objects.select_related("created_by", "club").annotate(
        entrant_count=Count("entrants")
    )
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-created_at", "-pk")


def game_place(game_id: int) -> dict[str, Any] | None:
    """Where a game stands in a tournament, or None for a game of no tournament: the
    tournament's id, name and status, the round and table, and the entrants' names by seat
    (``house:random #2``; a filler house bot keeps its account's name)."""
    table = (
        TournamentTable.objects.filter(game_id=game_id).select_related("round__tournament").first()
    )
    if table is None:
        return None
    tournament = table.round.tournament
    entrant_ids = [e for e in table.entrant_ids() if e is not None]
    names = dict(Entrant.objects.filter(pk__in=entrant_ids).values_list("pk", "name"))
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "status": tournament.status,
        "round": table.round.number,
        "table": table.number,
        "seat_names": {
            s["seat"]: names[s["entrant"]] for s in table.seats if s["entrant"] in names
        },
    }


def deals_embargoed(game: Game) -> bool:
    """Whether ``game`` belongs to a duplicate tournament's round in which a game is still
    being played (its deals, then, are those being played): ``games.selectors.EMBARGOES``."""
    round_of_game = TournamentTable.objects.filter(
        game_id=game.pk, round__tournament__duplicate=True
    ).values("round_id")
    return TournamentTable.objects.filter(
        round_id__in=round_of_game, game__status=Game.Status.PLAYING
    ).exists()


def tournament(tournament_id: int) -> Tournament:
    return get_object_or_404(
        Tournament.objects.select_related("created_by", "club"), pk=tournament_id
    )


def is_organiser(tournament: Tournament, player: Player) -> bool:
    return (
        tournament.created_by_id == player.pk
        or tournament.co_organisers.filter(pk=player.pk).exists()
    )


def is_seated_at(table: TournamentTable, player: Player) -> bool:
    """Whether ``player`` is an entrant seated at ``table``."""
    return Entrant.objects.filter(
        pk__in=[e for e in table.entrant_ids() if e is not None], player=player
    ).exists()


def running_tournaments() -> list[int]:
    return list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True)
    )


#: The key of a game recorded from an in-person table: the prefix, then the table's id.
RECORDED_KEY_PREFIX = "tournament-table:"


def recorded_key(table: TournamentTable) -> str:
    return f"{RECORDED_KEY_PREFIX}{table.pk}"


def tournaments_with_recorded_game(key: str) -> list[int]:
    """The tournament of an in-person table's recorded game (none for another key)."""
    table_id = key.removeprefix(RECORDED_KEY_PREFIX)
    if not key.startswith(RECORDED_KEY_PREFIX) or not table_id.isdigit():
        return []
    return list(
        Tournament.objects.filter(round_set__tables__pk=int(table_id)).values_list("pk", flat=True)
    )


def tournaments_with_game(game_id: int) -> list[int]:
    return list(
        Tournament.objects.filter(round_set__tables__game_id=game_id).values_list("pk", flat=True)
    )


def ratings_of(
    players: Sequence[Player], rules: dict[str, Any], *, venue: str = "online"
) -> dict[int, float]:
    """The players' ratings for seeding and entry limits, from the :data:`RATING_SOURCES`."""
    found: dict[int, float] = {}
    for source in RATING_SOURCES:
        found.update(source(players, rules, venue=venue))
    return found


def display_rating(rating: float | None) -> int | None:
    """``rating`` as pages show it (the first of :data:`RATING_DISPLAYS`), None if unrated
    or if no app shows ratings."""
    if rating is None or not RATING_DISPLAYS:
        return None
    return RATING_DISPLAYS[0](rating)


# --- History for seating --------------------------------------------------------------------


def forbidden_entrant_pairs(tournament: Tournament) -> list[tuple[int, int]]:
    """The forbidden pairs as entrant ids (for the players who are entered)."""
    entrant_of = dict(tournament.entrants.filter(is_house=False).values_list("player_id", "pk"))
    return [
        (entrant_of[a], entrant_of[b])
        for a, b in tournament.forbidden_pairs.values_list("first_id", "second_id")
        if a in entrant_of and b in entrant_of
    ]


def entrant_history(tournament: Tournament) -> seating.History:
    """Who sat with whom (fillers as seating.FILLER), the forbidden pairs and the byes."""
    tables = [
        [seating.FILLER if e is None else e for e in t.entrant_ids()]
        for t in TournamentTable.objects.filter(round__tournament=tournament)
    ]
    byes = [e for r in tournament.round_set.all() for e in r.byes]
    return seating.History.from_tables(tables, forbidden_entrant_pairs(tournament), byes)


# --- Standings ------------------------------------------------------------------------------


def standings(
    tournament: Tournament,
    up_to_round: int | None = None,
    entrants: list[Entrant] | None = None,
) -> list[Line]:
    """Everyone entered (``entrants``, or those read now), best first (see
    tournaments.standings for the order)."""
    if entrants is None:
        entrants = list(tournament.entrants.all())
    entries = [Entry(e.pk, e.seed or 0, e.eliminated_in_round) for e in entrants]
    tables = {
        t.pk: [e for e in t.entrant_ids() if e is not None]
        for t in TournamentTable.objects.filter(round__tournament=tournament)
    }
    rows = Result.objects.filter(round__tournament=tournament).select_related("round")
    results = [
        RoundResult(
            r.entrant_id, r.round.number, r.points, r.score, r.rank, r.table_id, r.duplicate_score
        )
        for r in rows
    ]
    knockout = tournament.format == Tournament.Format.KNOCKOUT
    return rank_standings(entries, results, tables, knockout, up_to_round, tournament.duplicate)


def standings_order(tournament: Tournament) -> list[int]:
    """Entrant ids, best first (the order a swiss round seats from)."""
    return [line.entrant for line in standings(tournament)]


def standings_data(tournament: Tournament, up_to_round: int | None = None) -> list[dict[str, Any]]:
    # One read of the entrants for the lines and their names: a player entering meanwhile
    # is in both or in neither.
    read = list(tournament.entrants.all())
    entrants = {e.pk: e for e in read}
    rows = []
    for line in standings(tournament, up_to_round, read):
        entrant = entrants[line.entrant]
        row: dict[str, Any] = {
            "rank": line.rank,
            "username": entrant.name,
            "status": entrant.status,
            "points": round(line.points, 3),
            "duplicate_score": round(line.duplicate_score, 3) if tournament.duplicate else None,
            "stakes": line.stakes,
            "opponents_points": round(line.opponents_points, 3),
            "head_to_head": line.head_to_head,
            "games": line.games,
            "byes": line.byes,
        }
        if up_to_round is not None:
            row["round_points"] = None if line.round_points is None else round(line.round_points, 3)
        if tournament.format == Tournament.Format.KNOCKOUT:
            row["eliminated_in_round"] = entrant.eliminated_in_round
        rows.append(row)
    return rows


# --- Shapes for the API ---------------------------------------------------------------------


def tournament_summary(tournament: Tournament) -> dict[str, Any]:
    count = getattr(tournament, "entrant_count", None)
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "format": tournament.format,
        "status": tournament.status,
        "rules": tournament.rules,
        "round_count": tournament.rounds,
        "current_round": tournament.current_round,
        "hands_per_game": tournament.hands_per_game,
        "move_seconds": tournament.move_seconds,
        "round_minutes": tournament.round_minutes,
        "starts_at": iso(tournament.starts_at),
        "rated": tournament.rated,
        "max_players": tournament.max_players,
        "min_rating": tournament.min_rating,
        "max_rating": tournament.max_rating,
        "humans_allowed": tournament.humans_allowed,
        "bots_allowed": tournament.bots_allowed,
        "odd_count": tournament.odd_count,
        "filler_bot": tournament.filler_bot,
        "points_by_rank": tournament.points_by_rank,
        "advance_per_table": tournament.advance_per_table,
        "duplicate": tournament.duplicate,
        "club": tournament.club.slug if tournament.club else None,
        "venue": tournament.venue,
        "created_by": tournament.created_by.username,
        "created_at": iso(tournament.created_at),
        "started_at": iso(tournament.started_at),
        "finished_at": iso(tournament.finished_at),
        "entrant_count": count if count is not None else tournament.entrants.count(),
        "version": tournament.version,
    }


def entrant_data(entrant: Entrant) -> dict[str, Any]:
    return {
        "username": entrant.name,
        "account": entrant.player.username,
        "is_bot": entrant.player.is_bot,
        "status": entrant.status,
        "rating": entrant.rating,
        "display_rating": display_rating(entrant.rating),
        "seed": entrant.seed,
    }


def entrants_of(tournament_id: int) -> QuerySet[Entrant]:
    """A tournament's entrants, in the order they entered (404 for an unknown tournament)."""
    return tournament(tournament_id).entrants.select_related("player").order_by("pk")


def entrants_shown(rows: list[Entrant]) -> list[dict[str, Any]]:
    return [entrant_data(e) for e in rows]


def entrants_data(tournament: Tournament) -> list[dict[str, Any]]:
    return entrants_shown(list(tournament.entrants.select_related("player")))


def result_data(table: TournamentTable) -> dict[str, Any]:
    """An in-person table's result: ``{status, scores, entered_by, confirmed_by}``."""
    return {
        "status": table.result_status,
        "scores": table.result_scores,
        "entered_by": table.entered_by.username if table.entered_by else None,
        "confirmed_by": table.confirmed_by.username if table.confirmed_by else None,
    }


def table_result(tournament_id: int, number: int, code: str) -> dict[str, Any]:
    """The result of in-person table ``code`` of round ``number`` (404 otherwise)."""
    found = tournament(tournament_id)
    table = (
        TournamentTable.objects.select_related("entered_by", "confirmed_by")
        .filter(round__tournament=found, round__number=number, code=code.upper())
        .first()
        if found.venue == Tournament.Venue.IN_PERSON
        else None
    )
    if table is None:
        raise NotFound("not_found", "No such table at an in-person round.")
    return result_data(table)


def table_data(table: TournamentTable, names: dict[int, str], filler: str) -> dict[str, Any]:
    game = table.game
    final = table.result_status == TournamentTable.ResultStatus.FINAL
    if game is not None:
        result = game.result or {}
        status = game.status
    else:
        result = (
            {"ranks": ranks_of(table.result_scores), "scores": table.result_scores} if final else {}
        )
        status = "finished" if final else "playing"
    seats = []
    for seat, entrant_id in enumerate(table.entrant_ids()):
        entry: dict[str, Any] = {
            "seat": seat,
            "username": filler if entrant_id is None else names[entrant_id],
            "filler": entrant_id is None,
        }
        if result:
            entry["rank"] = result["ranks"][seat]
            entry["score"] = result["scores"][seat]
        seats.append(entry)
    return {
        "number": table.number,
        "table": table.table_id,
        "game": table.game_id,
        "code": table.code,
        "status": status,
        "adjudicated": table.adjudicated,
        "seats": seats,
        "result": None if game is not None else result_data(table),
    }


def round_data(tournament: Tournament, round_: Round, names: dict[int, str]) -> dict[str, Any]:
    return {
        "number": round_.number,
        "status": round_.status,
        "started_at": iso(round_.started_at),
        "deadline": iso(round_.deadline),
        "finished_at": iso(round_.finished_at),
        "byes": [names[e] for e in round_.byes],
        "tables": [
            table_data(t, names, tournament.filler_bot)
            for t in round_.tables.select_related("game", "entered_by", "confirmed_by")
        ],
    }


def _names(tournament: Tournament) -> dict[int, str]:
    return dict(tournament.entrants.values_list("pk", "name"))


def round_detail(tournament_id: int, number: int) -> dict[str, Any]:
    found = tournament(tournament_id)
    round_ = found.round_set.filter(number=number).first()
    if round_ is None:
        raise NotFound("not_found", f"No round {number}.")
    data = round_data(found, round_, _names(found))
    data["standings"] = standings_data(found, number) if round_.status == "finished" else None
    return data


def table_detail(tournament_id: int, number: int, table_number: int) -> dict[str, Any]:
    found = tournament(tournament_id)
    table = (
        TournamentTable.objects.select_related("game", "entered_by", "confirmed_by")
        .filter(round__tournament=found, round__number=number, number=table_number)
        .first()
    )
    if table is None:
        raise NotFound("not_found", "No such table.")
    return {"round": number, **table_data(table, _names(found), found.filler_bot)}


def table_room(tournament_id: int, code: str, viewer: Player | None) -> dict[str, Any]:
    """In-person table ``code`` (of any round) as its result page shows it to ``viewer``:
    ``{tournament, round, table, organiser, seated, open, may_enter, may_confirm}``. The
    table's result is :func:`result_data`'s, but the scores of an entry that does not
    stand yet only for the table's players and the organisers. ``open``: the
    round is being played and no result stands there; ``may_enter``: open, and the viewer
    is seated there or an organiser; ``may_confirm``: also a pending entry that someone
    else entered (or the viewer is an organiser). 404 for another code, or a tournament
    played online."""
    found = tournament(tournament_id)
    table = (
        TournamentTable.objects.select_related("round", "entered_by", "confirmed_by")
        .filter(round__tournament=found, code=code.upper())
        .first()
        if found.venue == Tournament.Venue.IN_PERSON
        else None
    )
    if table is None:
        raise NotFound("not_found", "No such table at an in-person round.")
    round_ = table.round
    organiser = viewer is not None and is_organiser(found, viewer)
    seated = viewer is not None and is_seated_at(table, viewer)
    status = TournamentTable.ResultStatus
    open_ = (
        found.status == Tournament.Status.RUNNING
        and round_.status == Round.Status.PLAYING
        and table.result_status != status.FINAL
    )
    data = table_data(table, _names(found), found.filler_bot)
    if not (organiser or seated or table.result_status == status.FINAL):
        # An entry that does not stand yet is its table's to check, and the organisers'.
        data["result"] = {**data["result"], "scores": None}
    may_enter = open_ and (organiser or seated)
    others_entry = organiser or (viewer is not None and table.entered_by_id != viewer.pk)
    return {
        "tournament": {
            "id": found.pk,
            "name": found.name,
            "status": found.status,
            "current_round": found.current_round,
            "version": found.version,
        },
        "round": {
            "number": round_.number,
            "status": round_.status,
            "deadline": iso(round_.deadline),
        },
        "table": data,
        "organiser": organiser,
        "seated": seated,
        "open": open_,
        "may_enter": may_enter,
        "may_confirm": may_enter and table.result_status == status.PENDING and others_entry,
    }


def audit_of(tournament_id: int) -> QuerySet[AuditEntry]:
    """A tournament's audit log, oldest first (404 for an unknown tournament)."""
    found = tournament(tournament_id)
    return AuditEntry.objects.filter(tournament=found).select_related("actor").order_by("pk")


def audit_shown(rows: list[AuditEntry]) -> list[dict[str, Any]]:
    return [
        {
            "at": iso(entry.at),
            "actor": entry.actor.username if entry.actor else None,
            "action": entry.action,
            "details": entry.details,
        }
        for entry in rows
    ]


def audit_data(tournament: Tournament) -> list[dict[str, Any]]:
    return audit_shown(
        list(AuditEntry.objects.filter(tournament=tournament).select_related("actor"))
    )


def forbidden_pairs_of(tournament_id: int) -> QuerySet[ForbiddenPair]:
    """A tournament's forbidden pairs, oldest first (404 for an unknown tournament)."""
    found = tournament(tournament_id)
    return found.forbidden_pairs.select_related("first", "second").order_by("pk")


def forbidden_pairs_shown(rows: list[ForbiddenPair]) -> list[dict[str, Any]]:
    return [{"id": p.pk, "players": [p.first.username, p.second.username]} for p in rows]


def forbidden_pairs_data(tournament: Tournament) -> list[dict[str, Any]]:
    return forbidden_pairs_shown(list(tournament.forbidden_pairs.select_related("first", "second")))


def organisers_data(tournament: Tournament) -> list[str]:
    return [
        tournament.created_by.username,
        *tournament.co_organisers.order_by("username").values_list("username", flat=True),
    ]


def invitation_data(invitation: Invitation) -> dict[str, Any]:
    player = invitation.player
    owner = player.owner if player.is_bot and player.owner_id else player
    return {
        "id": invitation.pk,
        "tournament": invitation.tournament_id,
        "player": player.username,
        "is_bot": player.is_bot,
        "owner": owner.username,
        "invited_by": invitation.invited_by.username if invitation.invited_by else None,
        "status": invitation.status,
        "created_at": iso(invitation.created_at),
    }


def answerer_id(*, player_id: int, is_bot: bool, owner_id: int | None) -> int:
    """Who answers an invitation of the account ``player_id``: its owner for a bot account
    with one, else the account itself."""
    return owner_id if is_bot and owner_id else player_id


def invitation_line(invitation: Invitation) -> dict[str, Any]:
    """The ``tournament_invite`` stream line's fields."""
    found = invitation.tournament
    return {
        "invitation": invitation.pk,
        "tournament": found.pk,
        "name": found.name,
        "player": invitation.player.username,
        "invited_by": invitation.invited_by.username if invitation.invited_by else None,
        "format": found.format,
        "starts_at": iso(found.starts_at),
    }


def invitations_shown(found: Tournament, viewer: Player | None) -> list[dict[str, Any]]:
    """The pending invitations a viewer may see: all of them for an organiser; those the
    viewer answers (its own, its bots') for anyone else; none without a viewer."""
    if viewer is None:
        return []
    rows = found.invitations.filter(status=Invitation.Status.PENDING).select_related(
        "player__owner", "invited_by"
    )
    if not is_organiser(found, viewer):
        rows = rows.filter(Q(player=viewer) | Q(player__owner=viewer, player__is_bot=True))
    return [invitation_data(i) for i in rows]


def tournament_detail(
    tournament_id: int, viewer: Player | None = None, *, audit: bool = True
) -> dict[str, Any]:
    """The tournament as ``viewer`` sees it (pending invitations: see
    :func:`invitations_shown`); without its audit log when not ``audit``."""
    # Its parts are read in several queries: all of them at one moment, so that an entrant
    # who comes or goes meanwhile is in every part or in none.
    with snapshot():
        found = tournament(tournament_id)
        names = _names(found)
        detail = {
            **tournament_summary(found),
            "organisers": organisers_data(found),
            "players": entrants_data(found),
            "invitations": invitations_shown(found, viewer),
            "forbidden_pairs": forbidden_pairs_data(found),
            "rounds": [round_data(found, r, names) for r in found.round_set.all()],
            "standings": standings_data(found),
        }
        if audit:
            detail["audit"] = audit_data(found)
    return detail


# --- Live ----------------------------------------------------------------------------------


def versions(tournament_ids: list[int]) -> dict[int, int]:
    """Each existing tournament's version, in one query (what the live feeds compare)."""
    return dict(Tournament.objects.filter(pk__in=tournament_ids).values_list("pk", "version"))


def live_detail(tournament_id: int) -> dict[str, Any] | None:
    """The tournament as anyone may see it (no viewer: no invitations; no audit log), or None
    when there is no such tournament. Its ``version`` is read first: what follows is at
    least as new."""
    try:
        return tournament_detail(tournament_id, audit=False)
    except Http404:
        return None


def live_data(detail: dict[str, Any]) -> dict[str, Any]:
    """A live stream's message of a tournament's ``detail``: where it stands, the current
    round's tables and the standings."""
    rounds = detail["rounds"]
    current = rounds[-1] if rounds else None
    return {
        "version": detail["version"],
        "status": detail["status"],
        "round": detail["current_round"],
        "round_count": detail["round_count"],
        "entrant_count": detail["entrant_count"],
        "tables": [
            {
                **{k: table[k] for k in ("number", "game", "code", "status", "adjudicated")},
                "result_status": table["result"]["status"] if table["result"] else None,
            }
            for table in (current["tables"] if current else [])
        ],
        "standings": detail["standings"],
    }


def live_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed from one detail of a tournament to a later one, as a live stream names
    it: ``started``, ``round_started``, ``table_finished``, ``standings_changed``,
    ``entrants_changed``, ``finished``; ``updated`` for anything else (settings,
    organisers, forbidden pairs, invitations)."""

    def finished_tables(detail: dict[str, Any]) -> int:
        return sum(t["status"] == "finished" for r in detail["rounds"] for t in r["tables"])

    def entrants(detail: dict[str, Any]) -> list[tuple[str, str]]:
        return [(e["username"], e["status"]) for e in detail["players"]]

    running = after["status"] != Tournament.Status.REGISTERING
    found = {
        "started": before["status"] == "registering" and running,
        "round_started": after["current_round"] > before["current_round"],
        "table_finished": finished_tables(after) > finished_tables(before),
        "standings_changed": running and after["standings"] != before["standings"],
        "entrants_changed": entrants(after) != entrants(before),
        "finished": before["status"] != "finished" and after["status"] == "finished",
    }
    return [kind for kind, happened in found.items() if happened] or ["updated"]
