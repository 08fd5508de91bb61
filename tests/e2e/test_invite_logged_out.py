"""An invite link opened while logged out says which campaign and which GM invite you, and offers to sign up or
log in; either way the visitor lands in the campaign as a player."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from campaigns import services
from campaigns.models import Invite, Membership, User
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]


@pytest.fixture
def invite_url(live_server):
    gm = User.objects.create_user("gemma", password=PASSWORD, first_name="Gemma Vance")
    campaign = services.create_campaign(gm, name="Drift", combat_model="hero", description="SECRET-DESCRIPTION")
    invite = Invite.objects.create(campaign=campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=7))
    return f"{live_server.url}/join/{invite.token}/"


def test_a_new_player_signs_up_from_the_link_and_lands_in_the_campaign(invite_url, phone):
    page = phone()
    page.goto(invite_url)
    expect(page.get_by_role("heading", name="Join Drift", level=1)).to_be_visible()
    expect(page.get_by_text("Gemma Vance invites you to play in Drift on Fray.")).to_be_visible()
    assert "SECRET" not in page.content()
    page.get_by_role("link", name="Sign up and join").click()
    page.get_by_label("Username").fill("dee")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Drift", level=1)).to_be_visible()
    expect(page.get_by_text("Welcome to Drift! Make your character next.")).to_be_visible()
    assert Membership.objects.get(user__username="dee").campaign.name == "Drift"


def test_an_existing_player_logs_in_from_the_link_and_lands_in_the_campaign(invite_url, phone):
    User.objects.create_user("eli", password=PASSWORD)
    page = phone()
    page.goto(invite_url)
    page.get_by_role("link", name="Log in and join").click()
    page.get_by_label("Username").fill("eli")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Drift", level=1)).to_be_visible()
    expect(page.get_by_text("Welcome to Drift! Make your character next.")).to_be_visible()
    assert Membership.objects.filter(user__username="eli", campaign__name="Drift").exists()
