"""Template helpers for sessions, reminders and notifications: {% load fray_sessions %}."""

from django import template
from django.core.exceptions import ValidationError
from django.utils.text import get_text_list

from campaigns import selectors
from campaigns.models import parse_reminder_offsets

register = template.Library()


@register.filter
def reminder_offsets_display(value: str) -> str:
    """'24,1,0.5' -> '24 h, 1 h and 30 min'; '' when there are none."""
    try:
        minutes = parse_reminder_offsets(value)
    except ValidationError:
        return ""
    parts = [
        f"{m // 60} h" if m % 60 == 0 else (f"{m} min" if m < 60 else f"{m // 60} h {m % 60} min") for m in minutes
    ]
    return str(get_text_list(parts, "and"))


@register.simple_tag
def unread_notification_count(user) -> int:
    return selectors.unread_notifications(user)


@register.filter
def webcal(url: str) -> str:
    """http(s)://… -> webcal://…, which phones hand to their calendar app as a subscription."""
    for scheme in ("https://", "http://"):
        if url.startswith(scheme):
            return "webcal://" + url[len(scheme) :]
    return url
