"""The live table over a websocket: members only, one group per audience, full state on every (re)connect.

Every socket also joins its user's group (campaigns.live). When their membership changes it reads it again at
once: no longer a member (or a player on a GM's draft) -> closed with 4404; another role -> it moves to that
audience's group and gets that audience's table. A resync ("hello") checks the same way. Table fragments carry
the group they were sent to, so one queued for an audience the socket has just left is dropped.

The page's heartbeat sends "ping" every few seconds and gets "pong" back (no database): a phone that misses a pong
knows its socket is dead and reconnects. Pings have their own ration, so they never use up the resyncs'.
"""

from __future__ import annotations

from time import monotonic

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from campaigns.live import user_group
from campaigns.models import Membership
from combat import fragments, store
from combat.broadcast import gm_group, players_group
from combat.models import Encounter

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


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        self.groups_joined: list[str] = []
        self.closing = False
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        kwargs = self.scope["url_route"]["kwargs"]
        self.campaign_id, self.encounter_id = kwargs["campaign_id"], kwargs["encounter_id"]
        self.own_key = str(user.pk)  # picks this player's own controls out of each players' message
        self.resyncs = TokenBucket(BURST, PER_SECOND, monotonic())
        self.pings = TokenBucket(PING_BURST, PINGS_PER_SECOND, monotonic())
        # The user's group first: a change of membership from here on reaches this socket as an order.
        await self._join(user_group(user.pk))
        membership = await self._membership()
        if membership is None:
            await self._close(4404)
            return
        # The audience's group before the snapshot: nothing sent in between is missed.
        self.is_gm = membership.is_gm
        await self._join(self._audience(self.is_gm))
        await self.accept()
        await self._send_snapshot()

    async def disconnect(self, code):
        await self._leave_groups()

    async def receive(self, text_data=None, bytes_data=None):
        # Actions go over HTTP (they must survive a dropped socket); the socket only pings or asks for a resync.
        if self.closing:
            return  # frames that were already queued when the socket was closed
        if text_data == PING:
            if self.pings.take(monotonic()):
                await self.send(text_data=PONG)
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

    async def dispatch(self, message):
        # A table fragment only forwards text: no database, so none of Channels' per-message clean-up of old
        # database connections, which costs a trip to a worker thread for every socket on every action.
        if message.get("type") == "table.fragment":
            await self.table_fragment(message)
            return
        await super().dispatch(message)

    async def table_fragment(self, event):
        if event.get("group") not in self.groups_joined:
            return  # sent to an audience this socket has left (or it is closing)
        # One frame: the audience's table, then (for a PC's owner) their own controls; never another player's.
        await self.send(text_data=event["html"] + event.get("own", {}).get(self.own_key, ""))

    async def user_notice(self, event):
        """A notice for this user (campaigns.notices), sent to their group: the encounter page has this one socket, so
        it carries the page's notices too, except the "your turn" of this very encounter, which the table shows."""
        if event.get("turn_of") != self.encounter_id and not self.closing:
            await self.send(text_data=event["html"])

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
            await self._join(new)
            await self.channel_layer.group_discard(old, self.channel_name)
            self.groups_joined.remove(old)
            self.is_gm, always_send = membership.is_gm, True
        if always_send:
            await self._send_snapshot()

    async def _send_snapshot(self) -> None:
        html = await self._snapshot()
        if html is not None:
            await self.send(text_data=html)

    async def _join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def _close(self, code: int) -> None:
        self.closing = True
        await self._leave_groups()
        await self.close(code=code)

    async def _leave_groups(self) -> None:
        groups, self.groups_joined = getattr(self, "groups_joined", []), []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)

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
    def _snapshot(self) -> str | None:
        """The table for the audience this socket is in, read now. None if the membership changed since it was
        last read (that change's order is queued behind, and follows) or the encounter is gone."""
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
        return fragments.for_viewer(encounter, store.load_state(encounter), membership)
