from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"

    def ready(self) -> None:
        from campaigns import live  # noqa: F401  (connects the membership signals that reach open sockets)
