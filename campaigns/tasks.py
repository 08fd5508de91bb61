from urllib.parse import urlsplit

from celery import shared_task
from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import send_mail

from campaigns import reminders
from campaigns.models import Membership


@shared_task(ignore_result=True)
def notify_gms_of_new_player(membership_id: int) -> int:
    """E-mail the campaign's GMs that a player joined. Returns how many GMs were told."""
    membership = Membership.objects.select_related("campaign", "user").filter(pk=membership_id).first()
    if membership is None:
        return 0
    campaign = membership.campaign
    recipients = list(
        campaign.memberships.filter(role=Membership.Role.GM)
        .exclude(user__email="")
        .values_list("user__email", flat=True)
    )
    if not recipients:
        return 0
    url = settings.FRAY_BASE_URL.rstrip("/") + campaign.get_absolute_url()
    send_mail(
        subject=f"{membership.user} joined {campaign.name}",
        message=f"{membership.user} joined your campaign {campaign.name} on Fray.\n\n{url}\n",
        from_email=None,
        recipient_list=recipients,
    )
    return len(recipients)


@shared_task(ignore_result=True)
def send_due_reminders() -> dict:
    """Run by beat every minute (CELERY_BEAT_SCHEDULE). Safe to run on several workers at once: each due
    reminder is delivered once (campaigns/reminders.py explains how). Returns counts of what happened."""
    return reminders.send_due_reminders()


@shared_task(ignore_result=True)
def send_password_reset(email: str) -> None:
    """E-mail a link to set a new password to each active account with this address (none: nothing is sent).
    Django's own reset form builds the link; FRAY_BASE_URL is its address, never a request's Host header."""
    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return
    form.save(
        domain_override=urlsplit(settings.FRAY_BASE_URL).netloc,
        subject_template_name="registration/password_reset_subject.txt",
        email_template_name="registration/password_reset_email.txt",
        extra_email_context={"base_url": settings.FRAY_BASE_URL.rstrip("/")},
    )
