from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from games.signals import game_finished
        from tournaments.receivers import on_game_finished

        game_finished.connect(on_game_finished, dispatch_uid="tournaments.on_game_finished")

        # Seeding and rating-range limits read the ratings app (tournaments -> ratings, one way).
        from ratings.selectors import seeding_ratings
        from tournaments.services import RATING_SOURCES

        if seeding_ratings not in RATING_SOURCES:
            RATING_SOURCES.append(seeding_ratings)
