from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"

    def ready(self) -> None:
        from bots.receivers import enqueue_bot_turn
        from games.signals import turn_started

        turn_started.connect(enqueue_bot_turn, dispatch_uid="bots.enqueue_bot_turn")
