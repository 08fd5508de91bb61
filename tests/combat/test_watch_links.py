"""Watch links' pages (issue 20): "A spectator link for a live encounter: read-only, player audience, updates live
like a phone; the GM can revoke it. Spectators never see controls or GM-only facts and cannot send anything but
pings; a page for a stream overlay (transparent background, big type, whose turn and health only)." The GM makes
and revokes links on the log page and in a fold of the live table, optionally with a last day. The sockets:
tests/combat/test_spectators.py."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Character
from combat import services, sharing
from combat.models import ShareLink
from tests.combat.test_review import fought  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db
GM_ONLY = ("frenzy", "Collapse", "GM controls")


def make(client, encounter):
    return client.post(reverse("watch_create", args=[encounter.campaign_id, encounter.pk]), follow=True)


def log_page(client, encounter) -> str:
    return client.get(reverse("encounter_log", args=[encounter.campaign_id, encounter.pk])).content.decode()


def watch_url(encounter) -> str:
    link = ShareLink.objects.filter(encounter=encounter, kind=ShareLink.Kind.WATCH).latest("pk")
    return reverse("watch", args=[link.token])


def test_the_gm_makes_a_watch_link_on_a_running_fights_log_page_and_anyone_watches(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    assert "Make a watch link" in log_page(client, fought)
    page = make(client, fought).content.decode()
    assert "A watch link is ready" in page and watch_url(fought) in page
    response = Client().get(watch_url(fought))
    html = response.content.decode()
    assert response.status_code == 200 and "watching live, as the players see it" in html
    assert f'hx-ws:connect="/ws/watch/{watch_url(fought).split("/")[2]}/"' in html
    assert f'id="enc-{fought.pk}-table"' in html and "Luwe" in html
    assert response["X-Robots-Tag"] == "noindex, nofollow" and response["Referrer-Policy"] == "no-referrer"
    for secret in GM_ONLY:
        assert secret not in html
    assert "<form" not in html and "<button" not in html  # nothing to press
    # A review link's page is not a watch page, nor the other way round.
    assert Client().get(reverse("shared_review", args=[watch_url(fought).split("/")[2]])).status_code == 404


def test_a_player_sees_no_watch_card_and_cannot_make_a_link(fought, client, player):  # noqa: F811
    client.force_login(player)
    assert "Make a watch link" not in log_page(client, fought)
    assert make(client, fought).status_code == 404
    assert not ShareLink.objects.exists()


def test_an_ended_fight_gets_no_watch_link_and_its_links_stop_working(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    make(client, fought)
    url = watch_url(fought)
    assert services.submit(fought.pk, gm, "end_encounter", {}, "end").ok
    assert Client().get(url).status_code == 404
    assert "Make a watch link" not in log_page(client, fought)
    page = make(client, fought).content.decode()
    assert "A watch link is for a running encounter" in page
    assert ShareLink.objects.filter(kind=ShareLink.Kind.WATCH).count() == 1


def test_the_gm_revokes_a_watch_link_and_it_answers_404(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    make(client, fought)
    link = ShareLink.objects.get(encounter=fought)
    url = watch_url(fought)
    revoke = reverse("watch_revoke", args=[fought.campaign_id, fought.pk, link.pk])
    page = client.post(revoke, follow=True).content.decode()
    assert "That watch link is closed" in page and link.token not in page
    assert Client().get(url).status_code == 404
    assert "already revoked" in client.post(revoke, follow=True).content.decode()
    assert Client().get(reverse("watch", args=["no-such-token"])).status_code == 404


def test_a_review_links_id_is_not_a_watch_link_to_revoke(fought, client, gm):  # noqa: F811
    review = ShareLink.objects.create(encounter=fought, token="a-review", created_by=gm)
    client.force_login(gm)
    assert client.post(reverse("watch_revoke", args=[fought.campaign_id, fought.pk, review.pk])).status_code == 404
    review.refresh_from_db()
    assert review.revoked_at is None


def test_a_watch_link_is_not_revoked_through_the_review_links_card(campaign, gm, pc, npc, client):
    """Each kind of link is revoked from its own card: the review card's URL does not know a watch link."""
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Live", model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]), gm
    )
    link = ShareLink.objects.create(encounter=encounter, token="w-1", created_by=gm, kind=ShareLink.Kind.WATCH)
    client.force_login(gm)
    url = reverse("share_revoke", args=[campaign.pk, encounter.pk, link.pk])
    assert client.post(url).status_code == 404
    link.refresh_from_db()
    assert link.revoked_at is None


