"""Share links: a finished encounter's review, read-only, for people without an account (issue 20).

The GM makes a link (an unguessable token, optionally ending on a date), sees the links that still work on the
log page and revokes any. The link opens the review as players see it in play: never a GM-only entry, even if
the GM has revealed the log to the campaign's players.

A watch link (kind "watch") opens a running encounter's live table as players see it (combat.spectators): the GM
makes it while the encounter runs (on the live table or the log page, optionally ending on a date) and revokes it,
which closes every spectator's socket of it at once (a group per link). Its overlay page (/watch/<token>/overlay/)
shows the same table, whose turn and health only, for a stream. It opens nothing once the encounter has ended; a
review link never opens the live table, nor a watch link the review.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from combat.models import Encounter, ShareLink
from combat.rules.core import RuleError

log = logging.getLogger(__name__)
WATCH_CLOSED = "watch.closed"  # the message that closes a revoked watch link's sockets


def watch_group(link_id: int) -> str:
    """The group of every spectator socket opened through one watch link."""
    return f"watch-{link_id}"


def share_review(encounter: Encounter, user, expires_at: datetime | None = None) -> ShareLink:
    """A new link to `encounter`'s review (the caller has checked that `user` is its GM)."""
    if encounter.status != Encounter.Status.ENDED:
        raise RuleError("Only a finished encounter's review can be shared; end the encounter first.")
    if expires_at is not None and expires_at <= timezone.now():
        raise RuleError("Choose an end date in the future, or leave it empty for a link that lasts.")
    return ShareLink.objects.create(
        encounter=encounter, token=secrets.token_urlsafe(24), created_by=user, expires_at=expires_at
    )


def watch_link(encounter: Encounter, user, expires_at: datetime | None = None) -> ShareLink:
    """A new spectator link to `encounter`'s live table (the caller has checked that `user` is its GM), working until
    `expires_at` if given."""
    if encounter.status != Encounter.Status.ACTIVE:
        raise RuleError("A watch link is for a running encounter: start it first (an ended one has its review).")
    if expires_at is not None and expires_at <= timezone.now():
        raise RuleError("Choose an end date in the future, or leave it empty for a link that lasts.")
    return ShareLink.objects.create(
        encounter=encounter,
        token=secrets.token_urlsafe(24),
        kind=ShareLink.Kind.WATCH,
        created_by=user,
        expires_at=expires_at,
    )


def revoke(encounter: Encounter, link_id: int) -> bool:
    """Revoke one of `encounter`'s links; False if it has no such link still working. A watch link's open sockets
    are closed once the revocation is committed."""
    with transaction.atomic():
        revoked = bool(
            ShareLink.objects.filter(encounter=encounter, pk=link_id, revoked_at__isnull=True).update(
                revoked_at=timezone.now()
            )
        )
        if revoked:
            transaction.on_commit(lambda: _close_watchers(link_id))
    return revoked


def _close_watchers(link_id: int) -> None:
    try:
        async_to_sync(get_channel_layer().group_send)(watch_group(link_id), {"type": WATCH_CLOSED})
    except Exception:  # a spectator's socket then lives on until it reconnects (and is refused)
        log.warning("channel layer unavailable; watch link %s's sockets stay open", link_id, exc_info=True)


def live_links(encounter: Encounter, kind: str = ShareLink.Kind.REVIEW) -> list[ShareLink]:
    links = ShareLink.objects.filter(encounter=encounter, kind=kind, revoked_at__isnull=True).order_by("-created_at")
    return [link for link in links if link.live]


def shared(token: str) -> Encounter | None:
    """The finished encounter a working link opens, or None (never made, revoked, expired, or too long)."""
    link = _link(token, ShareLink.Kind.REVIEW)
    if link is None or link.encounter.status != Encounter.Status.ENDED:
        return None
    return link.encounter


def watched(token: str) -> ShareLink | None:
    """The working watch link `token` names, its encounter running; else None (as for a token never made)."""
    link = _link(token, ShareLink.Kind.WATCH)
    if link is None or link.encounter.status != Encounter.Status.ACTIVE:
        return None
    return link


def _link(token: str, kind: str) -> ShareLink | None:
    if not token or len(token) > 64:
        return None
    link = ShareLink.objects.select_related("encounter__campaign").filter(token=token, kind=kind).first()
    return link if link is not None and link.live else None
