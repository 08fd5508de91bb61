"""iCalendar (RFC 5545) for game sessions: a per-user feed and one-event downloads.

Small enough to write by hand: CRLF line ends, TEXT escaping (§3.3.11), lines folded at 75 octets without
splitting a UTF-8 character (§3.1), times in UTC with Z, a stable UID per session, SEQUENCE bumped on every
change, STATUS:CANCELLED for cancelled sessions so calendar apps strike them out.
"""

from datetime import UTC, datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from campaigns.models import GameSession

PRODID = "-//Fray//Game sessions//EN"


# TEXT may not hold control characters other than tab (RFC 5545 §3.3.11); line breaks are escaped instead.
_CONTROLS = dict.fromkeys([*range(9), *range(11, 13), *range(14, 32), 127])


def escape_text(value: str) -> str:
    text = str(value).replace("\r\n", "\n").replace("\r", "\n").translate(_CONTROLS)
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold(line: str) -> str:
    """Split a content line into chunks of at most 75 octets, continuation lines starting with a space."""
    encoded = line.encode("utf-8")
    if len(encoded) <= 75:
        return line
    parts, start, limit = [], 0, 75
    while start < len(encoded):
        end = min(start + limit, len(encoded))
        while end < len(encoded) and (encoded[end] & 0xC0) == 0x80:  # never cut inside a character
            end -= 1
        parts.append(encoded[start:end].decode("utf-8"))
        start, limit = end, 74  # the leading space of a continuation line counts
    return "\r\n ".join(parts)


def utc(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _base_url() -> str:
    return settings.FRAY_BASE_URL.rstrip("/")


def uid(session: GameSession) -> str:
    return f"session-{session.pk}@{urlsplit(_base_url()).hostname or 'fray'}"


def event_lines(session: GameSession, stamp: datetime) -> list[str]:
    url = _base_url() + session.get_absolute_url()
    description = "\n\n".join(
        part
        for part in (
            f"Campaign: {session.campaign.name}",
            f"Cancelled. {session.cancel_reason}".strip() if session.status == GameSession.Status.CANCELLED else "",
            session.notes,
            url,
        )
        if part
    )
    status = "CANCELLED" if session.status == GameSession.Status.CANCELLED else "CONFIRMED"
    return [
        "BEGIN:VEVENT",
        f"UID:{uid(session)}",
        f"DTSTAMP:{utc(stamp)}",
        f"DTSTART:{utc(session.starts_at)}",
        f"DTEND:{utc(session.ends_at)}",
        f"SUMMARY:{escape_text(f'{session.title} ({session.campaign.name})')}",
        f"DESCRIPTION:{escape_text(description)}",
        f"URL:{url}",
        f"STATUS:{status}",
        f"SEQUENCE:{session.sequence}",
        f"CREATED:{utc(session.created_at)}",
        f"LAST-MODIFIED:{utc(session.updated_at)}",
        "END:VEVENT",
    ]


def calendar(sessions, name: str = "") -> str:
    stamp = timezone.now()
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", "CALSCALE:GREGORIAN", "METHOD:PUBLISH"]
    if name:
        lines += [
            f"NAME:{escape_text(name)}",
            f"X-WR-CALNAME:{escape_text(name)}",
            "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
            "X-PUBLISHED-TTL:PT1H",
        ]
    for session in sessions:
        lines += event_lines(session, stamp)
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