# --- the stream overlay ------------------------------------------------------------------------------------------


@pytest.fixture
def lurking(campaign, gm, pc, npc):
    """A running fight with an enemy the party has not seen: its name is the GM's to know."""
    lurker = Character.objects.create(campaign=campaign, name="Lurker", kind="npc", system="burn_bryte")
    encounter = services.create_encounter(
        campaign, gm, name="Relay", model="burn_bryte", pcs=[pc], enemies=[(npc, 1), (lurker, 1)], hidden={lurker.pk}
    )
    return services.start_encounter(encounter, gm)


def test_the_overlay_shows_the_players_table_without_page_chrome_on_the_same_socket(lurking, gm):
    link = ShareLink.objects.create(encounter=lurking, token="w-overlay", kind=ShareLink.Kind.WATCH, created_by=gm)
    response = Client().get(reverse("watch_overlay", args=[link.token]))
    html = response.content.decode()
    assert response.status_code == 200
    assert response["X-Robots-Tag"] == "noindex, nofollow" and response["Referrer-Policy"] == "no-referrer"
    assert '<html lang="en" class="overlay">' in html  # the transparent, big-type style (fray.css)
    assert 'hx-ws:connect="/ws/watch/w-overlay/"' in html and "data-ping-only" in html
    assert f'id="enc-{lurking.pk}-table"' in html and "Luwe" in html and "3/3 HL" in html and "Nivick" in html
    for chrome in ("topbar", "<nav", "<footer", 'class="messages"', "Log out"):
        assert chrome not in html
    assert "Lurker" not in html and "Collapse" not in html and "GM controls" not in html
    gm_client = Client()
    gm_client.force_login(gm)
    assert "Lurker" in gm_client.get(lurking.get_absolute_url()).content.decode()  # a secret there is to keep
    assert "<form" not in html and "<button" not in html


def test_the_watch_page_links_to_its_overlay(lurking, gm):
    link = ShareLink.objects.create(encounter=lurking, token="w-page", kind=ShareLink.Kind.WATCH, created_by=gm)
    html = Client().get(reverse("watch", args=[link.token])).content.decode()
    assert "For a stream overlay" in html and 'value="http://testserver/watch/w-page/overlay/"' in html


@pytest.mark.parametrize("why", ["unknown", "revoked", "expired", "review", "ended"])
def test_the_overlay_answers_404_where_the_watch_page_does(lurking, gm, why):
    kind = ShareLink.Kind.REVIEW if why == "review" else ShareLink.Kind.WATCH
    link = ShareLink.objects.create(encounter=lurking, token="w-gone", kind=kind, created_by=gm)
    if why == "revoked":
        assert sharing.revoke(lurking, link.pk)
    elif why == "expired":
        ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    elif why == "ended":
        assert services.submit(lurking.pk, gm, "end_encounter", {}, "end").ok
    token = "never-made" if why == "unknown" else link.token
    assert Client().get(reverse("watch_overlay", args=[token])).status_code == 404
    assert Client().get(reverse("watch", args=[token])).status_code == 404


# --- an end date --------------------------------------------------------------------------------------------------


