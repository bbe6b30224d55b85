from django.apps import AppConfig


class WiringConfig(AppConfig):
    """Not an app of its own: it connects the others once they are all loaded."""

    name = "config"
    label = "wiring"

    def ready(self) -> None:
        from config import wiring

        wiring.connect()
