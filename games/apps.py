from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        from api import schema  # noqa: F401  (registers the OpenAPI auth description)
