"""In-person nights: a table's result entered by its players or an organiser, confirmed,
disputed, settled; once it stands, announced as a finished game is (ratings rate it, and
the round moves on through the same ``advance`` as online).

A player seated at the table enters the scores as ``pending``; another player of the table
confirms them (an entry of the same scores by another player confirms too), or an
organiser does. A different entry while one is pending makes the table ``disputed`` until
an organiser enters the result. An organiser's entry stands at once. A result that stands
is final for everyone, as a game's end is: it was announced (and rated) as it stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from core.errors import Conflict, Invalid, NotAllowed, NotFound
from games.signals import RecordedGameFinished, SeatResult, recorded_game_finished
from games.tables import parse_rules
from tournaments import results
from tournaments.models import Entrant, Round, Tournament, TournamentTable
from tournaments.selectors import is_organiser, is_seated_at, recorded_key
from tournaments.services.changes import audit, changed, locked
from tournaments.services.setup import game_rules

Status = TournamentTable.ResultStatus


def enter_result(
    actor: Player,
    *,
    tournament_id: int,
    round_number: int,
    code: str,
    scores: Sequence[Any],
) -> TournamentTable:
    """``actor`` enters the table's game scores in seat order (see the module doc)."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        table = in_person_table(tournament, round_number, code)
        organiser = _require_at_table(tournament, table, actor)
        problem = results.score_problem(_rules(tournament), scores)
        if problem is not None:
            raise Invalid("invalid_scores", problem, fields={"scores": [problem]})
        entered = [int(s) for s in scores]
        if table.result_status == Status.FINAL:
            # It was announced, and maybe rated, as it stands: like a game's end, for good.
            raise Conflict("result_final", "This table's result stands.")
        if organiser:
            table.result_status = Status.FINAL
            table.result_scores, table.entered_by, table.confirmed_by = entered, actor, None
        elif table.result_status == Status.MISSING:
            table.result_status = Status.PENDING
            table.result_scores, table.entered_by = entered, actor
        elif table.result_scores != entered:
            table.result_status = Status.DISPUTED
        elif table.result_status == Status.PENDING and table.entered_by_id != actor.pk:
            # Another player of the table entering the same scores confirms them.
            table.result_status, table.confirmed_by = Status.FINAL, actor
        table.save(update_fields=["result_status", "result_scores", "entered_by", "confirmed_by"])
        audit(
            tournament,
            actor,
            "result_entered",
            round=round_number,
            table=table.number,
            code=table.code,
            scores=entered,
            status=table.result_status,
        )
        _after_entry(tournament, table)
    return table


def confirm_result(
    actor: Player, *, tournament_id: int, round_number: int, code: str
) -> TournamentTable:
    """Another player of the table, or an organiser, confirms a pending entry: it stands."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        table = in_person_table(tournament, round_number, code)
        organiser = _require_at_table(tournament, table, actor)
        if table.result_status == Status.MISSING:
            raise Conflict("result_missing", "No result has been entered at this table yet.")
        if table.result_status == Status.FINAL:
            raise Conflict("result_final", "This table's result already stands.")
        if table.result_status == Status.DISPUTED:
            raise Conflict(
                "result_disputed", "Two different results were entered: an organiser enters it."
            )
        if not organiser and table.entered_by_id == actor.pk:
            raise Conflict("own_entry", "Another player of the table confirms an entry.")
        table.result_status, table.confirmed_by = Status.FINAL, actor
        table.save(update_fields=["result_status", "confirmed_by"])
        audit(
            tournament,
            actor,
            "result_confirmed",
            round=round_number,
            table=table.number,
            code=table.code,
            scores=table.result_scores,
        )
        _after_entry(tournament, table)
    return table


def adjudicate_in_person(tournament: Tournament, table: TournamentTable) -> list[int]:
    """An organiser's ruling on an overdue in-person table (the caller holds the lock and
    has checked the deadline): a pending entry stands as entered; with none, or two that
    disagree, the game counts as drawn (every score 0, every seat ranked first). Not rated,
    as an adjudicated online game. Returns the scores that stand."""
    if table.result_status == Status.FINAL:
        raise Conflict("game_finished", "The result at this table already stands.")
    if table.result_status != Status.PENDING:
        table.result_scores = [0] * len(table.seats)
    table.result_status = Status.FINAL
    table.adjudicated = True
    table.save(update_fields=["result_status", "result_scores", "adjudicated"])
    _after_entry(tournament, table)
    return list(table.result_scores or [])


def _after_entry(tournament: Tournament, table: TournamentTable) -> None:
    """The tournament's watchers are woken; a result that now stands is announced as a
    finished game (ratings rate it; the tournament's receiver queues the round's check)."""
    changed(tournament)
    if table.result_status != Status.FINAL:
        return
    scores = list(table.result_scores or [])
    ranks = results.ranks_of(scores)
    players = dict(
        Entrant.objects.filter(
            pk__in=[e for e in table.entrant_ids() if e is not None]
        ).values_list("pk", "player_id")
    )
    standings = tuple(
        SeatResult(seat=seat, player_id=players[entrant], rank=ranks[seat], score=scores[seat])
        for seat, entrant in enumerate(table.entrant_ids())
        if entrant is not None
    )
    recorded_game_finished.send_robust(
        sender=TournamentTable,
        event=RecordedGameFinished(
            key=recorded_key(table),
            rated=tournament.rated and not table.adjudicated,
            finished_at=timezone.now(),
            standings=standings,
        ),
    )


def _rules(tournament: Tournament) -> Any:
    return parse_rules(game_rules(rules=tournament.rules, hands_per_game=tournament.hands_per_game))


def in_person_table(tournament: Tournament, round_number: int, code: str) -> TournamentTable:
    """The in-person table ``code`` of round ``round_number`` (404 otherwise)."""
    table = (
        TournamentTable.objects.select_related("round")
        .filter(round__tournament=tournament, round__number=round_number, code=code.upper())
        .first()
        if tournament.venue == Tournament.Venue.IN_PERSON
        else None
    )
    if table is None:
        raise NotFound("not_found", "No such table at an in-person round.")
    return table


def _require_at_table(tournament: Tournament, table: TournamentTable, actor: Player) -> bool:
    """Whether ``actor`` acts as an organiser; 403 unless an organiser or seated at the
    table, 409 once the round is closed."""
    organiser = is_organiser(tournament, actor)
    if not organiser and not is_seated_at(table, actor):
        raise NotAllowed("not_at_this_table", "Only the table's players or an organiser.")
    if tournament.status != Tournament.Status.RUNNING or table.round.status != Round.Status.PLAYING:
        raise Conflict("round_closed", "This round is over: its results are final.")
    return organiser
