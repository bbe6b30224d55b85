"""Everything that changes a tournament. Views and the Celery task call one of these each.

Every change takes the tournament's row lock first (:func:`_locked`), so an organiser's
action, a registration and the round-advancing task never interleave. Organiser actions
are written to the audit log in the same transaction, and every change moves the
tournament's ``version`` on and wakes its watchers once it commits (:func:`_changed`).
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.services import HOUSE_BOTS, house_bot, owned_bot
from core.errors import Conflict, Invalid, NotAllowed, NotFound
from games.models import Game
from games.play import adjudicate_game
from games.tables import parse_rules, start_seated_game
from realtime import delivery
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
from tournaments.selectors import entrant_history, invitation_line, standings_order

#: Where seeding ratings come from (the ratings app can register one): called with players
#: and the tournament's rules, returns {player_id: rating}; players left out are unrated.
RATING_SOURCES: list[Callable[[Sequence[Player], dict[str, Any]], dict[int, float]]] = []

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
MIN_ENTRANTS = 3


# --- Helpers --------------------------------------------------------------------------------


def _locked(tournament_id: int) -> Tournament:
    # The one place where concurrent changes of a tournament are serialised.
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise NotFound("not_found", "No such tournament.")
    return found


def is_organiser(tournament: Tournament, player: Player) -> bool:
    return (
        tournament.created_by_id == player.pk
        or tournament.co_organisers.filter(pk=player.pk).exists()
    )


def _require_organiser(tournament: Tournament, player: Player) -> None:
    if not is_organiser(tournament, player):
        raise NotAllowed("not_organiser", "Only the tournament's organisers may do this.")


def _require_registering(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.REGISTERING:
        raise Conflict("already_started", "The tournament has already started.")


def _changed(tournament: Tournament) -> None:
    """``tournament`` (locked) changed: its version moves on in the same transaction, and
    the pages and clients following it (tournaments.live) are woken once it commits."""
    tournament.version += 1
    tournament.save(update_fields=["version"])
    delivery.wake_on_commit([delivery.tournament_channel(tournament.pk)])


def _audit(tournament: Tournament, actor: Player | None, action: str, **details: Any) -> None:
    AuditEntry.objects.create(tournament=tournament, actor=actor, action=action, details=details)


def game_rules(rules: object, hands_per_game: int | None) -> dict[str, Any]:
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
    game_rules(values["rules"], values["hands_per_game"])
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


def ratings_of(players: Sequence[Player], rules: dict[str, Any]) -> dict[int, float]:
    found: dict[int, float] = {}
    for source in RATING_SOURCES:
        found.update(source(players, rules))
    return found


# --- Creating and configuring ---------------------------------------------------------------


def create_tournament(creator: Player, values: Mapping[str, Any]) -> Tournament:
    fields = {key: values[key] for key in SETTINGS if key in values}
    tournament = Tournament(created_by=creator, **fields)
    _check_settings({key: getattr(tournament, key) for key in SETTINGS})
    tournament.rules = parse_rules(tournament.rules).to_dict()
    with transaction.atomic():
        tournament.save()
        _audit(tournament, creator, "created", settings=_settings_log(tournament))
    return tournament


def _settings_log(tournament: Tournament) -> dict[str, Any]:
    out = {key: getattr(tournament, key) for key in SETTINGS}
    if isinstance(out["starts_at"], datetime):
        out["starts_at"] = out["starts_at"].isoformat()
    return out


def update_tournament(actor: Player, tournament_id: int, changes: Mapping[str, Any]) -> Tournament:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        _require_registering(tournament)
        changed = {key: changes[key] for key in SETTINGS if key in changes}
        for key, value in changed.items():
            setattr(tournament, key, value)
        _check_settings({key: getattr(tournament, key) for key in SETTINGS})
        tournament.rules = parse_rules(tournament.rules).to_dict()
        tournament.save()
        logged = _settings_log(tournament)
        _audit(tournament, actor, "configured", changes={k: logged[k] for k in changed})
        _changed(tournament)
    return tournament


def add_co_organiser(actor: Player, tournament_id: int, username: str) -> Player:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        player = _human(username)
        if player.pk == tournament.created_by_id:
            raise Conflict("already_organiser", f"'{username}' created the tournament.")
        tournament.co_organisers.add(player)
        _audit(tournament, actor, "co_organiser_added", username=player.username)
        _changed(tournament)
    return player


def remove_co_organiser(actor: Player, tournament_id: int, username: str) -> None:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        player = tournament.co_organisers.filter(username=username).first()
        if player is None:
            raise NotFound("not_found", f"'{username}' is not a co-organiser.")
        tournament.co_organisers.remove(player)
        _audit(tournament, actor, "co_organiser_removed", username=username)
        _changed(tournament)


def _human(username: str) -> Player:
    player = Player.objects.filter(username=username, is_active=True, is_bot=False).first()
    if player is None:
        raise NotFound("not_found", f"No human player '{username}'.")
    return player


# --- Entry ----------------------------------------------------------------------------------


def register(player: Player, tournament_id: int, username: str | None = None) -> Entrant:
    """The caller enters, or enters a bot account it owns (``username``).

    With a pending invitation for that account (an organiser's, see :func:`add_entrant`),
    this accepts it: the entry limits on kind and rating are waived, as for any organiser's
    entry. Without one, the limits hold. Anyone may enter themselves, and an owner their own
    bot, as a bot may with its own token."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_registering(tournament)
        entering = _answering_for(player, username)
        invitation = _pending_invitation(tournament, entering)
        if invitation is None:
            _check_limits(tournament, entering)
        entrant = _enter(tournament, entering, entering.username, is_house=False)
        if invitation is not None:
            _answer(invitation, Invitation.Status.ACCEPTED)
        _changed(tournament)
        return entrant


def decline(player: Player, tournament_id: int, username: str | None = None) -> None:
    """The caller declines its invitation, or the invitation of a bot account it owns."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entering = _answering_for(player, username)
        invitation = _pending_invitation(tournament, entering)
        if invitation is None:
            raise Conflict("not_invited", f"No pending invitation for '{entering.username}'.")
        _answer(invitation, Invitation.Status.DECLINED)
        _changed(tournament)


def _answering_for(player: Player, username: str | None) -> Player:
    """The account a register or decline is about: the caller, or the caller's bot."""
    if username is None or username == player.username:
        return player
    return owned_bot(player, username=username)


def _pending_invitation(tournament: Tournament, player: Player) -> Invitation | None:
    return tournament.invitations.filter(player=player, status=Invitation.Status.PENDING).first()


def _answer(invitation: Invitation, status: str) -> None:
    invitation.status = status
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])


