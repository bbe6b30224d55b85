"""A tournament under way: the start (seeds, round 1), each round's seating and games, its
scoring once its games are over (and a knockout's eliminations), the next round or the end,
and an organiser's adjudication of a stuck table."""

from __future__ import annotations

import math
import random
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from accounts.services import house_bot
from core.errors import Conflict, NotFound
from games.models import Game
from games.play import adjudicate_game
from games.tables import start_seated_game
from realtime import delivery
from tournaments import seating
from tournaments.models import Entrant, Invitation, Result, Round, Tournament, TournamentTable
from tournaments.selectors import answerer_id, entrant_history, ratings_of, standings_order
from tournaments.services.changes import (
    audit,
    changed,
    locked,
    require_organiser,
    require_registering,
    wake_people,
)
from tournaments.services.setup import game_rules
from tournaments.standings import duplicate_scores, points_for_ranks

MIN_ENTRANTS = 3


def default_rounds(*, format: str, players: int) -> int:
    """The rounds of a swiss or a round robin whose organiser left them open."""
    if format == Tournament.Format.ROUND_ROBIN:
        # Each round meets two new players: about everyone once.
        return max(1, (players - 1) // 2)
    return max(3, math.ceil(math.log(max(players, 3), 3)) + 1)


def start(actor: Player, *, tournament_id: int) -> Tournament:
    """Seed the entrants, seat round 1 and start its games."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        require_registering(tournament)
        _start(tournament, actor)
    return tournament


def _start(tournament: Tournament, actor: Player | None) -> None:
    entrants = list(tournament.entrants.select_related("player"))
    if len(entrants) < MIN_ENTRANTS:
        raise Conflict(
            "not_enough_entrants",
            f"A tournament needs at least {MIN_ENTRANTS} entrants.",
            entrants=len(entrants),
        )
    ratings = ratings_of([e.player for e in entrants if not e.is_house], tournament.rules)
    for entrant in entrants:
        entrant.rating = None if entrant.is_house else ratings.get(entrant.player_id)
    # Seeds: by rating (the unrated after), then by order of entry.
    entrants.sort(key=lambda e: (e.rating is None, -(e.rating or 0.0), e.pk))
    for number, entrant in enumerate(entrants, start=1):
        entrant.seed = number
    Entrant.objects.bulk_update(entrants, ["rating", "seed"])
    if tournament.rounds is None and tournament.format != Tournament.Format.KNOCKOUT:
        tournament.rounds = default_rounds(format=tournament.format, players=len(entrants))
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["rounds", "status", "started_at"])
    # Invitations never answered lapse: the invited are not entered.
    lapsing = tournament.invitations.filter(status=Invitation.Status.PENDING)
    wake_people(
        answerer_id(player_id=player, is_bot=is_bot, owner_id=owner)
        for player, is_bot, owner in lapsing.values_list(
            "player_id", "player__is_bot", "player__owner_id"
        )
    )
    lapsing.update(status=Invitation.Status.LAPSED, answered_at=tournament.started_at)
    audit(tournament, actor, "started", entrants=len(entrants), rounds=tournament.rounds)
    _open_round(tournament, 1)
    changed(tournament)


def start_due_tournaments(*, now: datetime | None = None) -> list[int]:
    """Start every registering tournament whose ``starts_at`` has come (for Celery beat);
    one without enough entrants waits for its organiser."""
    due = Tournament.objects.filter(
        status=Tournament.Status.REGISTERING, starts_at__lte=now or timezone.now()
    ).values_list("pk", flat=True)
    started = []
    for tournament_id in due:
        with transaction.atomic():
            tournament = locked(tournament_id)
            if tournament.status != Tournament.Status.REGISTERING:
                continue
            if tournament.entrants.count() < MIN_ENTRANTS:
                continue
            _start(tournament, None)
            started.append(tournament_id)
    return started


def _seating(tournament: Tournament, number: int) -> seating.Seating:
    active = list(tournament.entrants.filter(status=Entrant.Status.ACTIVE).order_by("seed", "pk"))
    ids = [e.pk for e in active]
    history = entrant_history(tournament)
    odd = tournament.odd_count
    if tournament.format == Tournament.Format.KNOCKOUT:
        return seating.knockout_round(ids, history, odd)
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return seating.round_robin_round(ids, history, odd, seed=f"{tournament.pk}:{number}")
    if number == 1:
        rated = any(e.rating is not None for e in active)
        rng = random.Random(f"{tournament.pk}:1")
        return seating.first_swiss_round(ids if rated else None, ids, history, odd, rng)
    playing = set(ids)
    order = [e for e in standings_order(tournament) if e in playing]
    return seating.swiss_round(order, history, odd)


def _open_round(tournament: Tournament, number: int) -> Round:
    plan = _seating(tournament, number)
    now = timezone.now()
    round_ = Round.objects.create(
        tournament=tournament,
        number=number,
        byes=list(plan.byes),
        deadline=now + timedelta(minutes=tournament.round_minutes),
    )
    if tournament.duplicate:
        # One fresh secret seed per round: every table is dealt the same deals (the games'
        # views are under embargo while the round plays: selectors.deals_embargoed).
        round_.deal_seed = secrets.token_hex(16)
        round_.save(update_fields=["deal_seed"])
    entrants = {e.pk: e for e in tournament.entrants.select_related("player")}
    filler = house_bot(tournament.filler_bot)
    rules = game_rules(rules=tournament.rules, hands_per_game=tournament.hands_per_game)
    for table_number, seats in enumerate(plan.tables, start=1):
        players = [filler if e == seating.FILLER else entrants[e].player for e in seats]
        game = start_seated_game(
            tournament.created_by,
            rules=rules,
            rated=tournament.rated,
            move_seconds=tournament.move_seconds,
            players=players,
            deal_seed=round_.deal_seed,
        )
        TournamentTable.objects.create(
            round=round_,
            number=table_number,
            table_id=game.table_id,
            game=game,
            seats=[
                {"seat": seat, "entrant": None if e == seating.FILLER else e}
                for seat, e in enumerate(seats)
            ],
        )
        for seat, entrant_id in enumerate(seats):
            if entrant_id != seating.FILLER and not entrants[entrant_id].is_house:
                delivery.send(
                    [entrants[entrant_id].player_id],
                    type="tournament_round",
                    payload=_round_line(tournament, round_, table_number, game, seat),
                )
    for entrant_id in plan.byes:
        if not entrants[entrant_id].is_house:
            delivery.send(
                [entrants[entrant_id].player_id],
                type="tournament_round",
                payload=_round_line(tournament, round_, None, None, None),
            )
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    wake_people(_seated_people(round_))
    return round_


def _seated_people(round_: Round) -> list[int]:
    """The people (not house bots) seated at the tables of ``round_``."""
    seated = [e for t in round_.tables.all() for e in t.entrant_ids() if e is not None]
    entrants = Entrant.objects.filter(pk__in=seated, is_house=False)
    return list(entrants.values_list("player_id", flat=True))


def _round_line(
    tournament: Tournament,
    round_: Round,
    table: int | None,
    game: Game | None,
    seat: int | None,
) -> dict[str, Any]:
    return {
        "tournament": tournament.pk,
        "name": tournament.name,
        "round": round_.number,
        "rounds": tournament.rounds,
        "table": table,
        "game": game.pk if game else None,
        "seat": seat,
        "bye": game is None,
        "deadline": round_.deadline.isoformat().replace("+00:00", "Z"),
    }


def advance(*, tournament_id: int) -> bool:
    """If every game of the current round is over: score it, then seat and start the next
    round or finish the tournament. Idempotent; True when something moved on."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        round_ = tournament.round_set.filter(number=tournament.current_round).first()
        if round_ is None or round_.status != Round.Status.PLAYING:
            return False
        tables = list(round_.tables.select_related("game"))
        if any(t.game.status != Game.Status.FINISHED for t in tables):
            return False
        _score_round(tournament, round_, tables)
        wake_people(_seated_people(round_))  # the round no longer waits on them
        if _is_last_round(tournament, round_, tables):
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = timezone.now()
            tournament.save(update_fields=["status", "finished_at"])
            audit(tournament, None, "finished", rounds=round_.number)
        else:
            _open_round(tournament, round_.number + 1)
        changed(tournament)
    return True


def _is_last_round(tournament: Tournament, round_: Round, tables: list[TournamentTable]) -> bool:
    active = tournament.entrants.filter(status=Entrant.Status.ACTIVE).count()
    if active < MIN_ENTRANTS - 1 and tournament.format != Tournament.Format.KNOCKOUT:
        return True
    if tournament.format == Tournament.Format.KNOCKOUT:
        return (len(tables) == 1 and not round_.byes) or active <= 1
    return round_.number >= (tournament.rounds or 0)


def _score_round(tournament: Tournament, round_: Round, tables: list[TournamentTable]) -> None:
    results: list[Result] = []
    against_the_field = duplicate_scores(
        [(table.game.result or {})["scores"] for table in tables] if tournament.duplicate else []
    )
    for number, table in enumerate(tables):
        outcome = table.game.result or {}
        ranks, scores = outcome["ranks"], outcome["scores"]
        points = points_for_ranks(ranks, tournament.points_by_rank)
        for seat, entrant_id in enumerate(table.entrant_ids()):
            if entrant_id is None:
                continue
            results.append(
                Result(
                    round=round_,
                    entrant_id=entrant_id,
                    table=table,
                    rank=ranks[seat],
                    score=scores[seat],
                    points=points[seat],
                    duplicate_score=against_the_field[number][seat]
                    if tournament.duplicate
                    else 0.0,
                )
            )
    average = sum(r.points for r in results) / len(results) if results else 0.0
    for entrant_id in round_.byes:
        results.append(Result(round=round_, entrant_id=entrant_id, points=average, bye=True))
    Result.objects.bulk_create(results)
    if tournament.format == Tournament.Format.KNOCKOUT:
        _eliminate(tournament, round_, tables)
    round_.status = Round.Status.FINISHED
    round_.finished_at = timezone.now()
    round_.save(update_fields=["status", "finished_at"])


def _eliminate(tournament: Tournament, round_: Round, tables: list[TournamentTable]) -> None:
    seeds = dict(tournament.entrants.values_list("pk", "seed"))
    out: list[int] = []
    for table in tables:
        outcome = table.game.result or {}
        at_table = [
            seating.TableResult(e, outcome["ranks"][seat], outcome["scores"][seat], seeds[e] or 0)
            for seat, e in enumerate(table.entrant_ids())
            if e is not None
        ]
        going_on = set(seating.knockout_advancers(at_table, tournament.advance_per_table))
        out.extend(r.entrant for r in at_table if r.entrant not in going_on)
    Entrant.objects.filter(pk__in=out, status=Entrant.Status.ACTIVE).update(
        status=Entrant.Status.ELIMINATED, eliminated_in_round=round_.number
    )


def adjudicate(actor: Player, *, tournament_id: int, round_number: int, table_number: int) -> None:
    """An organiser ends a stuck game of an overdue round by its current scores."""
    with transaction.atomic():
        tournament = locked(tournament_id)
        require_organiser(tournament, actor)
        table = (
            TournamentTable.objects.select_related("round", "game")
            .filter(round__tournament=tournament, round__number=round_number, number=table_number)
            .first()
        )
        if table is None:
            raise NotFound("not_found", "No such table.")
        if table.game.status == Game.Status.FINISHED:
            raise Conflict("game_finished", "The game at this table is over.")
        if timezone.now() < table.round.deadline:
            raise Conflict(
                "round_not_overdue",
                "Tables can be adjudicated once the round's deadline has passed.",
                deadline=table.round.deadline.isoformat(),
            )
        game = adjudicate_game(table.game_id)
        table.adjudicated = True
        table.save(update_fields=["adjudicated"])
        result = game.result if game else None
        audit(
            tournament,
            actor,
            "table_adjudicated",
            round=round_number,
            table=table_number,
            game=table.game_id,
            result=result,
        )
        changed(tournament)
