"""Reminders on the real services: PostgreSQL row locks between concurrent sweeps, and a real Celery worker.

Run by `make test-integration` (DATABASE_URL and REDIS_URL set). Rows are committed
(django_db(transaction=True)) so other connections — threads here, a worker process below — see them.
"""

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path
from unittest.mock import patch
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from campaigns import reminders, sessions
from campaigns.models import Membership, Notification, Reminder
from config.celery import app as celery_app
from tests.clock import clock  # noqa: F401  (fixture)
from tests.conftest import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60  # seconds: every wait below is bounded by this


def _in_threads(*calls):
    """Run each call in its own thread (so its own database connection), all released at once."""
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), []

    def run(i, fn):
        try:
            barrier.wait(timeout=TIMEOUT)
            results[i] = fn()
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn), name=f"sweep-{i}") for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=TIMEOUT)
        assert not t.is_alive(), f"{t.name} did not finish within {TIMEOUT} s"
    assert not errors, errors
    return results


@pytest.fixture
def crowd(campaign, gm, clock):
    """12 members, 3 sessions, one reminder each an hour before: 36 reminders due at the same moment."""
    campaign.reminder_offsets = "1"
    campaign.save()
    for i in range(9):
        Membership.objects.create(campaign=campaign, user=make_user(f"member{i}"))
    start = clock.now + timedelta(days=2)
    for n in range(3):
        sessions.create_session(
            campaign, gm, title=f"Session {n}", starts_at=start + timedelta(minutes=n), duration_minutes=120
        )
    assert Reminder.objects.count() == 36
    clock.set(start + timedelta(minutes=5) - timedelta(hours=1))  # every one of them is due
    return campaign


def test_two_concurrent_sweeps_send_each_reminder_exactly_once(crowd):
    assert connection.vendor == "postgresql"
    sends = []  # (thread, recipient, subject)

    def slow_send(subject, body, from_email, recipients):
        sends.append((threading.current_thread().name, recipients[0], subject))
        time.sleep(0.02)  # an SMTP round trip, so the sweeps overlap
        return 1

    with patch("campaigns.reminders.send_mail", side_effect=slow_send):
        outcomes = _in_threads(*[lambda: reminders.send_due_reminders(batch_size=3)] * 2)

    assert sum(o.get("sent", 0) for o in outcomes) == 36
    assert all(set(o) == {"sent"} for o in outcomes), outcomes  # nothing lost, skipped or failed
    assert len(sends) == 36 and len({(to, subject) for _, to, subject in sends}) == 36  # no e-mail twice
    assert set(Counter(thread for thread, _, _ in sends)) == {"sweep-0", "sweep-1"}  # both really worked
    assert not Reminder.objects.filter(sent_at__isnull=True).exists()
    # The reminders' notifications, besides the "… is planned for" of each session for every member but its GM.
    reminded = Notification.objects.filter(reminder__isnull=False)
    assert reminded.count() == 36
    assert reminded.values("reminder").distinct().count() == 36
    assert Notification.objects.filter(reminder__isnull=True).count() == 3 * 11
    # A third sweep finds nothing.
    assert reminders.send_due_reminders() == {}


def test_a_sweep_skips_rows_another_sweep_has_locked(crowd, clock):
    """The claim's SELECT … FOR UPDATE SKIP LOCKED: rows locked by an open claim are not seen by another."""
    locked = threading.Event()
    release = threading.Event()
    held = []

    def hold_five():
        with transaction.atomic():
            held.extend(
                reminders.due_for_claim(clock.now).select_for_update(skip_locked=True).values_list("pk", flat=True)[:5]
            )
            locked.set()
            assert release.wait(timeout=TIMEOUT)
        connection.close()

    holder = threading.Thread(target=hold_five)
    holder.start()
    try:
        assert locked.wait(timeout=TIMEOUT)
        _, claimed = reminders.claim_due(limit=100)
        assert len(held) == 5 and len(claimed) == 31 and not set(held) & set(claimed)
    finally:
        release.set()
        holder.join(timeout=TIMEOUT)
    assert not holder.is_alive()
    # The holder never claimed them, so they are free once its transaction ends.
    _, rest = reminders.claim_due(limit=100)
    assert sorted(rest) == sorted(held)


# A real worker process ---------------------------------------------------------------------------------------


