"""Game sessions, RSVPs, reminder schedules, notifications and calendar tokens: the only writers of these rows.

Reminder rows are a schedule derived from the session, the campaign's offsets and its members. Every
change that can move that schedule calls `sync_reminders`, which brings the *pending* rows in line and
never touches rows already sent or skipped. Delivery is campaigns/reminders.py.
"""

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from campaigns import notices, reminders
from campaigns.errors import ServiceError
from campaigns.models import (
    CalendarFeed,
    Campaign,
    GameSession,
    Membership,
    Notification,
    Reminder,
    Rsvp,
    new_calendar_token,
    parse_reminder_offsets,
)


def _lock(session: GameSession) -> GameSession:
    return GameSession.objects.select_for_update().select_related("campaign").get(pk=session.pk)


@transaction.atomic
def create_session(campaign: Campaign, by, *, title, starts_at, duration_minutes, notes="") -> GameSession:
    session = GameSession(
        campaign=campaign,
        created_by=by,
        title=title,
        starts_at=starts_at,
        duration_minutes=duration_minutes,
        notes=notes,
    )
    session.full_clean()
    session.save()
    sync_reminders(session)
    _announce(session, by, "is planned for")
    return session


@transaction.atomic
def update_session(session: GameSession, *, title, starts_at, duration_minutes, notes="", by=None) -> GameSession:
    """`by`: who changed it; every other member is told when the session moved to another time."""
    session = _lock(session)
    moved = starts_at != session.starts_at
    if not session.is_scheduled:
        raise ServiceError(f"This session is {session.get_status_display().lower()}; it can no longer be changed.")
    changed = (title, starts_at, duration_minutes, notes) != (
        session.title,
        session.starts_at,
        session.duration_minutes,
        session.notes,
    )
    session.title, session.starts_at, session.duration_minutes, session.notes = (
        title,
        starts_at,
        duration_minutes,
        notes,
    )
    if changed:
        session.sequence += 1
    session.full_clean()
    session.save()
    sync_reminders(session)
    if moved:
        _announce(session, by, "was moved to")
    return session


def _announce(session: GameSession, by, what: str) -> None:
    """A notification and a live notice to every member but `by`: "<campaign>: <title> <what> <their local time>."."""
    campaign = session.campaign

    def text(user) -> str:
        return f"{campaign.name}: {session.title} {what} {reminders.local_time(session.starts_at, user)}."

    notices.notify_members(campaign, by, text=text, url=session.get_absolute_url(), action="Open")


@transaction.atomic
def cancel_session(session: GameSession, by, reason: str = "") -> GameSession:
    """Cancel, drop the reminders still owed, and queue a cancellation notice to every other member.

    The notices go out with the next reminder sweep (within a minute), to members who opted out of
    reminders too: a cancellation is news, not a reminder. The person who cancelled is not told.
    """
    session = _lock(session)
    if not session.is_scheduled:
        raise ServiceError(f"This session is already {session.get_status_display().lower()}.")
    now = timezone.now()
    session.status = GameSession.Status.CANCELLED
    session.cancel_reason = reason.strip()
    session.sequence += 1
    session.save(update_fields=["status", "cancel_reason", "sequence", "updated_at"])
    session.reminders.pending().filter(kind=Reminder.Kind.REMINDER).delete()
    members = session.campaign.memberships.exclude(user=by).values_list("user_id", flat=True)
    Reminder.objects.bulk_create(
        [
            Reminder(session=session, user_id=user_id, kind=Reminder.Kind.CANCELLATION, send_at=now)
            for user_id in members
        ]
    )
    return session


@transaction.atomic
def mark_done(session: GameSession) -> GameSession:
    session = _lock(session)
    if not session.is_scheduled:
        raise ServiceError(f"This session is already {session.get_status_display().lower()}.")
    if session.starts_at > timezone.now():
        raise ServiceError("A session can be marked done once it has started.")
    session.status = GameSession.Status.DONE
    session.save(update_fields=["status", "updated_at"])
    session.reminders.pending().filter(kind=Reminder.Kind.REMINDER).delete()
    return session


def set_recap(session: GameSession, recap: str) -> GameSession:
    """The GM's recap notes (loot, what happened), at any time: they are typed after play. The caller has checked
    that the user is a GM of the session's campaign."""
    session.recap = recap
    session.save(update_fields=["recap", "updated_at"])
    return session


