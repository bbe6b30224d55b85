"""What waits on a person, computed in one place: the notification bell's list, the API's
``GET /notifications`` and the live feed's marks (``notifications.live``) all read it here.

Six kinds of item, each a :class:`Notice`:

* ``turn``: a game in play whose turn is theirs (a seat of theirs, not handed to a bot), at
  its version;
* ``round``: a tournament round that seated them at a table and is not finished (an online
  table through its game's seats, an in-person table through its own seats);
* ``challenge``: a pending challenge that waits on their answer;
* ``invitation``: a pending tournament invitation they answer (theirs, or one of a bot
  account they own);
* ``club_invitation``: a pending club invitation they answer (theirs, or one of a bot
  account they own);
* ``club_request``: a pending request to join a club they administer (owner or admin).

:func:`waiting_on` reads them for many people at once, in one statement of plain SQL (the
kinds' selects joined by ``UNION ALL``): every page of a signed-in person reads it for
the bell, and the ORM took several times the database's own time to build four queries.
The live feeds' look compares every followed person's list with that one statement too. A
person's list holds only items about that person (the keys of the result): nothing of
anyone else's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from django.db import connection
from django.db.models import Model
from django.utils import timezone

from accounts.models import Player
from challenges.models import Challenge, ChallengeSeat
from clubs.models import Club, ClubInvitation, JoinRequest, Membership
from core import json_codec
from games.models import Game, GamePlayer
from games.selectors import iso
from tournaments.models import Entrant, Invitation, Round, Tournament, TournamentTable
from tournaments.selectors import answerer_id

#: The kinds, in the order the list shows them: what needs a move first.
KINDS = ("turn", "round", "challenge", "invitation", "club_invitation", "club_request")
#: People read in one statement at most (each is a parameter several times: the databases
#: limit a statement's parameters).
CHUNK = 500


@dataclass(frozen=True)
class Notice:
    """One thing waiting on a person. ``id`` is the game's (a turn), the round's, the
    challenge's, the invitation's, the club invitation's or the join request's; the other
    fields are those of its kind, else None."""

    kind: str
    id: int
    game: int | None = None
    seat: int | None = None
    #: A turn: the game's version (what a move sends as ``expected_version``); it moves on
    #: each time the turn comes back.
    version: int | None = None
    tournament: int | None = None
    tournament_name: str | None = None
    round: int | None = None
    table: int | None = None
    #: Who challenged or invited them.
    by: str | None = None
    #: The account an invitation enters (the person, or a bot account of theirs), or the
    #: account asking to join a club.
    player: str | None = None
    rules: str | None = None
    #: When a challenge expires, or a round's deadline.
    deadline: datetime | None = None
    #: A club invitation's or join request's club: its slug and name.
    club: str | None = None
    club_name: str | None = None
    #: An in-person table's code (its result page), else None.
    code: str | None = None

    def data(self) -> dict[str, Any]:
        """The API's (and the pages') object."""
        found = asdict(self)
        found["deadline"] = iso(self.deadline)
        return found


def waiting_on(player_ids: Iterable[int]) -> dict[int, list[Notice]]:
    """For each of these people, what waits on them, in :data:`KINDS` order (then by id)."""
    keys = sorted(set(player_ids))
    found: dict[int, list[Notice]] = defaultdict(list)
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        with connection.cursor() as cursor:
            cursor.execute(_statement(connection.vendor, len(chunk)), _params(chunk))
            rows = cursor.fetchall()
        wanted = set(chunk)
        for row in rows:
            item = _notice(row)
            if item is not None and item[0] in wanted:
                found[item[0]].append(item[1])
    order = {kind: number for number, kind in enumerate(KINDS)}
    return {key: sorted(found.get(key, []), key=lambda n: (order[n.kind], n.id)) for key in keys}


def notifications(player: Player) -> dict[str, Any]:
    """``player``'s notifications as the API gives them: ``count`` and ``items``."""
    items = waiting_on([player.pk])[player.pk]
    return {"count": len(items), "items": [n.data() for n in items]}


