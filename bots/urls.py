from django.urls import path

from bots import api

urlpatterns = [
    path("bots", api.BotsView.as_view(), name="bots"),
    path("bots/<str:username>", api.BotView.as_view(), name="bot"),
    path("bots/<str:username>/token", api.BotTokenView.as_view(), name="bot-token"),
]