def set_rsvp(session: GameSession, user, answer: str) -> Rsvp:
    """The member's own answer. The caller has checked that `user` is a member of the session's campaign."""
    if answer not in Rsvp.Answer.values:
        raise ServiceError("Answer going, maybe or can't make it.")
    if not session.is_scheduled:
        raise ServiceError(f"This session is {session.get_status_display().lower()}; answers are closed.")
    rsvp, _ = Rsvp.objects.update_or_create(session=session, user=user, defaults={"answer": answer})
    return rsvp


@transaction.atomic
def set_reminders_opt_out(membership: Membership, opt_out: bool) -> Membership:
    membership = Membership.objects.select_for_update().select_related("campaign").get(pk=membership.pk)
    if membership.reminders_opt_out != opt_out:
        membership.reminders_opt_out = opt_out
        membership.save(update_fields=["reminders_opt_out"])
        sync_campaign_reminders(membership.campaign)
    return membership


# Reminder schedule ------------------------------------------------------------------------------------------


def sync_reminders(session: GameSession, now=None) -> None:
    """Make the session's pending reminders match its start, the campaign's offsets and its members.

    * A pending row whose send time is unchanged stays, even if it is already due and not yet swept.
    * A pending row whose send time moved is updated in place (its claim is cleared, so a sweep that was
      about to send it finds the row changed and leaves it) — or deleted if the new time has passed.
    * Rows for new members or offsets are added when their send time is still ahead.
    * Sent and skipped rows are history: never touched.
    Runs inside the caller's transaction.
    """
    now = now or timezone.now()
    wanted: dict[tuple[int, int], object] = {}
    if session.status == GameSession.Status.SCHEDULED:
        offsets = parse_reminder_offsets(session.campaign.reminder_offsets)
        users = session.campaign.memberships.filter(reminders_opt_out=False).values_list("user_id", flat=True)
        for user_id in users:
            for minutes in offsets:
                wanted[(user_id, minutes)] = session.starts_at - timedelta(minutes=minutes)
    pending = session.reminders.pending().filter(kind=Reminder.Kind.REMINDER).select_for_update()
    for reminder in pending:
        key = (reminder.user_id, reminder.offset_minutes)
        target = wanted.pop(key, None)
        if target is None:
            reminder.delete()
        elif reminder.send_at == target:
            continue
        elif target > now:
            Reminder.objects.filter(pk=reminder.pk).update(
                send_at=target, claimed_at=None, claim_token=None, attempts=0, last_error="", retry_at=None
            )
        else:
            reminder.delete()
    Reminder.objects.bulk_create(
        [
            Reminder(session=session, user_id=user_id, offset_minutes=minutes, send_at=send_at)
            for (user_id, minutes), send_at in wanted.items()
            if send_at > now
        ]
    )


def sync_campaign_reminders(campaign: Campaign) -> None:
    """After the offsets or the members changed: every scheduled session still ahead."""
    with transaction.atomic():
        for session in campaign.game_sessions.select_related("campaign").filter(
            status=GameSession.Status.SCHEDULED, starts_at__gt=timezone.now()
        ):
            sync_reminders(session)


def forget_member_reminders(campaign: Campaign, user) -> int:
    """A member left: drop what they were still owed about this campaign."""
    deleted, _ = Reminder.objects.pending().filter(session__campaign=campaign, user=user).delete()
    return deleted


# Notifications and calendar ---------------------------------------------------------------------------------


def mark_read(user, notification_ids) -> int:
    return Notification.objects.filter(user=user, pk__in=list(notification_ids), read_at__isnull=True).update(
        read_at=timezone.now()
    )


def calendar_feed_for(user) -> CalendarFeed:
    feed, _ = CalendarFeed.objects.get_or_create(user=user)
    return feed


@transaction.atomic
def rotate_calendar_token(user) -> CalendarFeed:
    feed, created = CalendarFeed.objects.select_for_update().get_or_create(user=user)
    if not created:
        feed.token = new_calendar_token()
        feed.rotated_at = timezone.now()
        feed.save(update_fields=["token", "rotated_at"])
    return feed