def _database_url() -> str:
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="") + (f":{quote(s['PASSWORD'], safe='')}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def worker(tmp_path, transactional_db):
    """`celery worker --pool=solo` on a queue of its own, against the test database. Always stopped."""
    assert connection.vendor == "postgresql" and settings.REDIS_URL, "run with DATABASE_URL and REDIS_URL"
    queue = f"fray-test-{uuid.uuid4().hex}"
    outbox = tmp_path / "mail"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "EMAIL_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=_database_url(),  # the pytest-django test database, where this test commits its rows
        REDIS_URL=settings.REDIS_URL,
        EMAIL_URL=f"filemail:///{outbox}",  # django-environ drops the first "/" of the path
        FRAY_VAR_DIR=str(tmp_path / "var"),
        CELERY_TASK_ALWAYS_EAGER="false",
    )
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "-Q",
                queue,
                "-n",
                f"{queue}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + TIMEOUT
        while b" ready." not in log.read_bytes():
            assert proc.poll() is None, f"the worker exited:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the worker was not ready within {TIMEOUT} s:\n{log.read_text()}"
            time.sleep(0.2)
        yield {"queue": queue, "outbox": outbox, "log": log}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def test_a_real_worker_sends_a_due_reminder(worker, campaign, gm, player):
    from campaigns.tasks import send_due_reminders

    campaign.reminder_offsets = "1"
    campaign.save()
    game = sessions.create_session(
        campaign, gm, title="Live relay", starts_at=timezone.now() + timedelta(hours=1, seconds=2), duration_minutes=60
    )
    due = Reminder.objects.get(session=game, user=player)
    time.sleep(max(0.0, (due.send_at - timezone.now()).total_seconds()) + 0.2)  # at most ~2 s

    celery_app.conf.task_always_eager = False  # the autouse fixture turns it back on for the next test
    send_due_reminders.apply_async(queue=worker["queue"])

    deadline = time.monotonic() + TIMEOUT
    while Reminder.objects.filter(session=game, sent_at__isnull=True).exists():
        assert time.monotonic() < deadline, f"not sent within {TIMEOUT} s:\n{worker['log'].read_text()}"
        time.sleep(0.2)

    due.refresh_from_db()
    assert due.sent_at is not None and not due.late and due.attempts == 1
    note = Notification.objects.get(user=player, reminder=due)
    assert note.text.startswith("Drift: Live relay starts") and note.url == game.get_absolute_url()
    assert Notification.objects.filter(reminder__session=game).count() == 3  # GM and both players
    mails = "\n".join(p.read_text() for p in worker["outbox"].iterdir())
    assert "Subject: Reminder: Live relay starts in" in mails
    assert mails.count("To: ") == 3 and "To: ana@example.com" in mails
    assert "succeeded" in worker["log"].read_text()


def test_a_real_worker_produces_an_export(worker, campaign, gm, player, tmp_path):
    from campaigns.models import Character
    from combat import services as combat_services
    from combat.models import ExportJob
    from combat.tasks import run_export

    pc = Character.objects.create(campaign=campaign, name="Luwe", owner=player, system="burn_bryte")
    npc = Character.objects.create(campaign=campaign, name="Nivick", kind="npc", system="burn_bryte")
    encounter = combat_services.start_encounter(
        combat_services.create_encounter(campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]),
        gm,
    )
    combat_services.submit(encounter.pk, gm, "declare", {"enemy": f"npc{npc.pk}-1", "target": f"pc{pc.pk}"}, "d")
    job = ExportJob.objects.create(encounter=encounter, requested_by=player, gm_view=False, format="csv")

    celery_app.conf.task_always_eager = False
    run_export.apply_async(args=[job.pk], queue=worker["queue"])
    deadline = time.monotonic() + TIMEOUT
    while ExportJob.objects.get(pk=job.pk).status != ExportJob.Status.DONE:
        assert time.monotonic() < deadline, f"no export within {TIMEOUT} s:\n{worker['log'].read_text()}"
        time.sleep(0.2)
    job.refresh_from_db()
    written = tmp_path / "var" / "media" / job.file.name  # the worker's own storage folder
    text = written.read_text()
    assert text.startswith("seq,time,round,phase,kind,by,event,dice,undone")
    assert "Nivick declares: attacks against Luwe." in text and job.events == 1
