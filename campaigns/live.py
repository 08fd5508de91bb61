"""Orders to every open socket of one user, over the channel group `user-<id>` that each of their sockets joins.

`send_to_user` publishes once the current transaction commits. A channel layer that is down is logged and
ignored: the change stands, and the socket catches up on its next resync or reconnect. `publish` sends at once,
for a caller that runs after its commit already (campaigns.notices).

Membership: any change of a Membership row (a role set, a member removed, a campaign or a user deleted, through
a service or the admin) tells that user's sockets to read their membership again (combat.consumers).
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from campaigns.models import Membership

log = logging.getLogger(__name__)

MEMBERSHIP_CHANGED = "membership.changed"  # {"type": ..., "campaign": id}: read your membership of it again


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def send_to_user(user_id: int, message: dict[str, Any]) -> None:
    """Send `message` (plain JSON-able values, a `type`) to every open socket of the user, after commit."""
    group = user_group(user_id)
    transaction.on_commit(lambda: _send(group, message), robust=True)


def publish(user_id: int, message: dict[str, Any]) -> None:
    """Send `message` to every open socket of the user now (a caller already past its commit)."""
    _send(user_group(user_id), message)


def _send(group: str, message: dict[str, Any]) -> None:
    try:
        async_to_sync(get_channel_layer().group_send)(group, message)
    except Exception:
        log.warning("channel layer unavailable; %s will catch up on its next resync", group, exc_info=True)


def membership_changed(user_id: int, campaign_id: int) -> None:
    send_to_user(user_id, {"type": MEMBERSHIP_CHANGED, "campaign": campaign_id})


@receiver(post_save, sender=Membership, dispatch_uid="live-membership-saved")
def _membership_saved(sender, instance: Membership, created: bool, update_fields=None, **kwargs) -> None:
    # A new member has no socket on the campaign yet; a save of other fields (reminder opt-out) changes no access.
    if created or (update_fields is not None and "role" not in update_fields):
        return
    membership_changed(instance.user_id, instance.campaign_id)


@receiver(post_delete, sender=Membership, dispatch_uid="live-membership-deleted")
def _membership_deleted(sender, instance: Membership, **kwargs) -> None:
    membership_changed(instance.user_id, instance.campaign_id)
