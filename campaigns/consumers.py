"""The notice socket of every ordinary page (the encounter page's table socket carries the same notices).

It joins only the user's own group `user-<id>` (campaigns.live) and forwards what is sent there for pages:
notices (campaigns.notices). On every (re)connect it sends the bell with the unread count as it is now, so a page
that was offline a while catches up. Logged out: accepted, then closed with 4401 (the origin is checked before,
config.ws_origin). A page never speaks on this socket; a frame from it is refused with 4400.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from campaigns import notices
from campaigns.live import user_group


class NoticeConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        self.group = None
        if user is None or not user.is_authenticated:
            # Accepted, then closed with the reason: a refused handshake would look to hx-ws like a dropped line,
            # which it retries forever (combat.consumers does the same).
            await self.accept()
            await self.close(code=4401)
            return
        # The group before the bell: nothing sent in between is missed.
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=await self._bell())

    async def disconnect(self, code):
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None

    async def receive(self, text_data=None, bytes_data=None):
        await self.disconnect(4400)
        await self.close(code=4400)

    async def user_notice(self, event):
        if self.group is not None:
            await self.send(text_data=event["html"])

    async def membership_changed(self, event):
        """For the table sockets in the same group (combat.consumers); a page's notices do not depend on it."""

    @database_sync_to_async
    def _bell(self) -> str:
        return notices.bell_html(self.scope["user"])
