"""Reminder scheduling and the once-a-minute sweep, on a frozen clock.

The sweep is called directly (`reminders.send_due_reminders()`) as the beat task would; e-mails land in
Django's test outbox.
"""

import uuid
from datetime import UTC, datetime, timedelta
from unittest.mock import patch

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse

from campaigns import reminders, services, sessions
from campaigns.models import GameSession, Membership, Notification, Reminder
from config.celery import app as celery_app
from tests.clock import clock  # noqa: F401  (fixture)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 16, 19, 0, tzinfo=UTC)  # the clock starts a week before, at 2026-01-09 12:00 UTC


@pytest.fixture
def game(campaign, gm, clock):
    """A planned session, without the "is planned for" news it sent (tests/campaigns/test_notices.py): every
    notification these tests count is a reminder's."""
    session = sessions.create_session(campaign, gm, title="The relay", starts_at=START, duration_minutes=180)
    Notification.objects.filter(reminder=None).delete()
    return session


def sweep():
    return reminders.send_due_reminders()


def sent_to():
    return sorted(address for message in mail.outbox for address in message.to)


def pending(**filters):
    return Reminder.objects.pending().filter(**filters)


EVERYONE = ["ana@example.com", "ben@example.com", "gemma@example.com"]


# Scheduling ------------------------------------------------------------------------------------------------


def test_a_new_session_owes_each_member_a_reminder_24_h_and_1_h_before(game, gm, player, other_player):
    rows = sorted(Reminder.objects.values_list("user__username", "offset_minutes", "send_at", "kind"))
    assert rows == sorted(
        (user, minutes, START - timedelta(minutes=minutes), "reminder")
        for user in ("gemma", "ana", "ben")
        for minutes in (1440, 60)
    )


def test_nothing_is_sent_before_it_is_due(game, clock):
    clock.set(START - timedelta(hours=24, seconds=1))
    assert sweep() == {}
    assert mail.outbox == [] and not Notification.objects.exists()
    assert pending().count() == 6


def test_a_due_reminder_is_sent_once_by_mail_and_in_the_app(game, clock, player):
    player.timezone = "Europe/Paris"
    player.save()
    clock.set(START - timedelta(hours=24))
    assert sweep() == {"sent": 3}
    assert sent_to() == EVERYONE
    to_ana = next(m for m in mail.outbox if m.to == ["ana@example.com"])
    assert to_ana.subject == "Reminder: The relay starts in 1 day"
    assert "The relay starts Friday 16 January, 20:00 CET (in 1 day)." in to_ana.body  # her own time zone
    assert settings.FRAY_BASE_URL + game.get_absolute_url() in to_ana.body
    note = Notification.objects.get(user=player)
    assert note.text == "Drift: The relay starts Friday 16 January, 20:00 CET (in 1 day)."
    assert note.url == game.get_absolute_url() and note.campaign == game.campaign and note.read_at is None
    done = Reminder.objects.filter(offset_minutes=1440)
    assert all(r.sent_at == clock.now and not r.late and r.attempts == 1 for r in done)
    # Again, and again a minute later: nothing more.
    assert sweep() == {}
    clock.advance(minutes=1)
    assert sweep() == {}
    assert len(mail.outbox) == 3 and Notification.objects.count() == 3


def test_both_reminders_arrive_at_their_own_times(game, clock):
    clock.set(START - timedelta(hours=24))
    sweep()
    clock.set(START - timedelta(hours=1))
    assert sweep() == {"sent": 3}
    assert [m.subject for m in mail.outbox[3:]] == ["Reminder: The relay starts in 1 hour"] * 3
    assert not pending().exists()


def test_worker_down_for_an_hour_sends_late_once_and_marks_it_late(game, clock):
    clock.set(START - timedelta(hours=23))  # the 24 h reminders were due an hour ago
    assert sweep() == {"sent": 3}
    rows = Reminder.objects.filter(offset_minutes=1440)
    assert all(r.late and r.sent_at == clock.now for r in rows)
    assert mail.outbox[0].subject == "Reminder: The relay starts in 23 hours"
    assert sweep() == {}
    assert len(mail.outbox) == 3


