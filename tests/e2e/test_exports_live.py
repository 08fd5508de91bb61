"""Exports on a phone: an export whose worker died shows why, and its Try again button makes it in place (htmx)."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from combat.models import ExportJob
from tests.combat.test_review import fought  # noqa: F401  (a scripted Burn Bryte fight)
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]


def test_a_stalled_export_is_tried_again_from_its_row(live_server, phone, fought, gm, settings):  # noqa: F811
    settings.EXPORT_STALE_AFTER = 300
    job = ExportJob.objects.create(
        encounter=fought, requested_by=gm, gm_view=True, format="csv", status=ExportJob.Status.RUNNING
    )
    ExportJob.objects.filter(pk=job.pk).update(progressed_at=timezone.now() - timedelta(seconds=400))
    page = phone()
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill(gm.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    log_url = f"{live_server.url}/campaigns/{fought.campaign_id}/encounters/{fought.pk}/log/"
    page.goto(log_url)
    row = page.locator(f"#export-{job.pk}")
    expect(row).to_contain_text(
        "the export failed. It stopped making progress; the worker writing it may have stopped."
    )
    row.get_by_role("button", name="Try again").click()
    expect(row.get_by_role("link", name="download")).to_be_visible()  # swapped in place, then polled to done
    assert page.url == log_url
    job.refresh_from_db()
    assert (job.status, job.attempt) == ("done", 2)
