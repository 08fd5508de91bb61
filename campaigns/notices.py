"""Live notices on every Fray page: an encounter of your campaign started, a session was planned or moved, your turn.

News for the members (an encounter started, a session planned or moved) is a Notification row for each member but
the one who made it, written in the caller's transaction: the bell counts it, and a channel layer that is down loses
nothing (the next page shows it). After commit each member's open sockets get one frame of their own: the notice,
for the page's polite live region, and the bell link with their unread count, both out of band
(templates/partials/notice.html). A reminder the sweep delivers (campaigns.reminders) goes out live the same way.

"Your turn" writes no row: a turn is over in a minute, and a bell that later says "your turn" would send the player
to a fight that has moved on. It is only a frame, marked with its encounter (`turn_of`), so that encounter's own
page, which shows the turn already, leaves it out (combat.consumers); the page raises a browser notification from
it when the tab is in the background and the player allowed that (static/js/notices.js).

Every socket of a user gets these over `user-<id>` (campaigns.live): the notice socket of an ordinary page
(campaigns.consumers) or the table socket of an encounter page. The texts name only what every member may see
(the campaign, a started encounter, a session); the callers choose who is told.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction
from django.template.loader import render_to_string

from campaigns.live import publish
from campaigns.models import Campaign, Notification

log = logging.getLogger(__name__)

NOTICE = "user.notice"  # {"type": ..., "html": one frame for this user, "turn_of": an encounter id or None}


def notify_members(campaign: Campaign, by, *, text: Callable[..., str], url: str, action: str) -> list[Notification]:
    """A Notification for every member of `campaign` but `by`, and after commit a live notice to each of them.
    `text(user)`: the sentence for that member (their own time zone, say); `action`: the link's words ("Join")."""
    members = [m.user for m in campaign.memberships.exclude(user=by).select_related("user")]
    rows = Notification.objects.bulk_create(
        [Notification(user=user, campaign=campaign, text=text(user)[:500], url=url) for user in members]
    )
    notices = [(row.user, row.text, url, action) for row in rows]
    transaction.on_commit(lambda: _publish(notices, bell=True), robust=True)
    return rows


def announce(row: Notification, action: str = "Open") -> None:
    """After commit, the live notice of a Notification written elsewhere (a reminder the sweep delivered), with the
    bell that counts it."""
    notice = (row.user, row.text, row.url, action)
    transaction.on_commit(lambda: _publish([notice], bell=True), robust=True)


def your_turn(user_id: int, *, text: str, url: str, encounter_id: int) -> None:
    """After commit, tell the user their turn has come ("Your turn in …"): a notice only, no row."""
    notice = (user_id, text, url, "Open")
    transaction.on_commit(lambda: _publish([notice], bell=False, turn_of=encounter_id), robust=True)


def bell_html(user) -> str:
    """The bell link with the user's unread count, to replace the page's own (out of band)."""
    return str(render_to_string("partials/notifications_link.html", {"user": user, "oob": True}))


def _publish(notices, *, bell: bool, turn_of: int | None = None) -> None:
    for user, text, url, action in notices:
        user_id = getattr(user, "pk", user)
        try:
            html = render_to_string(
                "partials/notice.html", {"text": text, "url": url, "action": action, "browser": turn_of is not None}
            )
            if bell:
                html += bell_html(user)
        except Exception:
            log.exception("could not render a notice for user %s; their bell shows it on the next page", user_id)
            continue
        publish(user_id, {"type": NOTICE, "html": str(html), "turn_of": turn_of})
