"""Routes of the chat API, mounted under /api/v1/ by config.api_router."""

from django.urls import path

from chat import api

urlpatterns = [
    path("games/<id:game_id>/chat", api.GameChatView.as_view(), name="game-chat"),
    path("games/<id:game_id>/chat/live", api.game_chat_live, name="game-chat-live"),
    path(
        "tournaments/<id:tournament_id>/chat",
        api.TournamentChatView.as_view(),
        name="tournament-chat",
    ),
    path(
        "tournaments/<id:tournament_id>/chat/live",
        api.tournament_chat_live,
        name="tournament-chat-live",
    ),
    path("chat/messages/<id:message_id>", api.MessageView.as_view(), name="chat-message"),
    path("chat/mutes", api.MutesView.as_view(), name="chat-mutes"),
    path("chat/mutes/<str:username>", api.MuteView.as_view(), name="chat-mute"),
]
