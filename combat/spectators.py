"""A spectator's live table over a websocket (issue 20): a watch link's holder, no login, the players' audience.

The token in the path is the only key (combat.sharing.watched): a link never made, revoked or expired, or one whose
encounter is not running, is refused with 4404. An accepted socket joins its link's group (revoking the link closes
it, with 4404, the page then saying so) and, through this process's hub (combat.hub), the players' group; it gets
the players' table at once, and then every players' frame without any player's own controls (it has no own_key).
It may only ping ("pong" back, rationed as the table's are); any other frame closes it with 4400. Once its link's
end date has passed, its next ping closes it with 4404 (no database: the date was read on connect).
"""

from __future__ import annotations

from datetime import datetime
from time import monotonic

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from combat import fragments, sharing, store
from combat.broadcast import players_group
from combat.consumers import PING, PING_BURST, PINGS_PER_SECOND, PONG, TokenBucket
from combat.hub import LeavesAudienceOnEnd, Local, hub_for, leave_audience


class SpectatorConsumer(LeavesAudienceOnEnd, AsyncWebsocketConsumer):
    async def connect(self):
        self.groups_joined: list[str] = []  # the link's group, on Channels' per-socket path
        self.audience: str | None = None  # the players' group, joined through the hub
        self.local = Local(self.base_send, self.channel_name, own_key=None)  # the table only, no one's controls
        self.closing = False
        self.pings = TokenBucket(PING_BURST, PINGS_PER_SECOND, monotonic())
        link = await self._link()
        if link is None:
            await self._refuse(4404)
            return
        link_id, encounter_id, self.expires_at = link
        # Both groups before the snapshot: nothing sent in between is missed, and a revocation from here on closes it.
        await self._join(sharing.watch_group(link_id))
        await hub_for(self.channel_layer).join(players_group(encounter_id), self.local)
        self.audience = players_group(encounter_id)
        await self.accept()
        html = await self._snapshot(encounter_id)
        if html is None:  # the link was revoked, or the encounter ended, since it was read
            await self._close(4404)
            return
        await self.send(text_data=html)
        await self.local.open()  # the frames that came since the join follow the snapshot

    async def disconnect(self, code):
        await self._leave_groups()

    async def receive(self, text_data=None, bytes_data=None):
        if self.closing:
            return  # frames that were already queued when the socket was closed
        if text_data != PING:
            await self._close(4400)  # a spectator sends nothing but the heartbeat
        elif self.expires_at is not None and timezone.now() >= self.expires_at:
            await self._close(4404)  # its end date passed: an overlay left open for days stops within a heartbeat
        elif self.pings.take(monotonic()):
            await self.send(text_data=PONG)
        else:
            await self._close(4429)

    async def watch_closed(self, event):
        if not self.closing:
            await self._close(4404)

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def _refuse(self, code: int) -> None:
        """Accepted, then closed at once with the code: hx-ws does not retry a 44xx (TableConsumer._refuse)."""
        self.closing = True
        await self.accept()
        await self.close(code=code)

    async def _close(self, code: int) -> None:
        self.closing = True
        await self._leave_groups()
        await self.close(code=code)

    async def _leave_groups(self) -> None:
        groups, self.groups_joined = self.groups_joined, []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        await leave_audience(self)

    @database_sync_to_async
    def _link(self) -> tuple[int, int, datetime | None] | None:
        link = sharing.watched(self.scope["url_route"]["kwargs"]["token"])
        return None if link is None else (link.pk, link.encounter_id, link.expires_at)

    @database_sync_to_async
    def _snapshot(self, encounter_id: int) -> str | None:
        """The players' table, read now; None if the link no longer opens it."""
        link = sharing.watched(self.scope["url_route"]["kwargs"]["token"])
        if link is None or link.encounter_id != encounter_id:
            return None
        return fragments.for_players(link.encounter, store.load_state(link.encounter))
