"""Websocket routes."""

from django.urls import path

from combat.consumers import TableConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/encounters/<int:encounter_id>/", TableConsumer.as_asgi()),
]
