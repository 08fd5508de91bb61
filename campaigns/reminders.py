"""Delivering reminders and cancellation notices: by e-mail and in the app, each exactly once.

One Celery beat task, `send_due_reminders`, runs every minute (several workers may run it at the same time,
and a sweep may overlap the next one). A Reminder row goes through two phases:

1. Claim. In one short transaction a sweep locks due rows with SELECT … FOR UPDATE SKIP LOCKED, stamps
   them with `claimed_at` and its own `claim_token`, and commits. A concurrent sweep skips the locked rows,
   and once the claim is committed the rows no longer match "unclaimed or claim expired", so each row is
   claimed by one sweep only. (The stamping UPDATE repeats the "claimable" condition, so the claim stays
   exclusive even without row locks, e.g. on SQLite, which serialises write transactions.)
2. Deliver, outside any transaction (no row locks are held across network I/O). The sweep re-reads the row
   by (pk, its token): if the row was rescheduled, deleted or re-claimed meanwhile, it leaves it. Otherwise it
   checks the row is still wanted (session still scheduled and ahead, member still in the campaign and not
   opted out), sends the e-mail, then in ONE transaction sets `sent_at` (only where its token still holds
   and sent_at is empty) and creates the in-app Notification. The notification row is unique per reminder.

Failure handling, and why this is "exactly once" in every case but one:
* The e-mail backend raises: the sweep records `last_error`, releases the claim and sets `retry_at` (1, 2,
  3, 4 minutes later); a later sweep retries. After MAX_ATTEMPTS failures the reminder is delivered in the
  app only and the error stays on the row.
* A worker dies after claiming but before sending: its claim expires after CLAIM_TIMEOUT and a later
  sweep delivers the row (flagged late). Nothing is lost.
* A worker dies after the e-mail left but before `sent_at` was committed: after CLAIM_TIMEOUT the row is
  claimed again and the e-mail goes a second time. This window (one SMTP round trip) is the only way to
  get a duplicate e-mail; we prefer it to the alternative (mark first, send after: a crash loses the
  reminder silently). The in-app notification is written in the same transaction as `sent_at`, so it is
  exactly once even then.
* A sweep never starts sending a row whose claim is about to expire (CLAIM_MARGIN), so a slow sweep cannot
  overlap with another sweep that re-claimed the same row; EMAIL_TIMEOUT bounds each send.
* A row that raises anything else is released with its error and retried a minute later; the rest of the
  batch goes on.

No ETA/countdown tasks are used: the schedule lives in the Reminder rows, so it survives restarts, is
recomputed in place when a session moves, and works the same with CELERY_TASK_ALWAYS_EAGER.

A reminder sent more than LATE_AFTER after its send time (the workers were down) is marked `late`. When
several reminders of one member for one session are overdue together, only the latest one is sent; the
others are skipped as superseded, so a member does not get "in 24 hours" and "in 1 hour" at once.
"""

import logging
import time
import uuid
import zoneinfo
from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import dateformat, timezone
from django.utils.timesince import timeuntil

from campaigns import notices
from campaigns.models import GameSession, Membership, Notification, Reminder

log = logging.getLogger(__name__)

CLAIM_TIMEOUT = timedelta(minutes=10)
CLAIM_MARGIN = timedelta(minutes=2)  # do not start a send this close to the claim's expiry
LATE_AFTER = timedelta(minutes=5)
MAX_ATTEMPTS = 5
RETRY_DELAY = timedelta(minutes=1)  # after the n-th failed send, wait n minutes
BATCH_SIZE = 50
TIME_BUDGET_SECONDS = 50  # a sweep stops claiming after this; the next one (a minute later) carries on


def due_for_claim(now):
    """Rows a sweep may claim now: due, not finished, and not held by a live claim."""
    return (
        Reminder.objects.pending()
        .filter(send_at__lte=now)
        .filter(Q(claimed_at__isnull=True) | Q(claimed_at__lt=now - CLAIM_TIMEOUT))
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
        .order_by("send_at", "pk")
    )


def claim_due(limit=BATCH_SIZE) -> tuple[uuid.UUID, list[int]]:
    """Phase 1: claim up to `limit` due rows for this sweep, in one committed transaction."""
    token = uuid.uuid4()
    with transaction.atomic():
        now = timezone.now()
        ids = list(due_for_claim(now).select_for_update(skip_locked=True).values_list("pk", flat=True)[:limit])
        if not ids:
            return token, []
        # The row locks make this UPDATE ours alone; repeating the "claimable" condition in it keeps the claim
        # exclusive even where FOR UPDATE is a no-op (SQLite, which serialises write transactions instead).
        due_for_claim(now).filter(pk__in=ids).update(claimed_at=now, claim_token=token)
        ids = list(Reminder.objects.filter(pk__in=ids, claim_token=token).values_list("pk", flat=True))
    return token, ids


def send_due_reminders(*, batch_size=BATCH_SIZE, time_budget=TIME_BUDGET_SECONDS) -> dict:
    """One sweep: claim and deliver batches until nothing is due or the time budget is spent."""
    outcomes = Counter()
    deadline = time.monotonic() + time_budget
    while time.monotonic() < deadline:
        token, ids = claim_due(batch_size)
        if not ids:
            break
        for pk in ids:
            try:
                outcomes[deliver(pk, token)] += 1
            except Exception as exc:  # one broken row must not hold up the others; it is retried later
                log.exception("Reminder %s could not be delivered", pk)
                Reminder.objects.filter(pk=pk, claim_token=token, sent_at__isnull=True).update(
                    claimed_at=None,
                    claim_token=None,
                    retry_at=timezone.now() + RETRY_DELAY,
                    last_error=f"{type(exc).__name__}: {exc}"[:500],
                )
                outcomes["error"] += 1
    return dict(outcomes)


