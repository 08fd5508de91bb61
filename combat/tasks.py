"""Log exports on Celery. Safe to run twice: a finished job is left alone, a half-written one starts over."""

import logging
import tempfile

from celery import shared_task
from django.core.files import File
from django.db import transaction
from django.utils import timezone

from combat.exports import WRITERS
from combat.models import ExportJob

log = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_export(job_id: int) -> str:
    with transaction.atomic():
        job = ExportJob.objects.select_for_update().select_related("encounter__campaign").filter(pk=job_id).first()
        if job is None or job.status == ExportJob.Status.DONE:
            return job.status if job else "missing"
        job.status = ExportJob.Status.RUNNING
        job.save(update_fields=["status"])
    try:
        with tempfile.TemporaryFile(mode="w+b") as raw:
            with open(raw.fileno(), "w", encoding="utf-8", newline="", closefd=False) as text:
                count = WRITERS[job.format](job.encounter, job.gm_view, text)
            raw.seek(0)
            if job.file:
                job.file.delete(save=False)  # a retry replaces what an interrupted run left
            job.file.save(job.filename, File(raw), save=False)
    except Exception as exc:
        log.exception("export %s failed", job_id)
        ExportJob.objects.filter(pk=job_id).update(status=ExportJob.Status.FAILED, error=str(exc)[:300],
                                                   finished_at=timezone.now())
        return ExportJob.Status.FAILED
    job.events = count
    job.status = ExportJob.Status.DONE
    job.finished_at = timezone.now()
    job.save(update_fields=["file", "events", "status", "finished_at"])
    return job.status