def _check_limits(tournament: Tournament, player: Player) -> None:
    if player.is_bot and not tournament.bots_allowed:
        raise Conflict("bots_not_allowed", "This tournament is for humans only.")
    if not player.is_bot and not tournament.humans_allowed:
        raise Conflict("humans_not_allowed", "This tournament is for bots only.")
    rating = ratings_of([player], tournament.rules).get(player.pk)
    low, high = tournament.min_rating, tournament.max_rating
    if (low is not None or high is not None) and (
        rating is None or (low is not None and rating < low) or (high is not None and rating > high)
    ):
        raise Conflict(
            "rating_out_of_range",
            "Your rating is outside the tournament's range.",
            rating=rating,
            min_rating=low,
            max_rating=high,
        )


def _enter(tournament: Tournament, player: Player, name: str, is_house: bool) -> Entrant:
    if is_house:
        number = tournament.entrants.filter(player=player).count() + 1
        name = f"{name} #{number}"
    elif tournament.entrants.filter(player=player).exists():
        raise Conflict("already_registered", f"'{name}' is already entered.")
    limit = tournament.max_players
    if limit is not None and tournament.entrants.count() >= limit:
        raise Conflict("tournament_full", f"The tournament is full ({limit} players).")
    try:
        with transaction.atomic():
            return Entrant.objects.create(
                tournament=tournament, player=player, name=name, is_house=is_house
            )
    except IntegrityError as error:
        raise Conflict("already_registered", f"'{name}' is already entered.") from error


def withdraw(player: Player, tournament_id: int) -> None:
    """The caller leaves: before the start the entry goes; later, no more rounds are seated
    for them (the game in play is theirs to finish)."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entrant = tournament.entrants.filter(player=player, is_house=False).first()
        if entrant is None or entrant.status == Entrant.Status.WITHDRAWN:
            raise Conflict("not_registered", "You are not entered in this tournament.")
        _drop(tournament, entrant)
        _changed(tournament)


def _drop(tournament: Tournament, entrant: Entrant) -> None:
    if tournament.status == Tournament.Status.FINISHED:
        raise Conflict("tournament_finished", "The tournament is over.")
    if tournament.status == Tournament.Status.REGISTERING:
        entrant.delete()
    else:
        entrant.status = Entrant.Status.WITHDRAWN
        entrant.save(update_fields=["status"])


def enters_directly(actor: Player, player: Player) -> bool:
    """Whether an organiser's entry of ``player`` takes effect at once: a house bot, the
    organiser, or a bot account of the organiser's. Anyone else is invited."""
    return (
        player.is_house_bot
        or player.pk == actor.pk
        or (player.is_bot and player.owner_id == actor.pk)
    )


