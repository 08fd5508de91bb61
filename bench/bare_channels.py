"""Baseline ASGI app for the fan-out benchmark: bare Channels, served by daphne like Fray.

A websocket at /ws/bare/ joins one group and accepts (no session, no origin check, no snapshot).
`GET /send?v=<version>` does ONE group_send of the payload (the bytes of Fray's players' table fragment,
read from BENCH_PAYLOAD, with __V__ replaced by the version) to every socket, then answers 204.
The channel layer is Fray's own settings' (in memory, or Redis when REDIS_URL is set).
"""

import os
import urllib.parse

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

GROUP = "bench-bare"
PAYLOAD = open(os.environ["BENCH_PAYLOAD"], encoding="utf-8").read()


class BareConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def bare_fragment(self, event):
        await self.send(text_data=event["html"])


async def trigger(scope, receive, send):
    if scope["type"] == "lifespan":
        return
    while True:  # drain the request body
        message = await receive()
        if not message.get("more_body"):
            break
    query = urllib.parse.parse_qs(scope.get("query_string", b"").decode())
    status = 404
    if scope["path"] == "/send" and "v" in query:
        version = str(int(query["v"][0]))
        html = PAYLOAD.replace("__V__", version)
        await get_channel_layer().group_send(GROUP, {"type": "bare.fragment", "html": html})
        status = 204
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


application = ProtocolTypeRouter(
    {
        "http": trigger,
        "websocket": URLRouter([path("ws/bare/", BareConsumer.as_asgi())]),
    }
)
