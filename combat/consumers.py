"""The live table over a websocket: members only, one group per audience, full state on every (re)connect."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from campaigns.models import Membership
from combat import fragments, store
from combat.broadcast import gm_group, players_group
from combat.models import Encounter

MAX_FRAME = 4096  # clients only ever send a tiny "hello"; anything bigger is refused


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        self.groups_joined: list[str] = []
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        kwargs = self.scope["url_route"]["kwargs"]
        found = await self._load(user, kwargs["campaign_id"], kwargs["encounter_id"])
        if found is None:
            await self.close(code=4404)
            return
        self.encounter_id, self.is_gm = found
        self.own_key = str(user.pk)  # picks this player's own controls out of each players' message
        groups = [gm_group(self.encounter_id) if self.is_gm else players_group(self.encounter_id)]
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        await self.accept()
        html = await self._snapshot(user)
        if html is None:
            await self.close(code=4404)
            return
        await self.send(text_data=html)

    async def disconnect(self, code):
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        # Actions go over HTTP (they must survive a dropped socket); the socket only asks for a resync.
        if bytes_data is not None or text_data is None or len(text_data) > MAX_FRAME:
            await self.close(code=4400)
            return
        html = await self._snapshot(self.scope["user"])
        if html is None:  # removed from the campaign since connecting
            await self.close(code=4404)
            return
        await self.send(text_data=html)

    async def dispatch(self, message):
        # A table fragment only forwards text: no database, so none of Channels' per-message clean-up of old
        # database connections, which costs a trip to a worker thread for every socket on every action.
        if message.get("type") == "table.fragment":
            await self.table_fragment(message)
            return
        await super().dispatch(message)

    async def table_fragment(self, event):
        # One frame: the audience's table, then (for a PC's owner) their own controls; never another player's.
        await self.send(text_data=event["html"] + event.get("own", {}).get(self.own_key, ""))

    @database_sync_to_async
    def _load(self, user, campaign_id, encounter_id):
        if campaign_id >= 2**63 or encounter_id >= 2**63:  # no such row; SQLite cannot even bind the number
            return None
        membership = Membership.objects.filter(campaign_id=campaign_id, user=user).first()
        if membership is None:
            return None
        encounter = Encounter.objects.filter(pk=encounter_id, campaign_id=campaign_id).first()
        if encounter is None or (encounter.status == Encounter.Status.DRAFT and not membership.is_gm):
            return None
        return encounter.pk, membership.is_gm

    @database_sync_to_async
    def _snapshot(self, user) -> str | None:
        encounter = Encounter.objects.select_related("campaign").get(pk=self.encounter_id)
        membership = Membership.objects.filter(campaign_id=encounter.campaign_id, user=user).first()
        if membership is None:
            return None
        return fragments.for_viewer(encounter, store.load_state(encounter), membership)
