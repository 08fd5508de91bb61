"""A new account's time zone comes from the browser: the sign-up form starts at it, and it stays editable."""

import pytest
from playwright.sync_api import expect

from campaigns.models import User
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]


def fill_account(page, username):
    page.get_by_label("Username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)


def test_the_browsers_time_zone_is_the_new_accounts(live_server, phone):
    page = phone(timezone_id="America/Chicago")
    page.goto(live_server.url + "/accounts/signup/")
    zone = page.get_by_label("Time zone")
    expect(zone).to_have_value("America/Chicago")
    fill_account(page, "chicago_gm")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    assert User.objects.get(username="chicago_gm").timezone == "America/Chicago"


def test_the_time_zone_stays_editable(live_server, phone):
    page = phone(timezone_id="Asia/Tokyo")
    page.goto(live_server.url + "/accounts/signup/")
    zone = page.get_by_label("Time zone")
    expect(zone).to_have_value("Asia/Tokyo")
    zone.select_option("Europe/Lisbon")
    fill_account(page, "lisbon_player")
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    assert User.objects.get(username="lisbon_player").timezone == "Europe/Lisbon"
