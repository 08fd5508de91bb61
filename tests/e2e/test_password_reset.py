"""A forgotten password on a phone: from the login page to the e-mailed link, a new password, and back in. Every
page fits a 360 px screen without scrolling sideways."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from tests.conftest import make_user
from tests.e2e.test_onboarding import assert_fits

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]

NEW_PASSWORD = "Phone-reset-Pass-6264"


def assert_thumb_sized(page):
    controls = page.locator("main button, main input:not([type=hidden])")
    for i in range(controls.count()):
        assert controls.nth(i).bounding_box()["height"] >= 44, f"{page.url}: control {i} is too small to tap"


def test_a_forgotten_password_is_reset_by_e_mail(live_server, phone, settings):
    settings.FRAY_BASE_URL = live_server.url
    make_user("gemma")
    page = phone()
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_role("link", name="Reset it by e-mail").click()
    expect(page.get_by_role("heading", name="Reset your password")).to_be_visible()
    assert_fits(page)
    assert_thumb_sized(page)

    page.get_by_label("Email").fill("gemma@example.com")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    assert_fits(page)

    assert len(mail.outbox) == 1
    link = re.search(r"http://\S+/accounts/password/reset/\S+/\S+/", mail.outbox[0].body).group(0)
    page.goto(link)
    expect(page.get_by_role("heading", name="Set a new password")).to_be_visible()
    assert_fits(page)
    assert_thumb_sized(page)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("heading", name="Password set")).to_be_visible()
    assert_fits(page)

    page.get_by_role("link", name="Log in with it").click()
    page.get_by_label("Username").fill("gemma")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
