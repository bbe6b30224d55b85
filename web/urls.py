"""The web pages' paths (docs/web.md). The paths are a contract: tests outside the project
drive the pages through them."""

from django.urls import path

from web.views import accounts, games, home, lobby, replay
from web.views.bots import my_bots
from web.views.players import leaderboard, profile

urlpatterns = [
    path("", home.home, name="home"),
    # Accounts
    path("signup", accounts.signup, name="signup"),
    path("login", accounts.log_in, name="login"),
    path("logout", accounts.log_out, name="logout"),
    # Tables and games
    path("lobby", lobby.lobby, name="lobby"),
    path("tables/<int:table_id>/join", lobby.join, name="table-join"),
    path("tables/<int:table_id>/leave", lobby.leave, name="table-leave"),
    path("tables/<int:table_id>/cancel", lobby.cancel, name="table-cancel"),
    path("tables/<int:table_id>/bots", lobby.seat_bot, name="table-bots"),
    path("games/<int:game_id>", games.table, name="game"),
    path("games/<int:game_id>/table", games.table_part, name="game-table"),
    #
    # Replay
    path("games/<int:game_id>/replay", replay.replay, name="game-replay"),
    #
    #
    # Leaderboard, profiles and bots
    path("leaderboard", leaderboard, name="leaderboard"),
    path("players/<str:username>", profile, name="player"),
    path("bots", my_bots, name="bots"),
    #
    # Tournaments
    #
]
