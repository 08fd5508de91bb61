"""The live table over a websocket: members only, one group per audience, full state on every (re)connect.

The audience's group is joined through this process's hub (combat.hub): one channel-layer subscription per
audience per process, which writes each table fragment to the local sockets (the table, then a player's own
controls, never another's). Every socket also joins its user's group (campaigns.live), on Channels' own path.
When their membership changes it reads it again at once: no longer a member (or a player on a GM's draft) ->
closed with 4404; another role -> it moves to that audience's group and gets that audience's table. A resync
("hello") checks the same way. A socket that has left an audience's hub group gets none of its fragments.

The page's heartbeat sends "ping" every few seconds and gets "pong" back (no database, but for the presence row
every presence.SEEN_EVERY seconds): a phone that misses a pong knows its socket is dead and reconnects. Pings have
their own ration, so they never use up the resyncs'.

Presence (combat.presence): every accepted socket has a row; a player's socket opening or closing tells the GMs'
group, whose sockets send their connected-players strip again. The heartbeat refreshes the row every
presence.SEEN_EVERY seconds (and a GM's socket then sends its strip if a player's row has expired meanwhile).
"""

from __future__ import annotations

import logging
from time import monotonic

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from campaigns.live import user_group
from campaigns.models import Membership
from combat import fragments, presence, store
from combat.broadcast import gm_group, players_group
from combat.hub import LeavesAudienceOnEnd, Local, hub_for, leave_audience
from combat.models import Encounter

log = logging.getLogger(__name__)

MAX_FRAME = 4096  # clients only ever send a tiny "hello"; anything bigger is refused
BURST = 5  # resyncs a socket may ask for at once (a phone waking up) ...
PER_SECOND = 1.0  # ... and then about one a second; a socket asking faster is closed with 4429
PING, PONG = "ping", "pong"  # the page's heartbeat and the answer
PING_BURST = 5  # pings a socket may send at once (waking up, coming back online) ...
PINGS_PER_SECOND = 1.0  # ... and then about one a second (the page sends one every few); faster is closed with 4429


