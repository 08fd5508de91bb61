"""Which players have the live table open right now: the GM's connected-players strip.

Every accepted socket of the table has an OpenSocket row, whichever daphne process holds it, so the strip reads
the same on every process (one database, and the channel layer tells every GM socket when to read it again). A
socket refreshes its row on the page's heartbeat at most every SEEN_EVERY seconds, so the ping stays free of the
database almost always; a row not seen for GONE_AFTER seconds belongs to a process that stopped without closing
its sockets, and no longer counts.

After a player's socket opens or closes, the socket sends the GMs' group a bare `presence.changed`: each GM socket
reads the rows then and sends its strip if it changed. Reading at that moment, rather than sending HTML rendered
by whichever process saw the change, keeps the strip right when two processes' messages overtake each other.
The players' group never gets it, and the strip is only rendered for a member who is the campaign's GM now.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from campaigns.models import Membership
from combat.models import Combatant, Encounter, OpenSocket

SEEN_EVERY = 20  # seconds: how often an open socket refreshes its row (on a heartbeat, never more often)
GONE_AFTER = 60  # seconds: a row not refreshed for this long is from a process that stopped
PRESENCE_CHANGED = "presence.changed"  # {"type": ..., "group": the GMs' group}: read the strip again


@dataclass(frozen=True)
class Player:
    name: str
    characters: list[str]
    connected: bool


def opened(channel_name: str, encounter_id: int, user_id: int) -> None:
    """A socket was accepted. Rows of this encounter's sockets that no longer count go (one still open after all
    makes its row again on its next heartbeat: `seen`)."""
    now = timezone.now()
    OpenSocket.objects.filter(encounter_id=encounter_id, seen_at__lt=now - timedelta(seconds=GONE_AFTER)).delete()
    try:
        with transaction.atomic():
            OpenSocket.objects.update_or_create(
                channel_name=channel_name,
                defaults={"encounter_id": encounter_id, "user_id": user_id, "opened_at": now, "seen_at": now},
            )
    except IntegrityError:  # the encounter (or the user) was deleted just now: its sockets are being closed
        pass


def closed(channel_name: str) -> None:
    OpenSocket.objects.filter(channel_name=channel_name).delete()


def seen(channel_name: str, encounter_id: int, user_id: int) -> bool:
    """The socket is still open (its heartbeat). True if its row had gone (counted as stopped): it is back."""
    if OpenSocket.objects.filter(channel_name=channel_name).update(seen_at=timezone.now()):
        return False
    opened(channel_name, encounter_id, user_id)
    return True


def players(encounter: Encounter) -> list[Player]:
    """Every player of the campaign (not its GMs), with the characters they play in this encounter and whether
    a socket of theirs on it was seen lately (one line each, however many tabs they have open)."""
    members = Membership.objects.filter(campaign_id=encounter.campaign_id, role=Membership.Role.PLAYER)
    members = members.select_related("user")  # in the order they joined, as the campaign page lists them
    characters: dict[int, list[str]] = {}
    for owner_id, name in (
        Combatant.objects.filter(encounter=encounter, side=Combatant.Side.PC, owner__isnull=False)
        .order_by("pk")
        .values_list("owner_id", "name")
    ):
        characters.setdefault(owner_id, []).append(name)
    since = timezone.now() - timedelta(seconds=GONE_AFTER)
    connected = set(
        OpenSocket.objects.filter(encounter=encounter, seen_at__gte=since).values_list("user_id", flat=True)
    )
    return [Player(str(m.user), characters.get(m.user_id, []), m.user_id in connected) for m in members]


def strip_html(encounter: Encounter) -> str:
    """The strip as a fragment (its own id, hx-swap-oob), for the GM's page and the GM's sockets."""
    return str(render_to_string("combat/presence.html", {"encounter": encounter, "players": players(encounter)}))


def strip_for(encounter_id: int, campaign_id: int, user) -> str | None:
    """The strip, read now, if `user` is a GM of the encounter's campaign now; None for anyone else."""
    if not Membership.objects.filter(campaign_id=campaign_id, user=user, role=Membership.Role.GM).exists():
        return None
    encounter = Encounter.objects.filter(pk=encounter_id, campaign_id=campaign_id).first()
    return None if encounter is None else strip_html(encounter)