def add_entrant(actor: Player, tournament_id: int, username: str) -> Entrant | Invitation:
    """An organiser enters a house bot (``house:...``), themselves or a bot account of
    their own: the entrant. Another person, or another owner's bot, is invited instead: the
    invitation, with a ``tournament_invite`` line on the stream of that person or the bot's
    owner, who accepts with ``register``. The entry limits on kind and rating are the
    organiser's to waive (at once, or when the invitation is accepted); the size limit
    holds."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        _require_registering(tournament)
        added: Entrant | Invitation
        if username.startswith(HOUSE_BOT_PREFIX):
            added = _enter(tournament, house_bot(username), username, is_house=True)
            _audit(tournament, actor, "entrant_added", entrant=added.name)
        else:
            player = Player.objects.filter(username=username, is_active=True).first()
            if player is None or player.is_house_bot:
                raise NotFound("not_found", f"No player '{username}'.")
            if enters_directly(actor, player):
                added = _enter(tournament, player, player.username, is_house=False)
                _audit(tournament, actor, "entrant_added", entrant=added.name)
            else:
                added = _invite(tournament, actor, player)
        _changed(tournament)
        return added


def _invite(tournament: Tournament, actor: Player, player: Player) -> Invitation:
    if tournament.entrants.filter(player=player, is_house=False).exists():
        raise Conflict("already_registered", f"'{player.username}' is already entered.")
    if _pending_invitation(tournament, player) is not None:
        raise Conflict("already_invited", f"'{player.username}' is already invited.")
    limit = tournament.max_players
    if limit is not None and tournament.entrants.count() >= limit:
        raise Conflict("tournament_full", f"The tournament is full ({limit} players).")
    invitation = Invitation.objects.create(tournament=tournament, player=player, invited_by=actor)
    recipient = player.owner_id if player.is_bot and player.owner_id else player.pk
    delivery.send([recipient], type="tournament_invite", payload=invitation_line(invitation))
    _audit(tournament, actor, "entrant_invited", player=player.username)
    return invitation


def remove_entrant(actor: Player, tournament_id: int, name: str) -> None:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        entrant = tournament.entrants.filter(name=name).first()
        if entrant is None or entrant.status == Entrant.Status.WITHDRAWN:
            invitation = tournament.invitations.filter(
                player__username=name, status=Invitation.Status.PENDING
            ).first()
            if invitation is None:
                raise NotFound("not_found", f"No entrant '{name}'.")
            _answer(invitation, Invitation.Status.CANCELLED)
            _audit(tournament, actor, "invitation_cancelled", player=name)
        else:
            _drop(tournament, entrant)
            _audit(tournament, actor, "entrant_removed", entrant=name)
        _changed(tournament)


def add_forbidden_pair(actor: Player, tournament_id: int, first: str, second: str) -> ForbiddenPair:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        if tournament.status == Tournament.Status.FINISHED:
            raise Conflict("tournament_finished", "The tournament is over.")
        players = []
        for username in (first, second):
            found = Player.objects.filter(username=username, is_active=True).first()
            if found is None or found.is_house_bot:
                raise NotFound("not_found", f"No player '{username}'.")
            players.append(found)
        a, b = sorted(players, key=lambda p: p.pk)
        if a.pk == b.pk:
            raise Invalid("invalid", "A forbidden pair needs two different players.")
        forbidden, created = ForbiddenPair.objects.get_or_create(
            tournament=tournament, first=a, second=b
        )
        if not created:
            raise Conflict("already_forbidden", "These two are already kept apart.")
        _audit(tournament, actor, "forbidden_pair_added", players=[a.username, b.username])
        _changed(tournament)
    return forbidden


def remove_forbidden_pair(actor: Player, tournament_id: int, pair_id: int) -> None:
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        forbidden = tournament.forbidden_pairs.select_related("first", "second").filter(pk=pair_id)
        found = forbidden.first()
        if found is None:
            raise NotFound("not_found", "No such forbidden pair.")
        found.delete()
        _audit(
            tournament,
            actor,
            "forbidden_pair_removed",
            players=[found.first.username, found.second.username],
        )
        _changed(tournament)


# --- Running --------------------------------------------------------------------------------


def default_rounds(format: str, players: int) -> int:
    if format == Tournament.Format.ROUND_ROBIN:
        # Each round meets two new players: about everyone once.
        return max(1, (players - 1) // 2)
    return max(3, math.ceil(math.log(max(players, 3), 3)) + 1)


def start(actor: Player, tournament_id: int) -> Tournament:
    """Seed the entrants, seat round 1 and start its games."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
        _require_registering(tournament)
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
        tournament.rounds = default_rounds(tournament.format, len(entrants))
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.save(update_fields=["rounds", "status", "started_at"])
    # Invitations never answered lapse: the invited are not entered.
    tournament.invitations.filter(status=Invitation.Status.PENDING).update(
        status=Invitation.Status.LAPSED, answered_at=tournament.started_at
    )
    _audit(tournament, actor, "started", entrants=len(entrants), rounds=tournament.rounds)
    _open_round(tournament, 1)
    _changed(tournament)