def test_a_little_lateness_is_not_late(game, clock):
    clock.set(START - timedelta(hours=24) + timedelta(minutes=4))
    sweep()
    assert not Reminder.objects.filter(late=True).exists()
    assert Reminder.objects.filter(sent_at__isnull=False).count() == 3


def test_overdue_24_h_and_1_h_together_send_only_the_latest(game, clock):
    clock.set(START - timedelta(minutes=30))  # down for a day: both reminders overdue
    assert sweep() == {"sent": 3, "skipped": 3}
    assert [m.subject for m in mail.outbox] == ["Reminder: The relay starts in 30 minutes"] * 3
    assert set(Reminder.objects.filter(offset_minutes=1440).values_list("skipped_reason", flat=True)) == {
        "superseded by a later reminder"
    }
    assert all(r.late for r in Reminder.objects.filter(offset_minutes=60))


def test_reminders_are_not_sent_after_the_session_started(game, clock):
    clock.set(START + timedelta(minutes=5))
    assert sweep() == {"skipped": 6}
    assert mail.outbox == [] and not Notification.objects.exists()
    assert set(Reminder.objects.values_list("skipped_reason", flat=True)) == {"session already started"}


# Rescheduling ----------------------------------------------------------------------------------------------


def test_rescheduling_moves_unsent_reminders_and_leaves_sent_ones(game, clock):
    clock.set(START - timedelta(hours=24))
    sweep()
    sent_before = {r.pk: (r.send_at, r.sent_at) for r in Reminder.objects.filter(sent_at__isnull=False)}
    moved = START + timedelta(days=2)
    clock.advance(hours=2)
    sessions.update_session(game, title=game.title, starts_at=moved, duration_minutes=180)
    assert {r.pk: (r.send_at, r.sent_at) for r in Reminder.objects.filter(sent_at__isnull=False)} == sent_before
    assert sorted(pending().values_list("offset_minutes", "send_at")) == sorted(
        [(60, moved - timedelta(hours=1))] * 3 + [(1440, moved - timedelta(hours=24))] * 3
    )
    # The old times pass quietly; the new ones send, with the new date.
    clock.set(START - timedelta(hours=1))
    assert sweep() == {}
    clock.set(moved - timedelta(hours=24))
    assert sweep() == {"sent": 3}
    assert "Sunday 18 January, 19:00 UTC" in mail.outbox[-1].body


def test_moving_a_session_closer_drops_reminders_whose_time_has_passed(game, clock):
    sessions.update_session(game, title=game.title, starts_at=clock.now + timedelta(hours=3), duration_minutes=180)
    assert sorted(pending().values_list("offset_minutes", flat=True)) == [60, 60, 60]


def test_editing_notes_keeps_a_due_reminder_that_was_not_swept_yet(game, clock):
    clock.set(START - timedelta(hours=1) + timedelta(seconds=30))  # due 30 s ago, sweep not run yet
    sessions.update_session(game, title=game.title, starts_at=START, duration_minutes=180, notes="Snacks: Ben")
    assert sweep() == {"sent": 3, "skipped": 3}  # the 24 h ones were never sent; 1 h supersedes them
    assert [m.subject for m in mail.outbox] == ["Reminder: The relay starts in 59 minutes"] * 3


def test_a_claimed_reminder_that_gets_rescheduled_is_not_sent_by_the_old_claim(game, clock):
    clock.set(START - timedelta(hours=1))
    token, ids = reminders.claim_due()
    assert len(ids) == 6
    sessions.update_session(game, title=game.title, starts_at=START + timedelta(hours=5), duration_minutes=180)
    assert {reminders.deliver(pk, token) for pk in ids} == {"lost"}
    assert mail.outbox == []


