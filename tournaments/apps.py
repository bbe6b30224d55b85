from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from games.signals import game_finished
        from tournaments.receivers import on_game_finished

        game_finished.connect(on_game_finished, dispatch_uid="tournaments.on_game_finished")
