from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from accounts import schema  # noqa: F401  (registers the OpenAPI auth description)
        from accounts.signals import connect_model_changes

        connect_model_changes()