def test_changing_the_campaign_offsets_recomputes_the_schedule(client, gm, game, campaign, clock):
    client.force_login(gm)
    response = client.post(
        reverse("campaign_edit", args=[campaign.pk]),
        {
            "name": campaign.name,
            "combat_model": campaign.combat_model,
            "enemy_health_visibility": "exact",
            "reminder_offsets": "48, 0.5, 48h",
        },
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.reminder_offsets == "48,0.5"
    assert sorted(set(pending().values_list("offset_minutes", "send_at"))) == [
        (30, START - timedelta(minutes=30)),
        (2880, START - timedelta(hours=48)),
    ]
    client.post(
        reverse("campaign_edit", args=[campaign.pk]),
        {
            "name": campaign.name,
            "combat_model": campaign.combat_model,
            "enemy_health_visibility": "exact",
            "reminder_offsets": "",
        },
    )
    assert not pending().exists()


@pytest.mark.parametrize(
    "value, sentence",
    [
        ("soon", "“soon” is not a number of hours. Write hours separated by commas, such as 24, 1."),
        ("-1", "Each reminder must be a positive number of hours before the session."),
        ("0", "Each reminder must be a positive number of hours before the session."),
        ("0.01", "0.01 hours is not a whole number of minutes; use, for example, 0.5 for 30 minutes."),
        ("200", "A reminder can be at most 168 hours (one week) before the session."),
        ("1,2,3,4,5", "Choose at most 4 reminders."),
    ],
)
def test_bad_offsets_are_explained(client, gm, campaign, value, sentence):
    client.force_login(gm)
    response = client.post(
        reverse("campaign_edit", args=[campaign.pk]),
        {
            "name": campaign.name,
            "combat_model": campaign.combat_model,
            "enemy_health_visibility": "exact",
            "reminder_offsets": value,
        },
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert f'<p class="error" role="alert">{sentence}</p>' in page
    campaign.refresh_from_db()
    assert campaign.reminder_offsets == "24,1"


# Cancelling ------------------------------------------------------------------------------------------------


def test_cancelling_drops_reminders_and_notifies_everyone_else_once(game, gm, player, clock):
    Membership.objects.filter(user=player).update(reminders_opt_out=True)  # notices are not reminders
    clock.set(START - timedelta(hours=30))
    sessions.cancel_session(game, gm, "Half the table is ill.")
    assert not pending(kind="reminder").exists()
    assert sorted(pending(kind="cancellation").values_list("user__username", flat=True)) == ["ana", "ben"]
    clock.advance(seconds=40)
    assert sweep() == {"sent": 2}
    assert sent_to() == ["ana@example.com", "ben@example.com"]
    assert mail.outbox[0].subject == "Cancelled: The relay (Drift)"
    assert "The relay on Friday 16 January, 19:00 UTC was cancelled. Half the table is ill." in mail.outbox[0].body
    assert Notification.objects.filter(text__contains="was cancelled").count() == 2
    clock.set(START - timedelta(hours=1))
    assert sweep() == {}
    assert len(mail.outbox) == 2


def test_a_reminder_for_a_session_cancelled_behind_its_back_is_skipped(game, clock):
    GameSession.objects.filter(pk=game.pk).update(status="cancelled")  # no service: the sweep checks anyway
    clock.set(START - timedelta(hours=1))
    assert sweep() == {"skipped": 6}
    assert mail.outbox == []
    assert set(Reminder.objects.values_list("skipped_reason", flat=True)) == {"session cancelled"}


def test_marking_done_drops_what_is_left(game, clock):
    clock.set(START + timedelta(minutes=1))
    sessions.mark_done(game)
    assert not pending().exists()


# Who gets them ---------------------------------------------------------------------------------------------


def test_a_member_who_opted_out_gets_none_and_can_opt_back_in(client, game, player, clock):
    client.force_login(player)
    url = reverse("reminder_preference", args=[game.campaign_id])
    response = client.post(url, {"reminders": "off"}, headers={"HX-Request": "true"})
    assert response.status_code == 200 and "Reminders are <strong>off</strong>" in response.content.decode()
    assert Membership.objects.get(user=player, campaign=game.campaign).reminders_opt_out
    assert not pending(user=player).exists()
    clock.set(START - timedelta(hours=24))
    sweep()
    assert sent_to() == ["ben@example.com", "gemma@example.com"]
    client.post(url, {"reminders": "on"})
    assert list(pending(user=player).values_list("offset_minutes", flat=True)) == [60]  # the 24 h one has passed
    clock.set(START - timedelta(hours=1))
    sweep()
    assert "ana@example.com" in sent_to()


def test_opting_out_after_rows_exist_is_honoured_by_the_sweep(game, player, clock):
    Membership.objects.filter(user=player).update(reminders_opt_out=True)  # rows still there
    clock.set(START - timedelta(hours=24))
    assert sweep() == {"sent": 2, "skipped": 1}
    assert Reminder.objects.get(user=player, offset_minutes=1440).skipped_reason == "opted out"
    assert "ana@example.com" not in sent_to()


def test_a_member_who_left_gets_nothing(game, campaign, player, other_player, clock):
    services.remove_member(campaign, Membership.objects.get(campaign=campaign, user=player))
    assert not pending(user=player).exists()
    Membership.objects.filter(user=other_player).delete()  # left some other way: the sweep checks
    clock.set(START - timedelta(hours=24))
    assert sweep() == {"sent": 1, "skipped": 1}
    assert sent_to() == ["gemma@example.com"]
    assert Reminder.objects.get(user=other_player, offset_minutes=1440).skipped_reason == "left the campaign"


def test_a_new_member_is_reminded_of_sessions_ahead(game, campaign, gm, clock):
    newcomer = make_user("cleo")
    invite = services.regenerate_invite(campaign, gm, days=7)
    services.join_campaign(newcomer, invite)
    assert sorted(pending(user=newcomer).values_list("offset_minutes", flat=True)) == [60, 1440]


def test_without_an_email_address_the_reminder_is_in_the_app_only(game, player, clock):
    player.email = ""
    player.save()
    clock.set(START - timedelta(hours=24))
    assert sweep() == {"sent": 3}
    assert "ana@example.com" not in sent_to() and len(mail.outbox) == 2
    assert Notification.objects.filter(user=player).count() == 1


# Failures and crashes --------------------------------------------------------------------------------------


def test_a_failed_send_is_retried_by_the_next_sweep(game, clock):
    clock.set(START - timedelta(hours=1))
    with patch("campaigns.reminders.send_mail", side_effect=ConnectionRefusedError("smtp down")):
        assert sweep() == {"failed": 3, "skipped": 3}
    failed = Reminder.objects.filter(offset_minutes=60)
    assert all(r.sent_at is None and r.claimed_at is None and r.attempts == 1 for r in failed)
    assert all(r.last_error == "ConnectionRefusedError: smtp down" for r in failed)
    assert all(r.retry_at == clock.now + timedelta(minutes=1) for r in failed)
    assert not Notification.objects.exists()
    clock.advance(seconds=59)
    assert sweep() == {}  # not yet
    clock.advance(seconds=1)
    assert sweep() == {"sent": 3}
    assert len(mail.outbox) == 3 and Notification.objects.count() == 3
    assert all(r.attempts == 2 and r.last_error == "" for r in Reminder.objects.filter(offset_minutes=60))


def test_after_max_attempts_the_reminder_is_delivered_in_the_app_only(game, clock):
    clock.set(START - timedelta(hours=2))
    with patch("campaigns.reminders.send_mail", side_effect=OSError("no route")):
        outcomes = []
        for _ in range(reminders.MAX_ATTEMPTS):
            outcomes.append(sweep())
            clock.advance(minutes=10)
    assert outcomes == [{"failed": 3}] * (reminders.MAX_ATTEMPTS - 1) + [{"sent": 3}]
    assert Notification.objects.count() == 3 and mail.outbox == []
    rows = Reminder.objects.filter(offset_minutes=1440)  # the 24 h ones are due; the 1 h ones not yet
    assert all(r.sent_at and r.attempts == reminders.MAX_ATTEMPTS and r.last_error == "OSError: no route" for r in rows)
    clock.advance(minutes=1)
    assert sweep() == {}


def test_one_broken_row_does_not_hold_up_the_others(game, player, clock):
    clock.set(START - timedelta(hours=24))
    real_compose = reminders.compose

    def compose(reminder, now):
        if reminder.user_id == player.pk:
            raise ValueError("bad data")
        return real_compose(reminder, now)

    with patch("campaigns.reminders.compose", side_effect=compose):
        assert sweep() == {"sent": 2, "error": 1}
    broken = Reminder.objects.get(user=player, offset_minutes=1440)
    assert broken.sent_at is None and broken.claimed_at is None and broken.last_error == "ValueError: bad data"
    clock.advance(minutes=1)
    assert sweep() == {"sent": 1}
    assert sent_to() == EVERYONE


def test_a_worker_that_died_after_claiming_is_taken_over_after_the_timeout(game, clock):
    clock.set(START - timedelta(hours=1))
    token, ids = reminders.claim_due()  # ...and the worker dies here
    assert len(ids) == 6
    clock.advance(minutes=9)
    assert sweep() == {}  # the claim is still live: nobody else touches the rows
    clock.advance(minutes=2)
    assert sweep() == {"sent": 3, "skipped": 3}
    assert len(mail.outbox) == 3 and all(r.late for r in Reminder.objects.filter(offset_minutes=60))
    # The dead worker's claim is worthless now.
    assert {reminders.deliver(pk, token) for pk in ids} == {"lost"}
    assert len(mail.outbox) == 3


def test_a_sent_reminder_is_never_sent_again_even_if_its_claim_is_old(game, clock):
    clock.set(START - timedelta(hours=1))
    sweep()
    clock.advance(minutes=30)
    assert sweep() == {}
    assert len(mail.outbox) == 3


def test_a_sweep_does_not_start_a_send_when_its_claim_is_about_to_expire(game, clock):
    clock.set(START - timedelta(hours=1))
    token, ids = reminders.claim_due()
    clock.advance(minutes=9)  # inside CLAIM_MARGIN of the 10-minute claim
    outcomes = [reminders.deliver(pk, token) for pk in ids]
    assert outcomes.count("released") == 3 and mail.outbox == []
    assert sweep() == {"sent": 3}


def test_an_unknown_claim_token_sends_nothing(game, clock):
    clock.set(START - timedelta(hours=1))
    _, ids = reminders.claim_due()
    assert {reminders.deliver(pk, uuid.uuid4()) for pk in ids} == {"lost"}
    assert mail.outbox == []


# The Celery task -------------------------------------------------------------------------------------------


def test_beat_runs_the_sweep_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["send-due-reminders"]
    assert entry["task"] == "campaigns.tasks.send_due_reminders" and entry["schedule"] == 60.0
    celery_app.loader.import_default_modules()  # what a starting worker does: find every app's tasks
    assert entry["task"] in celery_app.tasks
    assert celery_app.conf.beat_schedule["send-due-reminders"]["schedule"] == 60.0


def test_the_task_sends_what_is_due(game, clock):
    from campaigns.tasks import send_due_reminders

    clock.set(START - timedelta(hours=1))
    send_due_reminders.delay()  # eager in tests: runs here and now
    assert len(mail.outbox) == 3 and Reminder.objects.filter(sent_at__isnull=False).count() == 3


# Notifications page and badge ------------------------------------------------------------------------------


def test_unread_badge_and_the_page_that_reads_them(client, game, player, other_player, clock):
    clock.set(START - timedelta(hours=24))
    sweep()
    client.force_login(player)
    page = client.get(game.campaign.get_absolute_url()).content.decode()
    assert '<span class="badge unread-count" data-testid="unread-count" aria-hidden="true">1</span>' in page
    listing = client.get(reverse("notifications")).content.decode()
    assert "Drift: The relay starts" in listing and 'class="card unread"' in listing
    assert not Notification.objects.filter(user=player, read_at__isnull=True).exists()
    assert Notification.objects.filter(user=other_player, read_at__isnull=True).count() == 1  # theirs stay unread
    page = client.get(game.campaign.get_absolute_url()).content.decode()
    assert "unread-count" not in page
    assert 'class="card unread"' not in client.get(reverse("notifications")).content.decode()