def test_a_watch_link_with_a_last_day_says_until_when_and_stops_after_it(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    day = timezone.localdate() + timedelta(days=1)
    page = client.post(
        reverse("watch_create", args=[fought.campaign_id, fought.pk]), {"expires": day.isoformat()}, follow=True
    ).content.decode()
    link = ShareLink.objects.get(encounter=fought, kind=ShareLink.Kind.WATCH)
    assert link.expires_at > timezone.now() + timedelta(days=1)
    # the day the GM chose, not the midnight after it
    assert f"Works until the end of {day.day} {day:%b %Y}" in page and link.token in page
    assert Client().get(watch_url(fought)).status_code == 200
    ShareLink.objects.filter(pk=link.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert Client().get(watch_url(fought)).status_code == 404
    assert Client().get(reverse("watch_overlay", args=[link.token])).status_code == 404
    assert link.token not in log_page(client, fought)  # an expired link leaves the list


@pytest.mark.parametrize(
    ("expires", "sentence"),
    [("2020-01-01", "Choose an end date in the future"), ("next week", "Enter the last day as a date")],
)
def test_a_past_or_garbled_last_day_is_a_sentence_and_no_link(fought, client, gm, expires, sentence):  # noqa: F811
    client.force_login(gm)
    url = reverse("watch_create", args=[fought.campaign_id, fought.pk])
    assert sentence in client.post(url, {"expires": expires}, follow=True).content.decode()
    fold = client.post(url, {"expires": expires, "back": "table"}, headers={"HX-Request": "true"}).content.decode()
    assert sentence in fold and 'class="notice error-box" role="alert"' in fold
    assert not ShareLink.objects.exists()


# --- the GM's live table ------------------------------------------------------------------------------------------


def table_page(client, encounter) -> str:
    return client.get(reverse("encounter", args=[encounter.campaign_id, encounter.pk])).content.decode()


def test_the_gm_makes_copies_and_revokes_a_link_without_leaving_the_live_table(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    page = table_page(client, fought)
    assert '<details id="watch-links" class="card watch-links" data-keep-open>' in page
    assert "Make a watch link" in page and 'name="back" value="table"' in page
    htmx = {"HX-Request": "true"}
    fold = client.post(
        reverse("watch_create", args=[fought.campaign_id, fought.pk]), {"back": "table"}, headers=htmx
    ).content.decode()
    link = ShareLink.objects.get(encounter=fought, kind=ShareLink.Kind.WATCH)
    # The fold's body alone, to swap in place: the links to copy, when they end, and Revoke; no page around it.
    assert fold.lstrip().startswith('<div id="watch-links-body"') and "<html" not in fold
    assert "A watch link is ready" in fold and f"http://testserver/watch/{link.token}/" in fold
    assert f"http://testserver/watch/{link.token}/overlay/" in fold and "No end date" in fold
    assert f"/watch/{link.token}/overlay/" in table_page(client, fought)
    fold = client.post(
        reverse("watch_revoke", args=[fought.campaign_id, fought.pk, link.pk]), {"back": "table"}, headers=htmx
    ).content.decode()
    assert "That watch link is closed" in fold and link.token not in fold
    assert Client().get(reverse("watch_overlay", args=[link.token])).status_code == 404


def test_without_htmx_the_fold_sends_the_gm_back_to_the_live_table(fought, client, gm):  # noqa: F811
    client.force_login(gm)
    url = reverse("watch_create", args=[fought.campaign_id, fought.pk])
    response = client.post(url, {"back": "table"})
    assert response["Location"] == reverse("encounter", args=[fought.campaign_id, fought.pk]) + "#watch-links"
    response = client.post(url, {"back": "elsewhere"})  # anything else: the log page, as before
    assert response["Location"] == reverse("encounter_log", args=[fought.campaign_id, fought.pk]) + "#watch-h"


def test_players_and_outsiders_get_no_fold_and_cannot_make_or_revoke(fought, client, gm, player, other_player):  # noqa: F811
    link = ShareLink.objects.create(encounter=fought, token="w-mine", kind=ShareLink.Kind.WATCH, created_by=gm)
    outsider = type(gm).objects.create_user("olga", password="x")
    for who in (player, other_player, outsider):
        client.force_login(who)
        if who != outsider:
            page = table_page(client, fought)
            assert "watch-links" not in page and "w-mine" not in page
        else:
            assert client.get(reverse("encounter", args=[fought.campaign_id, fought.pk])).status_code == 404
        for headers in ({}, {"HX-Request": "true"}):
            make_url = reverse("watch_create", args=[fought.campaign_id, fought.pk])
            revoke_url = reverse("watch_revoke", args=[fought.campaign_id, fought.pk, link.pk])
            assert client.post(make_url, {"back": "table"}, headers=headers).status_code == 404
            assert client.post(revoke_url, {"back": "table"}, headers=headers).status_code == 404
    assert ShareLink.objects.get().revoked_at is None and ShareLink.objects.count() == 1


def test_an_ended_fight_has_no_fold(fought, client, gm):  # noqa: F811
    assert services.submit(fought.pk, gm, "end_encounter", {}, "end").ok
    client.force_login(gm)
    assert "watch-links" not in table_page(client, fought)