#: Each select's columns, in this order: who (the person; for an invitation, the account
#: invited), kind, id, game, seat, version, tournament, tournament_name, round, table, by
#: (an in-person round's table code),
#: player, data (a turn's ``to_act``, a challenge's rules), deadline, is_bot, owner (an
#: invitation's account's), club (a club's slug; its name is in tournament_name).
_SELECTS = (
    # A seat of theirs to act in a game in play (filtered by to_act once read).
    # Its empty columns are typed: PostgreSQL takes a column's type from the first select.
    """SELECT COALESCE(gp.replaced_by_id, gp.player_id), 'turn', g.id, g.id, gp.seat,
        g.version, CAST(NULL AS {id_type}), CAST(NULL AS {name_type}),
        CAST(NULL AS {number_type}), CAST(NULL AS {number_type}), CAST(NULL AS {name_type}),
        CAST(NULL AS {name_type}), g.to_act, CAST(NULL AS {moment_type}),
        CAST(NULL AS {flag_type}), CAST(NULL AS {id_type}), CAST(NULL AS {slug_type})
    FROM {gameplayer} gp JOIN {game} g ON g.id = gp.game_id
    WHERE g.status = %s AND ((gp.player_id IN ({keys}) AND gp.replaced_by_id IS NULL)
        OR gp.replaced_by_id IN ({keys}))""",
    # A round still playing that seats them at an online table (its game's seats).
    """SELECT gp.player_id, 'round', r.id, tt.game_id, NULL, NULL, t.id, t.name, r.number,
        tt.number, NULL, NULL, NULL, r.deadline, NULL, NULL, NULL
    FROM {tournamenttable} tt JOIN {round} r ON r.id = tt.round_id
        JOIN {tournament} t ON t.id = r.tournament_id
        JOIN {gameplayer} gp ON gp.game_id = tt.game_id
    WHERE r.status = %s AND t.status = %s AND gp.player_id IN ({keys})""",
    # A round still playing that seats them at an in-person table: no game, so its own
    # seats (a JSON list of seat and entrant) name the entrants.
    """SELECT e.player_id, 'round', r.id, NULL, NULL, NULL, t.id, t.name, r.number,
        tt.number, tt.code, NULL, NULL, r.deadline, NULL, NULL, NULL
    FROM {tournamenttable} tt {seat_rows}
        JOIN {round} r ON r.id = tt.round_id
        JOIN {tournament} t ON t.id = r.tournament_id
        JOIN {entrant} e ON e.id = {seat_entrant}
    WHERE tt.game_id IS NULL AND r.status = %s AND t.status = %s AND e.is_house = %s
        AND e.player_id IN ({keys})""",
    # A pending challenge, not expired, waiting on their answer.
    """SELECT cs.player_id, 'challenge', c.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        p.username, NULL, c.rules, c.expires_at, NULL, NULL, NULL
    FROM {challengeseat} cs JOIN {challenge} c ON c.id = cs.challenge_id
        JOIN {player} p ON p.id = c.challenger_id
    WHERE cs.player_id IN ({keys}) AND cs.answer = %s AND c.status = %s
        AND c.expires_at > %s""",
    # A pending invitation of theirs, or of a bot account they own.
    """SELECT i.player_id, 'invitation', i.id, NULL, NULL, NULL, t.id, t.name, NULL, NULL,
        ib.username, p.username, NULL, NULL, p.is_bot, p.owner_id, NULL
    FROM {invitation} i JOIN {player} p ON p.id = i.player_id
        JOIN {tournament} t ON t.id = i.tournament_id
        LEFT JOIN {player} ib ON ib.id = i.invited_by_id
    WHERE i.status = %s AND (i.player_id IN ({keys})
        OR (p.is_bot = %s AND p.owner_id IN ({keys})))""",
    # A pending club invitation of theirs, or of a bot account they own.
    """SELECT ci.player_id, 'club_invitation', ci.id, NULL, NULL, NULL, NULL, cl.name, NULL,
        NULL, ib.username, p.username, NULL, NULL, p.is_bot, p.owner_id, cl.slug
    FROM {clubinvitation} ci JOIN {player} p ON p.id = ci.player_id
        JOIN {club} cl ON cl.id = ci.club_id
        LEFT JOIN {player} ib ON ib.id = ci.invited_by_id
    WHERE ci.status = %s AND (ci.player_id IN ({keys})
        OR (p.is_bot = %s AND p.owner_id IN ({keys})))""",
    # A pending request to join a club they administer.
    """SELECT m.player_id, 'club_request', jr.id, NULL, NULL, NULL, NULL, cl.name, NULL,
        NULL, NULL, p.username, NULL, NULL, NULL, NULL, cl.slug
    FROM {joinrequest} jr JOIN {membership} m ON m.club_id = jr.club_id
        JOIN {club} cl ON cl.id = jr.club_id
        JOIN {player} p ON p.id = jr.player_id
    WHERE jr.status = %s AND m.role IN (%s, %s) AND m.player_id IN ({keys})""",
)
#: How the in-person select reads a table's seats, by database: one row a seat (``s``),
#: and the entrant's id in it.
_SEATS = {
    "postgresql": (
        "CROSS JOIN LATERAL jsonb_array_elements(tt.seats) s",
        "CAST(s.value ->> 'entrant' AS bigint)",
    ),
    "sqlite": ("JOIN json_each(tt.seats) s", "json_extract(s.value, '$.entrant')"),
}
_TABLES: dict[str, type[Model]] = {
    "gameplayer": GamePlayer,
    "game": Game,
    "tournamenttable": TournamentTable,
    "round": Round,
    "tournament": Tournament,
    "challengeseat": ChallengeSeat,
    "challenge": Challenge,
    "player": Player,
    "invitation": Invitation,
    "entrant": Entrant,
    "clubinvitation": ClubInvitation,
    "club": Club,
    "joinrequest": JoinRequest,
    "membership": Membership,
}


