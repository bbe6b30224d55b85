"""The web pages' paths (docs/web.md). The paths are a contract: tests outside the project
drive the pages through them."""

from django.urls import path

from web.views import (
    accounts,
    arena,
    challenges,
    clubs,
    games,
    home,
    lobby,
    notifications,
    quickplay,
    replay,
    room,
    rules,
    tournaments,
    welcome,
)
from web.views.bots import my_bots
from web.views.players import leaderboard, profile

urlpatterns = [
    path("", home.home, name="home"),
    # Accounts
    path("signup", accounts.signup, name="signup"),
    path("login", accounts.log_in, name="login"),
    path("logout", accounts.log_out, name="logout"),
    # What waits on the person: the bell's live part
    path("notifications/live", notifications.notifications_live, name="notifications-live"),
    # The rules of the game
    path("rules", rules.rules, name="rules"),
    # Playing at once: the lesson and a game against the computer (visitors as guests)
    path("learn", welcome.learn, name="learn"),
    path("play/computer", welcome.play_computer, name="play-computer"),
    path("hints", welcome.hints, name="hints"),
    # Tables and games
    path("lobby", lobby.lobby, name="lobby"),
    path("tables/<int:table_id>/join", lobby.join, name="table-join"),
    path("tables/<int:table_id>/leave", lobby.leave, name="table-leave"),
    path("tables/<int:table_id>/cancel", lobby.cancel, name="table-cancel"),
    path("tables/<int:table_id>/bots", lobby.seat_bot, name="table-bots"),
    path("quickplay", quickplay.seek, name="quickplay"),
    path("quickplay/<int:seek_id>", quickplay.waiting, name="quickplay-seek"),
    path("quickplay/<int:seek_id>/cancel", quickplay.cancel, name="quickplay-cancel"),
    path("games/live", home.games_in_play_live, name="games-in-play-live"),
    path("games/<int:game_id>", games.table, name="game"),
    path("games/<int:game_id>/table", games.table_part, name="game-table"),
    path("games/<int:game_id>/result", games.result_part, name="game-result"),
    #
    # Replay
    path("games/<int:game_id>/replay", replay.replay, name="game-replay"),
    #
    #
    # Challenges
    path("challenges", challenges.challenges, name="web-challenges"),
    path("challenges/live", challenges.challenges_live, name="web-challenges-live"),
    path("challenges/<int:challenge_id>/accept", challenges.accept, name="web-challenge-accept"),
    path("challenges/<int:challenge_id>/decline", challenges.decline, name="web-challenge-decline"),
    path("challenges/<int:challenge_id>/cancel", challenges.cancel, name="web-challenge-cancel"),
    path("challenges/rematch/<int:game_id>", challenges.rematch, name="web-challenge-rematch"),
    #
    # Leaderboard, profiles and bots
    path("leaderboard", leaderboard, name="leaderboard"),
    path("players/<str:username>", profile, name="player"),
    path("bots", my_bots, name="bots"),
    path("arena", arena.arena_page, name="web-arena"),
    #
    # Tournaments
    path("tournaments", tournaments.tournament_list, name="web-tournaments"),
    path("tournaments/new", tournaments.tournament_new, name="web-tournament-new"),
    path("tournaments/<int:tournament_id>", tournaments.tournament_page, name="web-tournament"),
    path(
        "tournaments/<int:tournament_id>/print",
        tournaments.tournament_print,
        name="web-tournament-print",
    ),
    path(
        "tournaments/<int:tournament_id>/live",
        tournaments.tournament_live,
        name="web-tournament-live",
    ),
    path(
        "tournaments/<int:tournament_id>/tables/<str:code>",
        room.table_room,
        name="web-tournament-table",
    ),
    path("tournaments/<int:tournament_id>/screen", room.tournament_screen, name="web-screen"),
    path(
        "tournaments/<int:tournament_id>/screen/live",
        room.tournament_screen_live,
        name="web-screen-live",
    ),
    path(
        "tournaments/<int:tournament_id>/register",
        tournaments.register,
        name="web-tournament-register",
    ),
    path(
        "tournaments/<int:tournament_id>/decline",
        tournaments.decline,
        name="web-tournament-decline",
    ),
    path(
        "tournaments/<int:tournament_id>/withdraw",
        tournaments.withdraw,
        name="web-tournament-withdraw",
    ),
    path(
        "tournaments/<int:tournament_id>/entrants",
        tournaments.add_entrant,
        name="web-tournament-entrant-add",
    ),
    path(
        "tournaments/<int:tournament_id>/entrants/remove",
        tournaments.remove_entrant,
        name="web-tournament-entrant-remove",
    ),
    path("tournaments/<int:tournament_id>/start", tournaments.start, name="web-tournament-start"),
    path(
        "tournaments/<int:tournament_id>/settings",
        tournaments.update_settings,
        name="web-tournament-settings",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/tables/<int:table>/adjudicate",
        tournaments.adjudicate,
        name="web-tournament-adjudicate",
    ),
    path(
        "tournaments/<int:tournament_id>/forbidden-pairs",
        tournaments.add_forbidden_pair,
        name="web-tournament-pair-add",
    ),
    path(
        "tournaments/<int:tournament_id>/forbidden-pairs/<int:pair_id>/remove",
        tournaments.remove_forbidden_pair,
        name="web-tournament-pair-remove",
    ),
    path(
        "tournaments/<int:tournament_id>/organisers",
        tournaments.add_organiser,
        name="web-tournament-organiser-add",
    ),
    path(
        "tournaments/<int:tournament_id>/organisers/remove",
        tournaments.remove_organiser,
        name="web-tournament-organiser-remove",
    ),
    #
    # Clubs and their leagues
    path("clubs", clubs.club_list, name="web-clubs"),
    path("clubs/<slug:slug>", clubs.club_page, name="web-club"),
    path("clubs/<slug:slug>/join", clubs.join, name="web-club-join"),
    path("clubs/<slug:slug>/leave", clubs.leave, name="web-club-leave"),
    path("clubs/<slug:slug>/settings", clubs.update_settings, name="web-club-settings"),
    path("clubs/<slug:slug>/invitations", clubs.invite, name="web-club-invite"),
    path(
        "clubs/<slug:slug>/invitations/decline",
        clubs.decline_invitation,
        name="web-club-invitation-decline",
    ),
    path(
        "clubs/<slug:slug>/requests/<str:username>/approve",
        clubs.approve_request,
        name="web-club-request-approve",
    ),
    path(
        "clubs/<slug:slug>/requests/<str:username>/decline",
        clubs.decline_request,
        name="web-club-request-decline",
    ),
    path(
        "clubs/<slug:slug>/members/<str:username>/role",
        clubs.set_role,
        name="web-club-member-role",
    ),
    path(
        "clubs/<slug:slug>/members/<str:username>/remove",
        clubs.remove_member,
        name="web-club-member-remove",
    ),
    path("clubs/<slug:slug>/leagues", clubs.league_new, name="web-club-league-new"),
    path("clubs/<slug:slug>/leagues/<int:league_id>", clubs.league_page, name="web-club-league"),
    path(
        "clubs/<slug:slug>/leagues/<int:league_id>/nights",
        clubs.add_night,
        name="web-club-league-night",
    ),
]
