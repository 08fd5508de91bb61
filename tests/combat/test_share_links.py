"""Share links (issue 20): "The GM can make a read-only share link for a finished encounter's review (player
audience only; an unguessable token; revocable; expires if the GM sets a date). No account needed to open it."
"""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from combat import replay, services
from combat.models import ShareLink
from tests.combat.test_review import fought  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db
GM_ONLY = ("frenzy", "Collapse")  # the GM's Collapse spending and its note


@pytest.fixture
def ended(fought, gm):  # noqa: F811
    assert services.submit(fought.pk, gm, "end_encounter", {}, "end").ok
    fought.refresh_from_db()
    return fought


def share(client, encounter, **data):
    return client.post(reverse("share_create", args=[encounter.campaign_id, encounter.pk]), data, follow=True)


def the_link(encounter) -> str:
    return reverse("shared_review", args=[ShareLink.objects.filter(encounter=encounter).latest("pk").token])


def test_anyone_with_the_link_reads_the_review_as_players_saw_it(ended, client, gm):
    client.force_login(gm)
    page = share(client, ended).content.decode()
    assert "A share link is ready" in page and the_link(ended) in page
    # The GM reveals the whole log to the campaign's players: the link still shows only what players saw in play.
    client.post(reverse("encounter_log_reveal", args=[ended.campaign_id, ended.pk]), {"reveal": "1"})
    stranger = Client()
    response = stranger.get(the_link(ended))
    html = response.content.decode()
    assert response.status_code == 200 and "Relay: the log" in html and "Who did what" in html
    assert response["X-Robots-Tag"] == "noindex, nofollow" and response["Referrer-Policy"] == "no-referrer"
    for secret in GM_ONLY:
        assert secret not in html
    assert '<form method="post"' not in html and "csrfmiddlewaretoken" not in html  # nothing to send
    assert "Export" not in html and "Share this review" not in html
    # Its replay steps too, by the log's seq as every link names a moment: the GM-only ones (hidden however
    # the log is revealed to the campaign) show the players' moment before them.
    theirs = [m.seq for m in replay.moments(ended, show_all=False)[0]]
    assert len(theirs) < ended.version
    htmx = {"HX-Request": "true", "HX-Target": "section#replay"}
    for seq in range(1, ended.version + 1):
        step = stranger.get(f"{the_link(ended)}?at={seq}", headers=htmx)
        shown = max([s for s in theirs if s <= seq] or theirs[:1])
        assert step.status_code == 200 and f"entry {theirs.index(shown) + 1} of {len(theirs)}" in step.content.decode()
        assert not any(secret in step.content.decode() for secret in GM_ONLY), seq


def test_a_revoked_an_expired_or_an_unknown_link_is_not_found(ended, client, gm):
    client.force_login(gm)
    share(client, ended)
    link = ShareLink.objects.get(encounter=ended)
    url = the_link(ended)
    assert Client().get(url).status_code == 200
    page = client.post(
        reverse("share_revoke", args=[ended.campaign_id, ended.pk, link.pk]), follow=True
    ).content.decode()
    assert "That link no longer opens the review." in page and link.token not in page
    assert Client().get(url).status_code == 404
    share(client, ended)
    ShareLink.objects.filter(revoked_at__isnull=True).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert Client().get(the_link(ended)).status_code == 404
    assert Client().get(reverse("shared_review", args=["no-such-token"])).status_code == 404


def test_a_last_day_keeps_the_link_to_the_end_of_that_day_and_a_past_one_is_refused(ended, client, gm):
    client.force_login(gm)
    day = timezone.localdate() + timedelta(days=1)
    share(client, ended, expires=day.isoformat())
    link = ShareLink.objects.get(encounter=ended)
    assert link.expires_at > timezone.now() + timedelta(days=1)
    assert f"Works until the end of {day.day} {day:%b %Y}" in share(client, ended).content.decode()
    before = ShareLink.objects.count()
    page = share(client, ended, expires="2020-01-01").content.decode()
    assert "Choose an end date in the future" in page and ShareLink.objects.count() == before
    page = share(client, ended, expires="next week").content.decode()
    assert "Enter the last day as a date" in page and ShareLink.objects.count() == before


def test_only_the_gm_shares_only_a_finished_encounter(fought, client, gm, player, outsider):  # noqa: F811
    url = reverse("share_create", args=[fought.campaign_id, fought.pk])
    client.force_login(gm)
    page = client.post(url, follow=True).content.decode()
    assert "Only a finished encounter" in page and not ShareLink.objects.exists()
    assert services.submit(fought.pk, gm, "end_encounter", {}, "end").ok
    for who in (player, outsider):
        client.force_login(who)
        assert client.post(url).status_code == 404
    assert not ShareLink.objects.exists()
    client.force_login(player)
    assert (
        "Share this review"
        not in client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    )


def test_making_a_link_needs_the_csrf_token(ended, gm):
    client = Client(enforce_csrf_checks=True)
    client.force_login(gm)
    assert share(client, ended).status_code == 403 and not ShareLink.objects.exists()