@lru_cache(maxsize=16)
def _statement(vendor: str, count: int) -> str:
    """The one statement for ``count`` people (made once per number of people)."""
    tables = {name: connection.ops.quote_name(m._meta.db_table) for name, m in _TABLES.items()}
    types = {
        "id_type": Player._meta.get_field("owner").target_field.db_type(connection),
        "name_type": Player._meta.get_field("username").db_type(connection),
        "number_type": Round._meta.get_field("number").db_type(connection),
        "moment_type": Round._meta.get_field("deadline").db_type(connection),
        "flag_type": Player._meta.get_field("is_bot").db_type(connection),
        "slug_type": Club._meta.get_field("slug").db_type(connection),
    }
    seat_rows, seat_entrant = _SEATS[vendor]
    keys = ", ".join(["%s"] * count)
    selects = (
        select.format(keys=keys, seat_rows=seat_rows, seat_entrant=seat_entrant, **tables, **types)
        for select in _SELECTS
    )
    return "\nUNION ALL\n".join(selects)


def _params(keys: Sequence[int]) -> list[Any]:
    """The statement's parameters, in the order of its placeholders."""
    return [
        *(Game.Status.PLAYING, *keys, *keys),
        *(Round.Status.PLAYING, Tournament.Status.RUNNING, *keys),
        *(Round.Status.PLAYING, Tournament.Status.RUNNING, False, *keys),
        *(*keys, ChallengeSeat.Answer.PENDING, Challenge.Status.PENDING, timezone.now()),
        *(Invitation.Status.PENDING, *keys, True, *keys),
        *(ClubInvitation.Status.PENDING, *keys, True, *keys),
        *(JoinRequest.Status.PENDING, Membership.Role.OWNER, Membership.Role.ADMIN, *keys),
    ]


def _json(value: Any) -> Any:
    return json_codec.loads(value) if isinstance(value, str | bytes) else value


def _moment(value: Any) -> datetime | None:
    """A timestamp as the driver gives it (SQLite: text, in UTC)."""
    if value is None or isinstance(value, datetime):
        return value
    moment = datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _notice(row: Sequence[Any]) -> tuple[int, Notice] | None:
    """(whose, the notice) of one row; None for a seat not to act now."""
    who, kind, pk, game, seat, version, tournament, name, number, table = row[:10]
    by, player, data, deadline, is_bot, owner, club = row[10:]
    if kind == "turn":
        if seat not in (_json(data) or ()):
            return None
        return who, Notice("turn", pk, game=game, seat=seat, version=version)
    if kind == "round":
        return who, Notice(
            "round",
            pk,
            game=game,
            tournament=tournament,
            tournament_name=name,
            round=number,
            table=table,
            deadline=_moment(deadline),
            code=by,
        )
    if kind == "challenge":
        rules = (_json(data) or {}).get("preset")
        return who, Notice("challenge", pk, by=by, rules=rules, deadline=_moment(deadline))
    if kind == "club_request":
        return who, Notice("club_request", pk, player=player, club=club, club_name=name)
    answers = answerer_id(player_id=who, is_bot=bool(is_bot), owner_id=owner)
    if kind == "club_invitation":
        return answers, Notice(
            "club_invitation", pk, by=by, player=player, club=club, club_name=name
        )
    return answers, Notice(
        "invitation", pk, tournament=tournament, tournament_name=name, by=by, player=player
    )