def start_due_tournaments(now: datetime | None = None) -> list[int]:
    """Start every registering tournament whose ``starts_at`` has come (for Celery beat);
    one without enough entrants waits for its organiser."""
    due = Tournament.objects.filter(
        status=Tournament.Status.REGISTERING, starts_at__lte=now or timezone.now()
    ).values_list("pk", flat=True)
    started = []
    for tournament_id in due:
        with transaction.atomic():
            tournament = _locked(tournament_id)
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
    rules = game_rules(tournament.rules, tournament.hands_per_game)
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
    return round_


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


def advance(tournament_id: int) -> bool:
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
        if _is_last_round(tournament, round_, tables):
            tournament.status = Tournament.Status.FINISHED
            tournament.finished_at = timezone.now()
            tournament.save(update_fields=["status", "finished_at"])
            _audit(tournament, None, "finished", rounds=round_.number)
        else:
            _open_round(tournament, round_.number + 1)
        _changed(tournament)
    return True


def _is_last_round(tournament: Tournament, round_: Round, tables: list[TournamentTable]) -> bool:
    active = tournament.entrants.filter(status=Entrant.Status.ACTIVE).count()
    if active < MIN_ENTRANTS - 1 and tournament.format != Tournament.Format.KNOCKOUT:
        return True
    if tournament.format == Tournament.Format.KNOCKOUT:
        return (len(tables) == 1 and not round_.byes) or active <= 1
    return round_.number >= (tournament.rounds or 0)


def points_for_ranks(ranks: Sequence[int], points_by_rank: Sequence[float]) -> list[float]:
    """Tournament points by table rank; tied seats share the points of the places they
    cover (ranks [1, 1, 3] with 3/1/0 give 2, 2, 0)."""

    def place(k: int) -> float:
        return float(points_by_rank[k]) if k < len(points_by_rank) else 0.0

    out = []
    for rank in ranks:
        tied = ranks.count(rank)
        out.append(sum(place(rank - 1 + k) for k in range(tied)) / tied)
    return out


def duplicate_scores(scores_by_table: Sequence[Sequence[int]]) -> list[list[float]]:
    """Each table's seats' duplicate scores: the seat's game score minus the mean score of
    the same seat (the same cards) at the round's other tables; 0 with no other table.
    ``duplicate_scores([[10, 2, -4], [4, 8, -4]])`` → ``[[6, -6, 0], [-6, 6, 0]]``."""
    count = len(scores_by_table)
    if count < 2:
        return [[0.0] * len(scores) for scores in scores_by_table]
    seats = len(scores_by_table[0])
    totals = [sum(scores[seat] for scores in scores_by_table) for seat in range(seats)]
    return [
        [scores[seat] - (totals[seat] - scores[seat]) / (count - 1) for seat in range(seats)]
        for scores in scores_by_table
    ]


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


def adjudicate(actor: Player, tournament_id: int, round_number: int, table_number: int) -> None:
    """An organiser ends a stuck game of an overdue round by its current scores."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, actor)
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
        _audit(
            tournament,
            actor,
            "table_adjudicated",
            round=round_number,
            table=table_number,
            game=table.game_id,
            result=result,
        )
        _changed(tournament)


def tournaments_with_game(game_id: int) -> list[int]:
    return list(
        Tournament.objects.filter(round_set__tables__game_id=game_id).values_list("pk", flat=True)
    )


def mark_changed(tournament_ids: Sequence[int]) -> None:
    """These tournaments changed outside their services (a game of their rounds ended, and
    their pages show the table's game over; an edit in the admin): their versions move on
    and their watchers are woken once the change commits. One statement, for a game's end
    called after its commit: it never holds the game's row while it waits for a
    tournament's (an organiser's adjudication takes them the other way round)."""
    if not tournament_ids:
        return
    Tournament.objects.filter(pk__in=list(tournament_ids)).update(version=F("version") + 1)
    delivery.wake_on_commit([delivery.tournament_channel(t) for t in tournament_ids])


def running_tournaments() -> list[int]:
    return list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True)
    )
