"""Websocket routes. The live encounter table adds its consumer here."""

websocket_urlpatterns: list = []
