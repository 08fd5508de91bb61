"""Calendar: the secret per-user feed and the per-session .ics download, parsed back by a strict small parser."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from campaigns import ics, services, sessions
from campaigns.models import CalendarFeed, Membership
from tests.clock import clock  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 16, 19, 0, tzinfo=UTC)


# A strict reader for what we write (RFC 5545 §3.1, §3.3.11) -------------------------------------------------


def parse_ics(raw: bytes) -> list[dict]:
    """Check the physical format, then return the VEVENTs as {NAME: value} with TEXT values unescaped.

    Fails on: a line not ending in CRLF, a line longer than 75 octets, a fold that splits a UTF-8
    character, an unbalanced BEGIN/END, a missing VCALENDAR property, an unknown backslash escape.
    """
    assert raw.endswith(b"\r\n")
    physical = raw[:-2].split(b"\r\n")
    assert all(b"\n" not in line and b"\r" not in line for line in physical), "bare CR or LF"
    assert all(len(line) <= 75 for line in physical), max(physical, key=len)
    logical: list[bytes] = []
    for line in physical:
        if line.startswith(b" "):
            logical[-1] += line[1:]
        else:
            logical.append(line)
    lines = [line.decode("utf-8") for line in logical]  # raises if a fold split a character
    controls = [ch for line in lines for ch in line if (ord(ch) < 0x20 and ch != "\t") or ord(ch) == 0x7F]
    assert not controls, f"control characters {controls!r}"
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-1] == "END:VCALENDAR"
    calendar = dict(line.split(":", 1) for line in lines if not line.startswith(("BEGIN", "END")))
    assert calendar["VERSION"] == "2.0" and calendar["PRODID"]
    events, current, stack = [], None, []
    for line in lines:
        name, _, value = line.partition(":")
        if name == "BEGIN":
            stack.append(value)
            if value == "VEVENT":
                current = {}
        elif name == "END":
            assert stack.pop() == value
            if value == "VEVENT":
                events.append(current)
                current = None
        elif current is not None:
            name = name.split(";", 1)[0]
            assert name not in current, f"{name} twice"
            current[name] = unescape(value) if name in ("SUMMARY", "DESCRIPTION") else value
    assert not stack
    return events


def unescape(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            nxt = value[i + 1]
            out.append({"\\": "\\", ";": ";", ",": ",", "n": "\n", "N": "\n"}[nxt])
            i += 2
            continue
        assert ch not in ";,", f"unescaped {ch!r} in {value!r}"
        out.append(ch)
        i += 1
    return "".join(out)


def utc(value: str) -> datetime:
    assert re.fullmatch(r"\d{8}T\d{6}Z", value), value
    return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)


# Fixtures --------------------------------------------------------------------------------------------------


@pytest.fixture
def game(campaign, gm, clock):
    return sessions.create_session(
        campaign, gm, title="The relay", starts_at=START, duration_minutes=210, notes="Bring dice."
    )


def feed_url(user):
    return reverse("calendar_feed", args=[sessions.calendar_feed_for(user).token])


# The feed --------------------------------------------------------------------------------------------------


def test_the_feed_needs_no_login_and_lists_the_users_sessions(client, game, campaign, player, gm, clock):
    other = services.create_campaign(gm, name="Other table", combat_model="hero")
    theirs = sessions.create_session(other, gm, title="Not for Ana", starts_at=START, duration_minutes=60)
    cancelled = sessions.create_session(
        campaign, gm, title="Scrapped", starts_at=START + timedelta(days=7), duration_minutes=60
    )
    sessions.cancel_session(cancelled, gm, "Ill")
    response = client.get(feed_url(player))  # anonymous: a calendar app
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    events = {e["SUMMARY"]: e for e in parse_ics(response.content)}
    assert set(events) == {"The relay (Drift)", "Scrapped (Drift)"}
    relay = events["The relay (Drift)"]
    assert utc(relay["DTSTART"]) == START and utc(relay["DTEND"]) == START + timedelta(minutes=210)
    assert relay["STATUS"] == "CONFIRMED" and relay["SEQUENCE"] == "0"
    assert relay["UID"] == f"session-{game.pk}@127.0.0.1"
    assert utc(relay["DTSTAMP"]) == clock.now
    assert relay["DESCRIPTION"].startswith("Campaign: Drift\n\nBring dice.")
    assert relay["URL"].endswith(game.get_absolute_url())
    scrapped = events["Scrapped (Drift)"]
    assert scrapped["STATUS"] == "CANCELLED" and scrapped["SEQUENCE"] == "1"
    assert "Cancelled. Ill" in scrapped["DESCRIPTION"]
    assert theirs.title not in response.content.decode()
    # The GM is in both campaigns and sees all three.
    assert len(parse_ics(client.get(feed_url(gm)).content)) == 3


def test_a_bad_token_is_404(client, game):
    assert client.get(reverse("calendar_feed", args=["nope"])).status_code == 404
    real = sessions.calendar_feed_for(game.created_by).token
    assert client.get(reverse("calendar_feed", args=[real[:-1] + ("A" if real[-1] != "A" else "B")])).status_code == 404


def test_tokens_are_long_random_and_rotate(client, player, other_player, game):
    token = sessions.calendar_feed_for(player).token
    assert len(token) >= 43  # 32 random bytes, URL-safe base64: 256 bits
    assert token != sessions.calendar_feed_for(other_player).token
    assert sessions.calendar_feed_for(player).token == token  # stable until rotated
    old_url = feed_url(player)
    client.force_login(player)
    assert client.get(reverse("calendar_rotate")).status_code == 405  # a GET changes nothing
    response = client.post(reverse("calendar_rotate"))
    assert response["Location"] == reverse("profile") + "#calendar"
    new = CalendarFeed.objects.get(user=player)
    assert new.token != token and new.rotated_at is not None
    client.logout()
    assert client.get(old_url).status_code == 404
    assert client.get(reverse("calendar_feed", args=[new.token])).status_code == 200


def test_rotating_needs_a_login(client):
    response = client.post(reverse("calendar_rotate"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_profile_shows_the_feed_address_and_the_rotate_button(client, player):
    client.force_login(player)
    page = client.get(reverse("profile")).content.decode()
    token = CalendarFeed.objects.get(user=player).token
    assert f'value="http://testserver/calendar/{token}.ics"' in page
    assert f'href="webcal://testserver/calendar/{token}.ics"' in page  # phones subscribe with one tap
    assert reverse("calendar_rotate") in page


def test_leaving_a_campaign_takes_its_sessions_off_the_feed(client, game, campaign, player):
    url = feed_url(player)
    assert len(parse_ics(client.get(url).content)) == 1
    services.remove_member(campaign, Membership.objects.get(campaign=campaign, user=player))
    assert parse_ics(client.get(url).content) == []


def test_an_inactive_users_feed_is_gone(client, player, game):
    url = feed_url(player)
    player.is_active = False
    player.save()
    assert client.get(url).status_code == 404


# Per-session download --------------------------------------------------------------------------------------


def test_members_download_one_session(client, player, game):
    client.force_login(player)
    response = client.get(reverse("session_ics", args=[game.campaign_id, game.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="fray-session-{game.pk}.ics"'
    [event] = parse_ics(response.content)
    assert event["UID"] == f"session-{game.pk}@127.0.0.1" and utc(event["DTSTART"]) == START


def test_outsiders_and_anonymous_cannot_download(client, outsider, game):
    url = reverse("session_ics", args=[game.campaign_id, game.pk])
    assert client.get(url)["Location"].startswith(reverse("login"))
    client.force_login(outsider)
    assert client.get(url).status_code == 404


def test_moving_a_session_raises_its_sequence(client, player, game):
    sessions.update_session(
        game, title=game.title, starts_at=START + timedelta(hours=1), duration_minutes=210, notes=game.notes
    )
    client.force_login(player)
    [event] = parse_ics(client.get(reverse("session_ics", args=[game.campaign_id, game.pk])).content)
    assert event["SEQUENCE"] == "1" and utc(event["DTSTART"]) == START + timedelta(hours=1)


# Escaping and folding --------------------------------------------------------------------------------------

AWKWARD_TITLE = "Relay; part 2, the \\return\\"
AWKWARD_NOTES = "Line one,\nline two; with a backslash \\ and\r\nWindows ends.\n" + "Émile’s 🐉 dragons " * 12


def test_awkward_text_survives_escaping_and_folding(client, player, campaign, gm, clock):
    game = sessions.create_session(
        campaign, gm, title=AWKWARD_TITLE, starts_at=START, duration_minutes=60, notes=AWKWARD_NOTES
    )
    client.force_login(player)
    raw = client.get(reverse("session_ics", args=[game.campaign_id, game.pk])).content
    assert b"\r\n " in raw  # long lines were folded
    [event] = parse_ics(raw)
    assert event["SUMMARY"] == f"{AWKWARD_TITLE} (Drift)"
    assert AWKWARD_NOTES.replace("\r\n", "\n") in event["DESCRIPTION"]


@pytest.mark.parametrize("text", ["a" * 74, "a" * 75, "a" * 76, "é" * 80, "🐉" * 40, "x" + "🐉" * 40, "xy" + "€" * 60])
def test_folding_never_exceeds_75_octets_or_splits_a_character(text):
    folded = ics.fold("DESCRIPTION:" + text)
    parts = folded.encode("utf-8").split(b"\r\n")
    assert all(len(p) <= 75 for p in parts)
    assert [p.decode("utf-8") for p in parts]  # every piece is whole characters
    assert "".join(p[1:] if i else p for i, p in enumerate(folded.split("\r\n"))) == "DESCRIPTION:" + text


def test_escape_text_follows_rfc_5545():
    assert ics.escape_text("a\\b;c,d\ne") == "a\\\\b\\;c\\,d\\ne"


@given(st.text(max_size=400))
def test_any_text_round_trips_through_escape_and_fold(text):
    raw = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\n"
        + ics.fold("DESCRIPTION:" + ics.escape_text(text))
        + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    [event] = parse_ics(raw.encode("utf-8"))
    normal = text.replace("\r\n", "\n").replace("\r", "\n")
    allowed = "".join(ch for ch in normal if ch in "\t\n" or not (ord(ch) < 0x20 or ord(ch) == 0x7F))
    assert event["DESCRIPTION"] == allowed  # control characters are not allowed in TEXT and are dropped
