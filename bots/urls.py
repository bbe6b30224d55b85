from django.urls import path

from bots import api

urlpatterns = [
    path("bots", api.BotsView.as_view(), name="bots"),
]
