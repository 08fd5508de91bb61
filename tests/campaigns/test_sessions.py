"""Game sessions: planning, local times, RSVPs, GM actions, permissions and form errors."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from campaigns import services, sessions
from campaigns.models import GameSession, Membership, Reminder, Rsvp
from tests.clock import EPOCH, clock  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

WINTER_START = datetime(2026, 1, 16, 19, 0, tzinfo=UTC)  # a week after the clock's epoch


@pytest.fixture
def game(campaign, gm, clock):
    return sessions.create_session(
        campaign, gm, title="The relay", starts_at=WINTER_START, duration_minutes=210, notes="Bring dice."
    )


def _form(**overrides):
    data = {"title": "Session 12", "starts_at": "2026-01-16T20:00", "length": "3", "length_unit": "hours", "notes": ""}
    data.update(overrides)
    return data


def _field_errors(page: str) -> list[str]:
    return re.findall(r'<p class="error" role="alert">([^<]+)</p>', page)


# Planning --------------------------------------------------------------------------------------------------


def test_gm_plans_a_session_in_their_own_time_zone(client, gm, campaign, clock):
    gm.timezone = "Europe/Paris"
    gm.save()
    client.force_login(gm)
    response = client.post(reverse("session_create", args=[campaign.pk]), _form(length="90", length_unit="minutes"))
    game = GameSession.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert game.starts_at == WINTER_START  # 20:00 in Paris is 19:00 UTC in January
    assert game.duration_minutes == 90 and game.status == "scheduled" and game.created_by == gm
    # Every member (GM and two players) gets the default 24 h and 1 h reminders.
    assert Reminder.objects.filter(session=game).count() == 3 * 2


def test_summer_input_uses_summer_time(client, gm, campaign, clock):
    gm.timezone = "Europe/Paris"
    gm.save()
    client.force_login(gm)
    client.post(reverse("session_create", args=[campaign.pk]), _form(starts_at="2026-07-03T20:00"))
    assert GameSession.objects.get().starts_at == datetime(2026, 7, 3, 18, 0, tzinfo=UTC)


def test_edit_form_shows_the_stored_start_in_local_time(client, gm, game):
    gm.timezone = "America/New_York"
    gm.save()
    client.force_login(gm)
    page = client.get(reverse("session_edit", args=[game.campaign_id, game.pk])).content.decode()
    assert 'value="2026-01-16T14:00"' in page  # 19:00 UTC is 14:00 in New York in January
    assert 'value="210"' in page and '<option value="minutes" selected>' in page
    assert "In your time zone, America/New_York." in page


@pytest.mark.parametrize("tz, shown", [("Europe/Paris", "20:00"), ("UTC", "19:00"), ("Asia/Tokyo", "04:00")])
def test_each_member_sees_the_start_in_their_own_time_zone(client, player, game, tz, shown):
    player.timezone = tz
    player.save()
    client.force_login(player)
    for url in (
        game.get_absolute_url(),
        reverse("sessions", args=[game.campaign_id]),
        game.campaign.get_absolute_url(),
    ):
        page = client.get(url).content.decode()
        assert f", {shown}</time>" in page, url
    assert f"Times in your time zone, {tz}" in client.get(game.get_absolute_url()).content.decode()


def test_campaign_page_shows_the_next_session_and_links_to_all(client, player, game, campaign, clock):
    later = sessions.create_session(
        campaign, None, title="After the relay", starts_at=WINTER_START + timedelta(days=7), duration_minutes=180
    )
    client.force_login(player)
    page = client.get(campaign.get_absolute_url()).content.decode()
    section = page[page.index('id="sessions"') : page.index('id="enc-h"')]
    assert "Next: The relay" in section and later.title not in section
    assert reverse("sessions", args=[campaign.pk]) in section
    assert reverse("session_create", args=[campaign.pk]) not in section  # players do not plan sessions
    listing = client.get(reverse("sessions", args=[campaign.pk])).content.decode()
    assert listing.index("The relay") < listing.index("After the relay")


def test_campaign_page_without_sessions_says_so(client, gm, campaign, clock):
    client.force_login(gm)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "No session planned." in page and reverse("session_create", args=[campaign.pk]) in page


def test_past_and_cancelled_sessions_are_listed_apart(client, player, campaign, game, clock):
    other = sessions.create_session(
        campaign, None, title="Scrapped", starts_at=WINTER_START + timedelta(days=1), duration_minutes=60
    )
    sessions.cancel_session(other, None)
    client.force_login(player)
    page = client.get(reverse("sessions", args=[campaign.pk])).content.decode()
    coming, earlier = page.split("Earlier and cancelled")
    assert "The relay" in coming and "Scrapped" not in coming
    assert "Scrapped" in earlier and "Cancelled" in earlier


# RSVPs -----------------------------------------------------------------------------------------------------


def test_rsvp_by_htmx_swaps_the_block_and_the_group_sees_it(client, player, other_player, game):
    client.force_login(player)
    url = reverse("session_rsvp", args=[game.campaign_id, game.pk])
    response = client.post(url, {"answer": "going"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith(f'<div class="rsvp" id="rsvp-{game.pk}">')
    assert "<html" not in fragment
    assert re.search(r'value="going" aria-pressed="true" class="primary"', fragment)
    assert Rsvp.objects.get(session=game, user=player).answer == "going"

    client.force_login(other_player)
    client.post(url, {"answer": "maybe"}, headers={"HX-Request": "true"})
    page = client.get(game.get_absolute_url()).content.decode()
    assert "<strong>Going (1)</strong>: ana" in page
    assert "<strong>Maybe (1)</strong>: ben" in page
    assert "No answer yet: gemma" in page


def test_changing_an_answer_keeps_one_rsvp(client, player, game):
    client.force_login(player)
    url = reverse("session_rsvp", args=[game.campaign_id, game.pk])
    client.post(url, {"answer": "going"})
    response = client.post(url, {"answer": "no", "next": reverse("sessions", args=[game.campaign_id])})
    assert response["Location"] == reverse("sessions", args=[game.campaign_id])
    assert list(Rsvp.objects.values_list("user__username", "answer")) == [("ana", "no")]


def test_a_player_answers_only_for_themself(client, player, other_player, game):
    client.force_login(player)
    client.post(
        reverse("session_rsvp", args=[game.campaign_id, game.pk]),
        {"answer": "no", "user": other_player.pk, "user_id": other_player.pk},
    )
    assert list(Rsvp.objects.values_list("user", "answer")) == [(player.pk, "no")]


def test_rsvp_refuses_nonsense_and_closed_sessions_with_a_sentence(client, gm, player, game):
    client.force_login(player)
    url = reverse("session_rsvp", args=[game.campaign_id, game.pk])
    response = client.post(url, {"answer": "perhaps"}, headers={"HX-Request": "true"})
    assert response.status_code == 400 and "Answer going, maybe or can&#x27;t make it." in response.content.decode()
    sessions.cancel_session(game, gm)
    response = client.post(url, {"answer": "going"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "This session is cancelled; answers are closed." in response.content.decode()
    assert not Rsvp.objects.exists()


def test_rsvps_of_people_who_left_are_not_shown(client, gm, player, game, campaign):
    sessions.set_rsvp(game, player, "going")
    services.remove_member(campaign, Membership.objects.get(campaign=campaign, user=player))
    client.force_login(gm)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "<strong>Going (0)</strong>" in page and "ana" not in page


# GM actions ------------------------------------------------------------------------------------------------


def test_gm_edits_a_session_and_its_calendar_sequence_goes_up(client, gm, game):
    client.force_login(gm)
    response = client.post(
        reverse("session_edit", args=[game.campaign_id, game.pk]),
        _form(title="The relay, part 2", starts_at="2026-01-17T19:00", length="4"),
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert (game.title, game.starts_at, game.duration_minutes) == (
        "The relay, part 2",
        datetime(2026, 1, 17, 19, 0, tzinfo=UTC),
        240,
    )
    assert game.sequence == 1


def test_a_session_that_has_begun_can_still_get_notes(client, gm, game, clock):
    clock.set(WINTER_START + timedelta(minutes=30))
    client.force_login(gm)
    response = client.post(
        reverse("session_edit", args=[game.campaign_id, game.pk]),
        _form(
            title=game.title,
            starts_at="2026-01-16T19:00",
            length="210",
            length_unit="minutes",
            notes="We stopped at the airlock.",
        ),
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.notes == "We stopped at the airlock."


def test_gm_cancels_with_a_message(client, gm, game):
    client.force_login(gm)
    url = reverse("session_cancel", args=[game.campaign_id, game.pk])
    assert "Cancel the session" in client.get(url).content.decode()  # a confirmation first
    response = client.post(url, {"reason": "Half the table is ill."}, follow=True)
    game.refresh_from_db()
    assert game.status == "cancelled" and game.cancel_reason == "Half the table is ill." and game.sequence == 1
    page = response.content.decode()
    assert "is cancelled. Everyone will be told within a minute." in page
    assert "Half the table is ill." in page and reverse("session_edit", args=[game.campaign_id, game.pk]) not in page
    # Cancelling twice changes nothing and says why.
    response = client.post(url, {"reason": "again"}, follow=True)
    assert "This session is already cancelled." in response.content.decode()
    game.refresh_from_db()
    assert game.cancel_reason == "Half the table is ill."


def test_a_cancelled_session_cannot_be_edited(client, gm, game):
    sessions.cancel_session(game, gm)
    client.force_login(gm)
    response = client.post(
        reverse("session_edit", args=[game.campaign_id, game.pk]), _form(title="Back on"), follow=True
    )
    assert "This session is cancelled; it can no longer be changed." in response.content.decode()
    game.refresh_from_db()
    assert game.title == "The relay"


def test_done_only_once_the_session_has_started(client, gm, game, clock):
    client.force_login(gm)
    url = reverse("session_done", args=[game.campaign_id, game.pk])
    response = client.post(url, follow=True)
    assert "A session can be marked done once it has started." in response.content.decode()
    game.refresh_from_db()
    assert game.status == "scheduled"
    clock.set(WINTER_START + timedelta(hours=3))
    client.post(url)
    game.refresh_from_db()
    assert game.status == "done"


# Permissions -----------------------------------------------------------------------------------------------


def test_non_members_get_404_for_every_session_page(client, outsider, game):
    client.force_login(outsider)
    c, s = game.campaign_id, game.pk
    for name, args in (
        ("sessions", [c]),
        ("session", [c, s]),
        ("session_ics", [c, s]),
        ("session_create", [c]),
        ("session_edit", [c, s]),
        ("session_cancel", [c, s]),
    ):
        assert client.get(reverse(name, args=args)).status_code == 404, name
    for name, args, data in (
        ("session_rsvp", [c, s], {"answer": "going"}),
        ("session_done", [c, s], {}),
        ("session_cancel", [c, s], {}),
        ("reminder_preference", [c], {"reminders": "off"}),
    ):
        assert client.post(reverse(name, args=args), data).status_code == 404, name
    assert not Rsvp.objects.exists()
    game.refresh_from_db()
    assert game.status == "scheduled"


def test_a_session_of_another_campaign_is_not_reachable(client, player, game):
    own = services.create_campaign(player, name="Ana's", combat_model="hero")
    client.force_login(player)
    assert client.get(reverse("session", args=[own.pk, game.pk])).status_code == 404
    assert client.post(reverse("session_rsvp", args=[own.pk, game.pk]), {"answer": "going"}).status_code == 404


def test_players_cannot_create_edit_cancel_or_finish(client, player, game, clock):
    client.force_login(player)
    c, s = game.campaign_id, game.pk
    assert client.post(reverse("session_create", args=[c]), _form()).status_code == 404
    assert client.post(reverse("session_edit", args=[c, s]), _form(title="Mine now")).status_code == 404
    assert client.post(reverse("session_cancel", args=[c, s]), {"reason": "no"}).status_code == 404
    clock.set(WINTER_START + timedelta(hours=1))
    assert client.post(reverse("session_done", args=[c, s])).status_code == 404
    game.refresh_from_db()
    assert (game.title, game.status, GameSession.objects.count()) == ("The relay", "scheduled", 1)
    page = client.get(game.get_absolute_url()).content.decode()
    assert reverse("session_edit", args=[c, s]) not in page and reverse("session_cancel", args=[c, s]) not in page


# Form errors -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides, sentence",
    [
        ({"starts_at": "2026-01-09T11:00"}, "The start must be in the future."),
        ({"starts_at": "someday"}, "Enter the start as a date and a time, such as 2026-03-14 19:30."),
        ({"starts_at": ""}, "This field is required."),
        ({"length": "-2"}, "The expected length must be more than zero."),
        ({"length": "0"}, "The expected length must be more than zero."),
        ({"length": "25"}, "A session can be at most 24 hours long."),
        (
            {"length": "2.5", "length_unit": "minutes"},
            "Give the length in whole minutes, such as 2.5 hours or 150 minutes.",
        ),
        ({"length": "lots"}, "Enter the expected length as a number, such as 3 or 2.5."),
        ({"title": ""}, "This field is required."),
    ],
)
def test_form_errors_are_sentences_next_to_their_field(client, gm, campaign, clock, overrides, sentence):
    client.force_login(gm)
    response = client.post(reverse("session_create", args=[campaign.pk]), _form(**overrides))
    assert response.status_code == 400
    page = response.content.decode()
    assert _field_errors(page) == [sentence.replace("'", "&#x27;")]
    field = next(iter(overrides))
    block = page[page.index(f'for="id_{field}"') - 200 : page.index(f'for="id_{field}"') + 600]
    assert "has-error" in block and sentence in block
    assert not GameSession.objects.exists()


def test_a_time_skipped_by_the_clock_change_is_explained(client, gm, campaign, clock):
    gm.timezone = "Europe/Paris"
    gm.save()
    client.force_login(gm)
    response = client.post(reverse("session_create", args=[campaign.pk]), _form(starts_at="2026-03-29T02:30"))
    assert response.status_code == 400
    assert "couldn’t be interpreted in time zone Europe/Paris" in response.content.decode()


def test_a_past_start_is_refused_when_moving_an_existing_session(client, gm, game):
    client.force_login(gm)
    response = client.post(
        reverse("session_edit", args=[game.campaign_id, game.pk]), _form(starts_at="2026-01-01T19:00")
    )
    assert response.status_code == 400 and _field_errors(response.content.decode()) == [
        "The start must be in the future."
    ]
    game.refresh_from_db()
    assert game.starts_at == WINTER_START


def test_the_model_refuses_impossible_lengths_too(campaign, clock):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        sessions.create_session(campaign, None, title="x", starts_at=WINTER_START, duration_minutes=0)
    assert EPOCH < WINTER_START and not GameSession.objects.exists()
