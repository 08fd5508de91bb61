"""Websocket routes. A path no route serves is closed with 4404, as a refused table is (Channels' URLRouter
would raise, and daphne answer 500 with a traceback in the log)."""

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import URLRouter
from django.urls import path, re_path

from campaigns.consumers import NoticeConsumer
from combat.consumers import TableConsumer
from combat.spectators import SpectatorConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<int:campaign_id>/encounters/<int:encounter_id>/", TableConsumer.as_asgi()),
    path("ws/notices/", NoticeConsumer.as_asgi()),
    path("ws/watch/<str:token>/", SpectatorConsumer.as_asgi()),  # a watch link's holder: no login, the token is the key
]


class NoSuchPath(AsyncWebsocketConsumer):
    async def connect(self):
        await self.close(code=4404)


def websocket_router():
    """The routes, then everything else to NoSuchPath."""
    router = URLRouter([*websocket_urlpatterns, re_path(r"", NoSuchPath.as_asgi())])
    not_found = NoSuchPath.as_asgi()

    async def route(scope, receive, send):
        # URLRouter raises for a path outside root_path, which any client may set (daphne's Daphne-Root-Path).
        if not scope["path"].startswith(scope.get("root_path", "")):
            return await not_found(scope, receive, send)
        return await router(scope, receive, send)

    return route
