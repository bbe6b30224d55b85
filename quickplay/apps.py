from django.apps import AppConfig


class QuickplayConfig(AppConfig):
    name = "quickplay"
