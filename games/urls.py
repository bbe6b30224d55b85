"""Routes of the games API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from games import api

urlpatterns = [
    path("tables", api.TablesView.as_view(), name="tables"),
    path("tables/<id:table_id>", api.TableView.as_view(), name="table"),
    path("tables/<id:table_id>/join", api.TableJoinView.as_view(), name="table-join"),
    path("tables/<id:table_id>/leave", api.TableLeaveView.as_view(), name="table-leave"),
    path("tables/<id:table_id>/bots", api.TableBotsView.as_view(), name="table-bots"),
    path("games/<id:game_id>", api.game, name="game"),
    path("games/<id:game_id>/actions", api.game_actions, name="game-actions"),
    path("games/<id:game_id>/events", api.game_events, name="game-events"),
    path("games/<id:game_id>/live", api.game_live, name="game-live"),
    path("games/<id:game_id>/resign", api.GameResignView.as_view(), name="game-resign"),
    path("games/<id:game_id>/record", api.GameRecordView.as_view(), name="game-record"),
    path("games/<id:game_id>/verify", api.GameVerifyView.as_view(), name="game-verify"),
    path("records/key", api.RecordKeyView.as_view(), name="records-key"),
    path("players/<str:username>", api.PlayerView.as_view(), name="player"),
    path("players/<str:username>/games", api.PlayerGamesView.as_view(), name="player-games"),
]
