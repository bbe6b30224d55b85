from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"

    def ready(self) -> None:
        from django.conf import settings

        from bots.receivers import enqueue_bot_turn
        from bots.strategies import strong
        from games.signals import turn_started

        turn_started.connect(enqueue_bot_turn, dispatch_uid="bots.enqueue_bot_turn")
        # The strategies are pure (no Django): the setting reaches them as the module's cap.
        strong.MAX_DEALS = settings.HOUSE_BOT_STRONG_DEALS
