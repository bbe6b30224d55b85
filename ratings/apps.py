from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"

    def ready(self) -> None:
        from games import selectors, signals
        from ratings import receivers
        from ratings import selectors as ratings_selectors

        signals.game_finished.connect(
            receivers.on_game_finished, dispatch_uid="ratings.on_game_finished"
        )
        if ratings_selectors.profile_ratings not in selectors.PROFILE_EXTRAS:
            selectors.PROFILE_EXTRAS.append(ratings_selectors.profile_ratings)
        if ratings_selectors.history_rating_changes not in selectors.HISTORY_EXTRAS:
            selectors.HISTORY_EXTRAS.append(ratings_selectors.history_rating_changes)
