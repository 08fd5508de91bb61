"""Log exports on Celery, safe against lost workers and late or repeated deliveries.

Each task message runs one attempt of one ExportJob: `run_export(job id, attempt)` works only on the job's current
attempt, and only while it is queued. As it writes, the task notes its progress on the job (`progressed_at`); an
export that has not progressed within EXPORT_STALE_AFTER seconds is failed (`fail_stalled`), and "Try again" makes
a new attempt. A run keeps its file only if its attempt is still the job's running one when it finishes, so a run
given up as stalled, or a late delivery of an older attempt, never replaces a newer run or leaves a second file.
"""

import io
import logging
import tempfile
import time
from collections.abc import Iterable
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from combat.exports import WRITERS
from combat.models import ExportJob

log = logging.getLogger(__name__)

Status = ExportJob.Status
ACTIVE = (Status.QUEUED, Status.RUNNING)
STALLED = "It stopped making progress; the worker writing it may have stopped."
LOST = "The worker writing it stopped before it finished."
BROKEN = "Something went wrong while writing it."
UNREACHABLE = "The task queue could not be reached."


def fail_stalled(jobs: Iterable[ExportJob]) -> None:
    """Mark as failed each of `jobs` (as read) that is queued or running and has not progressed within
    EXPORT_STALE_AFTER seconds, in the database and on the object. The UPDATE repeats the condition, so a task
    that notes progress first keeps its job alive."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.EXPORT_STALE_AFTER)
    for job in jobs:
        if job.status in ACTIVE and job.progressed_at < cutoff:
            stalled = ExportJob.objects.filter(pk=job.pk, status__in=ACTIVE, progressed_at__lt=cutoff)
            if stalled.update(status=Status.FAILED, error=STALLED, finished_at=now):
                job.status, job.error, job.finished_at = Status.FAILED, STALLED, now
            else:
                job.refresh_from_db()


def request_export(encounter, user, *, gm_view: bool, fmt: str) -> ExportJob:
    """A new export of `encounter` for `user` (what a GM sees, or what this player may), sent to the worker once
    the row is committed."""
    job = ExportJob.objects.create(encounter=encounter, requested_by=user, gm_view=gm_view, format=fmt)
    transaction.on_commit(lambda: enqueue(job))
    return job


def retry_export(job: ExportJob, *, gm_view: bool) -> bool:
    """ "Try again" on a failed export: a new attempt of the same job, made with what the member may see now (a
    late delivery of the old attempt's task changes nothing). False if the job had not failed (a second tap)."""
    fail_stalled([job])
    with transaction.atomic():
        retried = ExportJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.FAILED).update(
            attempt=F("attempt") + 1,
            status=Status.QUEUED,
            error="",
            events=0,
            finished_at=None,
            progressed_at=timezone.now(),
            gm_view=gm_view,
        )
        job.refresh_from_db()
        if retried:
            transaction.on_commit(lambda: enqueue(job))
    return bool(retried)


def enqueue(job: ExportJob) -> None:
    """Send the task for the job's current attempt; if the broker (Redis) is down, fail the job now rather than
    leave it queued for nobody."""
    from kombu.exceptions import OperationalError

    try:
        run_export.delay(job.pk, job.attempt)
    except OperationalError:
        log.warning("could not queue export %s", job.pk, exc_info=True)
        ExportJob.objects.filter(pk=job.pk, attempt=job.attempt, status=Status.QUEUED).update(
            status=Status.FAILED, error=UNREACHABLE, finished_at=timezone.now()
        )


class Superseded(Exception):
    """This run's attempt is no longer the job's running one: it was failed as stalled, or tried again."""


class _Progress(io.TextIOBase):
    """The export's output: passes each write on and, every tenth of EXPORT_STALE_AFTER, notes progress on the
    job. Raises Superseded as soon as the job is no longer this attempt's running one, so a given-up run stops."""

    def __init__(self, out: io.TextIOBase, job: ExportJob):
        self.out, self.job_id, self.attempt = out, job.pk, job.attempt
        self.every = settings.EXPORT_STALE_AFTER / 10
        self.last = time.monotonic()

    def write(self, text: str) -> int:
        if time.monotonic() - self.last >= self.every:
            mine = ExportJob.objects.filter(pk=self.job_id, attempt=self.attempt, status=Status.RUNNING)
            if not mine.update(progressed_at=timezone.now()):
                raise Superseded
            self.last = time.monotonic()
        return self.out.write(text)


def _claim(job_id: int, attempt: int) -> ExportJob | None:
    """The job, marked running for this attempt; None when this message has nothing to do: the job is gone, done,
    failed, or tried again since (a late delivery), or is already running (see below)."""
    with transaction.atomic():
        job = ExportJob.objects.select_for_update().select_related("encounter__campaign").filter(pk=job_id).first()
        if job is None or job.attempt != attempt:
            return None
        if job.status == Status.RUNNING:
            # Delivered again while running: the broker hands a task back only when the worker that took it died
            # (acks late, reject on worker lost). Its page says so at once; "Try again" runs it anew.
            job.status, job.error, job.finished_at = Status.FAILED, LOST, timezone.now()
            job.save(update_fields=["status", "error", "finished_at"])
            return None
        if job.status != Status.QUEUED:
            return None
        job.status, job.progressed_at = Status.RUNNING, timezone.now()
        job.save(update_fields=["status", "progressed_at"])
    return job


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_export(job_id: int, attempt: int = 1) -> str:
    """Write one attempt of an export to storage. Returns what became of it (for the worker's log)."""
    job = _claim(job_id, attempt)
    if job is None:
        return "skipped"
    try:
        with tempfile.TemporaryFile(mode="w+b") as raw:
            with open(raw.fileno(), "w", encoding="utf-8", newline="", closefd=False) as text:
                reader = None if job.gm_view else job.requested_by_id
                count = WRITERS[job.format](job.encounter, job.gm_view, _Progress(text, job), reader)
            raw.seek(0)
            job.file.save(job.filename, File(raw), save=False)
    except Superseded:
        return "superseded"
    except Exception:
        log.exception("export %s failed", job_id)
        ExportJob.objects.filter(pk=job_id, attempt=attempt, status=Status.RUNNING).update(
            status=Status.FAILED, error=BROKEN, finished_at=timezone.now()
        )
        return Status.FAILED
    now = timezone.now()
    kept = ExportJob.objects.filter(pk=job_id, attempt=attempt, status=Status.RUNNING).update(
        file=job.file.name, events=count, status=Status.DONE, finished_at=now, progressed_at=now
    )
    if not kept:  # failed as stalled or tried again while writing: the file is nobody's
        job.file.delete(save=False)
        return "superseded"
    return Status.DONE
