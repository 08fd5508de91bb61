import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership

pytestmark = pytest.mark.django_db


def test_creating_a_campaign_makes_you_its_gm(client, gm):
    client.force_login(gm)
    response = client.post(
        reverse("campaign_create"),
        {
            "name": "Drift",
            "description": "Space",
            "combat_model": "expanse",
            "enemy_health_visibility": "exact",
        },
    )
    campaign = Campaign.objects.get(name="Drift")
    assert response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.get(campaign=campaign, user=gm).role == "gm"
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "The Expanse (AGE)" in page and "Invite players" in page


def test_campaign_form_explains_missing_and_bad_values(client, gm):
    client.force_login(gm)
    response = client.post(reverse("campaign_create"), {"name": "", "combat_model": "chess"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "This field is required." in page
    assert "Select a valid choice. chess is not one of the available choices." in page
    assert not Campaign.objects.exists()


def test_one_user_gm_here_and_player_there(client, gm, player, campaign):
    from campaigns import services

    theirs = services.create_campaign(player, name="Ana's game", combat_model="hero")
    Membership.objects.create(campaign=theirs, user=gm)
    client.force_login(gm)
    page = client.get(reverse("home")).content.decode()
    assert "Drift" in page and "Ana&#x27;s game" in page
    roles = {m.campaign.name: m.role for m in client.get(reverse("home")).context["memberships"]}
    assert roles == {"Drift": "gm", "Ana's game": "player"}


def test_gm_makes_a_co_gm_who_can_then_edit(client, gm, player, campaign):
    client.force_login(gm)
    member = Membership.objects.get(campaign=campaign, user=player)
    client.post(reverse("member_role", args=[campaign.pk, member.pk]), {"role": "gm"})
    member.refresh_from_db()
    assert member.role == "gm"
    client.force_login(player)
    response = client.post(
        reverse("campaign_edit", args=[campaign.pk]),
        {
            "name": "Drift II",
            "combat_model": "burn_bryte",
            "enemy_health_visibility": "none",
        },
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.name == "Drift II"


def test_the_last_gm_cannot_step_down_or_be_removed(client, gm, campaign):
    client.force_login(gm)
    own = Membership.objects.get(campaign=campaign, user=gm)
    response = client.post(reverse("member_role", args=[campaign.pk, own.pk]), {"role": "player"}, follow=True)
    assert "A campaign needs at least one GM." in response.content.decode()
    own.refresh_from_db()
    assert own.role == "gm"


def test_removing_a_player_keeps_their_characters_without_a_player(client, gm, player, campaign, pc):
    client.force_login(gm)
    member = Membership.objects.get(campaign=campaign, user=player)
    client.post(reverse("member_remove", args=[campaign.pk, member.pk]))
    assert not Membership.objects.filter(pk=member.pk).exists()
    pc.refresh_from_db()
    assert pc.owner is None
    client.force_login(player)
    assert client.get(campaign.get_absolute_url()).status_code == 404


def test_players_cannot_change_settings_or_roles(client, player, other_player, campaign):
    client.force_login(player)
    assert client.get(reverse("campaign_edit", args=[campaign.pk])).status_code == 404
    response = client.post(reverse("campaign_edit", args=[campaign.pk]), {"name": "Mine", "combat_model": "hero"})
    assert response.status_code == 404
    other = Membership.objects.get(campaign=campaign, user=other_player)
    assert client.post(reverse("member_role", args=[campaign.pk, other.pk]), {"role": "gm"}).status_code == 404
    own = Membership.objects.get(campaign=campaign, user=player)
    assert client.post(reverse("member_role", args=[campaign.pk, own.pk]), {"role": "gm"}).status_code == 404
    campaign.refresh_from_db()
    assert campaign.name == "Drift"
    assert Membership.objects.get(pk=own.pk).role == "player"


def test_gm_notes_are_gm_only(client, gm, player, campaign):
    client.force_login(player)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert "SECRET-GM-NOTE" not in page and "GM notes" not in page
    assert client.get(reverse("gm_notes", args=[campaign.pk])).status_code == 404
    assert client.post(reverse("gm_notes", args=[campaign.pk]), {"gm_notes": "hijack"}).status_code == 404
    client.force_login(gm)
    assert "SECRET-GM-NOTE" in client.get(campaign.get_absolute_url()).content.decode()


def test_gm_notes_edit_inline_with_htmx(client, gm, campaign):
    client.force_login(gm)
    url = reverse("gm_notes", args=[campaign.pk])
    form = client.get(url + "?edit=1", headers={"HX-Request": "true"})
    body = form.content.decode()
    assert "<html" not in body and 'name="gm_notes"' in body and "hx-post" in body
    saved = client.post(url, {"gm_notes": "Ambush at the relay"}, headers={"HX-Request": "true"})
    body = saved.content.decode()
    assert "<html" not in body and "Ambush at the relay" in body and 'id="gm-notes"' in body
    campaign.refresh_from_db()
    assert campaign.gm_notes == "Ambush at the relay"


def test_refused_campaign_edits_answer_400_and_change_nothing(client, gm, campaign):
    client.force_login(gm)
    response = client.post(reverse("campaign_edit", args=[campaign.pk]), {"name": "", "combat_model": "hero"})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    too_long = {"gm_notes": "x" * 20001}
    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(reverse("gm_notes", args=[campaign.pk]), too_long, headers=headers)
        assert response.status_code == 400
        assert "Ensure this value has at most 20000 characters" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.name == "Drift" and campaign.gm_notes.startswith("SECRET-GM-NOTE")


def test_a_notes_post_without_the_box_keeps_the_notes(client, gm, campaign):
    client.force_login(gm)
    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(reverse("gm_notes", args=[campaign.pk]), {"other": "x"}, headers=headers)
        assert response.status_code == 400
        assert "the notes box was not sent" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.gm_notes.startswith("SECRET-GM-NOTE")


def test_gm_notes_work_without_javascript(client, gm, campaign):
    client.force_login(gm)
    url = reverse("gm_notes", args=[campaign.pk])
    assert "<html" in client.get(url + "?edit=1").content.decode()
    response = client.post(url, {"gm_notes": "Plain form"})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.gm_notes == "Plain form"


def test_htmx_requests_carry_the_csrf_header(client, gm, campaign):
    client.force_login(gm)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert 'hx-headers:inherited=\'{"X-CSRFToken": "' in page
    assert "vendor/htmx/htmx.min" in page