def deliver(pk: int, token: uuid.UUID) -> str:
    """Phase 2 for one claimed row. Returns what happened: sent, skipped, failed, released or lost."""
    reminder = (
        Reminder.objects.select_related("session__campaign", "user")
        .filter(pk=pk, claim_token=token, sent_at__isnull=True, skipped_reason="")
        .first()
    )
    if reminder is None:
        return "lost"  # rescheduled, deleted or re-claimed since we claimed it: not ours to send any more
    now = timezone.now()
    mine = Reminder.objects.filter(pk=pk, claim_token=token, sent_at__isnull=True, skipped_reason="")
    reason = _skip_reason(reminder, now)
    if reason:
        mine.update(skipped_reason=reason)
        return "skipped"
    if now >= reminder.claimed_at + CLAIM_TIMEOUT - CLAIM_MARGIN:
        mine.update(claimed_at=None, claim_token=None)  # too close to expiry: let a fresh claim take it
        return "released"
    mine.update(attempts=reminder.attempts + 1)
    subject, body, text = compose(reminder, now)
    error = ""
    if reminder.user.email:
        try:
            send_mail(subject, body, None, [reminder.user.email])
        except Exception as exc:  # any backend failure: record it and retry on a later sweep
            error = f"{type(exc).__name__}: {exc}"[:500]
            log.warning("Reminder %s: e-mail failed (attempt %s): %s", pk, reminder.attempts + 1, error)
            if reminder.attempts + 1 < MAX_ATTEMPTS:
                retry_at = now + RETRY_DELAY * (reminder.attempts + 1)
                mine.update(claimed_at=None, claim_token=None, last_error=error, retry_at=retry_at)
                return "failed"
    with transaction.atomic():
        sent_at = timezone.now()
        marked = mine.update(sent_at=sent_at, late=sent_at - reminder.send_at > LATE_AFTER, last_error=error)
        if not marked:
            # The row changed under us mid-send: rescheduled (it will go again at its new time) or, if the
            # send outlived CLAIM_TIMEOUT, re-claimed by another sweep.
            log.error("Reminder %s was e-mailed but the row changed meanwhile; it may be sent again.", pk)
            return "lost"
        row = Notification.objects.create(
            user=reminder.user,
            campaign=reminder.session.campaign,
            text=text,
            url=reminder.session.get_absolute_url(),
            reminder=reminder,
        )
        notices.announce(row)  # live to the member's open pages (when the worker shares their channel layer)
    return "sent"


def _skip_reason(reminder: Reminder, now) -> str:
    session = reminder.session
    membership = Membership.objects.filter(campaign_id=session.campaign_id, user_id=reminder.user_id).first()
    if membership is None:
        return "left the campaign"
    if reminder.kind == Reminder.Kind.CANCELLATION:
        return "" if session.status == GameSession.Status.CANCELLED else "session is no longer cancelled"
    if session.status != GameSession.Status.SCHEDULED:
        return f"session {session.get_status_display().lower()}"
    if session.starts_at <= now:
        return "session already started"
    if reminder.send_at != session.starts_at - timedelta(minutes=reminder.offset_minutes):
        return "session was moved"
    if membership.reminders_opt_out:
        return "opted out"
    later_due = (
        Reminder.objects.pending()
        .filter(
            session=session,
            user_id=reminder.user_id,
            kind=Reminder.Kind.REMINDER,
            send_at__gt=reminder.send_at,
            send_at__lte=now,
        )
        .exists()
    )
    if later_due:
        return "superseded by a later reminder"
    return ""


def local_time(dt, user) -> str:
    """'Friday 10 January, 20:00 CET' in the user's own time zone."""
    try:
        tz = zoneinfo.ZoneInfo(user.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = zoneinfo.ZoneInfo("UTC")
    return dateformat.format(timezone.localtime(dt, tz), "l j F, H:i T")


def compose(reminder: Reminder, now) -> tuple[str, str, str]:
    """(e-mail subject, e-mail body, in-app text), written from the session as it is now."""
    session = reminder.session
    campaign = session.campaign
    when = local_time(session.starts_at, reminder.user)
    url = settings.FRAY_BASE_URL.rstrip("/") + session.get_absolute_url()
    if reminder.kind == Reminder.Kind.CANCELLATION:
        subject = f"Cancelled: {session.title} ({campaign.name})"
        text = f"{session.title} on {when} was cancelled."
        if session.cancel_reason:
            text += f" {session.cancel_reason}"
    else:
        until = timeuntil(session.starts_at, now, depth=1).replace("\xa0", " ")
        subject = f"Reminder: {session.title} starts in {until}"
        text = f"{session.title} starts {when} (in {until})."
    body = f"{campaign.name}\n\n{text}\n\n{url}\n"
    if reminder.kind == Reminder.Kind.REMINDER:
        body += "\nYou can turn reminders off for this campaign on the session page.\n"
    return subject, body, f"{campaign.name}: {text}"[:500]