class TokenBucket:
    """`burst` tokens, refilled at `rate` a second; `take` spends one if there is one."""

    def __init__(self, burst: int, rate: float, now: float):
        self.burst, self.rate = burst, rate
        self.tokens, self.last = float(burst), now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class TableConsumer(LeavesAudienceOnEnd, AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        self.groups_joined: list[str] = []  # on Channels' per-socket path: the user's group
        self.audience: str | None = None  # the audience's group, joined through the hub
        self.closing = False
        self.present = False  # this socket has its presence row
        self.strip = ""  # the connected-players strip this (GM's) socket sent last
        if user is None or not user.is_authenticated:
            await self._refuse(4401)
            return
        kwargs = self.scope["url_route"]["kwargs"]
        self.campaign_id, self.encounter_id = kwargs["campaign_id"], kwargs["encounter_id"]
        # The hub picks this player's own controls out of each players' message by this key.
        self.local = Local(self.base_send, self.channel_name, own_key=str(user.pk))
        self.resyncs = TokenBucket(BURST, PER_SECOND, monotonic())
        self.pings = TokenBucket(PING_BURST, PINGS_PER_SECOND, monotonic())
        # The user's group first: a change of membership from here on reaches this socket as an order.
        await self._join(user_group(user.pk))
        membership = await self._membership()
        if membership is None:
            await self._refuse(4404)
            return
        # The audience's group before the snapshot: nothing sent in between is missed.
        self.is_gm = membership.is_gm
        await self._join_audience(self._audience(self.is_gm))
        await self.accept()
        await self._send_snapshot()
        await self.local.open()  # the frames that came since the join follow the snapshot
        await self._opened()

    async def disconnect(self, code):
        await self._leave_groups()
        await self._closed()

    async def receive(self, text_data=None, bytes_data=None):
        # Actions go over HTTP (they must survive a dropped socket); the socket only pings or asks for a resync.
        if self.closing:
            return  # frames that were already queued when the socket was closed
        if text_data == PING:
            if self.pings.take(monotonic()):
                await self.send(text_data=PONG)
                await self._seen()
            else:
                await self._close(4429)
            return
        if not self.resyncs.take(monotonic()):
            await self._close(4429)
            return
        if bytes_data is not None or text_data is None or len(text_data) > MAX_FRAME:
            await self._close(4400)
            return
        await self._follow_membership(always_send=True)

    async def user_notice(self, event):
        """A notice for this user (campaigns.notices), sent to their group: the encounter page has this one socket, so
        it carries the page's notices too, except the "your turn" of this very encounter, which the table shows."""
        if event.get("turn_of") != self.encounter_id and not self.closing:
            await self.send(text_data=event["html"])

    async def presence_changed(self, event):
        if event.get("group") == self.audience and self.is_gm and not self.closing:
            await self._send_strip()

    async def membership_changed(self, event):
        if event.get("campaign") == self.campaign_id and not self.closing:
            await self._follow_membership(always_send=False)

    async def _follow_membership(self, *, always_send: bool) -> None:
        """Read the membership again: close, or move to the audience of its role (with that audience's table)."""
        membership = await self._membership()
        if membership is None:
            await self._close(4404)
            return
        if membership.is_gm != self.is_gm:
            old, new = self._audience(self.is_gm), self._audience(membership.is_gm)
            await self._join_audience(new)
            await hub_for(self.channel_layer).leave(old, self.local)
            self.is_gm, always_send = membership.is_gm, True
            await self._presence_changed()  # they join or leave the GMs' list of players
        if always_send:
            await self._send_snapshot()

    async def _send_snapshot(self) -> None:
        snapshot = await self._snapshot()
        if snapshot is not None:
            html, self.strip = snapshot
            await self.send(text_data=html + self.strip)

    # --- presence --------------------------------------------------------------------------------------------

    async def _opened(self) -> None:
        await database_sync_to_async(presence.opened)(self.channel_name, self.encounter_id, self.scope["user"].pk)
        self.present, self.seen_at = True, monotonic()
        if not self.is_gm:
            await self._presence_changed()

    async def _closed(self) -> None:
        if not self.present:
            return
        self.present = False
        await database_sync_to_async(presence.closed)(self.channel_name)
        if not self.is_gm:
            await self._presence_changed()

    async def _seen(self) -> None:
        """On a heartbeat, every presence.SEEN_EVERY seconds: refresh the row (make it again if it had expired);
        a GM's socket also sends its strip if it changed meanwhile (a player's row expired)."""
        now = monotonic()
        if not self.present or now - self.seen_at < presence.SEEN_EVERY:
            return
        self.seen_at = now
        if await database_sync_to_async(presence.seen)(self.channel_name, self.encounter_id, self.scope["user"].pk):
            if not self.is_gm:
                await self._presence_changed()
        if self.is_gm:
            await self._send_strip()

    async def _presence_changed(self) -> None:
        group = gm_group(self.encounter_id)
        try:
            await self.channel_layer.group_send(group, {"type": presence.PRESENCE_CHANGED, "group": group})
        except Exception:  # the GMs' strips catch up on their next heartbeat refresh or reconnect
            log.warning("channel layer unavailable; %s's strip will catch up", group, exc_info=True)

    async def _send_strip(self) -> None:
        """The strip, if it changed since this socket last sent it (and the user is still a GM here)."""
        html = await database_sync_to_async(presence.strip_for)(self.encounter_id, self.campaign_id, self.scope["user"])
        if html is not None and html != self.strip:
            self.strip = html
            await self.send(text_data=html)

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def _join_audience(self, group: str) -> None:
        await hub_for(self.channel_layer).join(group, self.local)
        self.audience = group

    async def _refuse(self, code: int) -> None:
        """Refused at the door, told why: accepted, then closed at once with the code. A handshake refused outright
        reaches the page as a bare 1006, which hx-ws answers by reconnecting forever ("reconnecting…" on a phone
        whose player was removed while it slept); a 44xx close it does not retry, and the badge says why."""
        self.closing = True
        await self._leave_groups()
        await self.accept()
        await self.close(code=code)

    async def _close(self, code: int) -> None:
        self.closing = True
        await self._leave_groups()
        await self._closed()
        await self.close(code=code)

    async def _leave_groups(self) -> None:
        groups, self.groups_joined = getattr(self, "groups_joined", []), []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        await leave_audience(self)

    def _audience(self, is_gm: bool) -> str:
        return gm_group(self.encounter_id) if is_gm else players_group(self.encounter_id)

    @database_sync_to_async
    def _membership(self) -> Membership | None:
        """The user's membership, if it lets them see this encounter (players never see a draft)."""
        if self.campaign_id >= 2**63 or self.encounter_id >= 2**63:  # no such row; SQLite cannot bind the number
            return None
        membership = Membership.objects.filter(campaign_id=self.campaign_id, user=self.scope["user"]).first()
        if membership is None:
            return None
        status = (
            Encounter.objects.filter(pk=self.encounter_id, campaign_id=self.campaign_id)
            .values_list("status", flat=True)
            .first()
        )
        if status is None or (status == Encounter.Status.DRAFT and not membership.is_gm):
            return None
        return membership

    @database_sync_to_async
    def _snapshot(self) -> tuple[str, str] | None:
        """The table for the audience this socket is in, read now, and for a GM the connected-players strip (else
        ""). None if the membership changed since it was last read (that change's order is queued behind, and
        follows) or the encounter is gone."""
        encounter = (
            Encounter.objects.select_related("campaign")
            .filter(pk=self.encounter_id, campaign_id=self.campaign_id)
            .first()
        )
        membership = Membership.objects.filter(campaign_id=self.campaign_id, user=self.scope["user"]).first()
        if encounter is None or membership is None or membership.is_gm != self.is_gm:
            return None
        if encounter.status == Encounter.Status.DRAFT and not membership.is_gm:
            return None
        html = fragments.for_viewer(encounter, store.load_state(encounter), membership)
        # The GM's page shows who is connected: its strip rides along.
        return html, presence.strip_html(encounter) if membership.is_gm else ""
