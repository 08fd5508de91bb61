"""Onboarding on phones: a GM signs up, creates a campaign and invites; a second phone joins with the code and
makes a character. Every page in the flow must fit a 360 px screen without scrolling sideways."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Character
from tests.e2e.live import pick_model

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]

PASSWORD = "Table-Top-phone-Pass-7391"
GM_MARKER = "GM-ONLY-MARKER"
GM_SHOT = "/tmp/fray-e2e-gm.png"
PLAYER_SHOT = "/tmp/fray-e2e-player.png"


def assert_fits(page):
    """No sideways scrolling at the phone's width, and htmx loaded (a missing static file would break the page)."""
    page.wait_for_load_state()  # after a navigation, wait for the deferred htmx script and the stylesheet
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
        f"{page.url} scrolls horizontally: scrollWidth "
        f"{page.evaluate('document.documentElement.scrollWidth')} > {page.evaluate('window.innerWidth')}"
    )
    assert page.evaluate("typeof htmx") == "object", f"htmx did not load on {page.url}"


def sign_up(page, base, username):
    page.goto(base + "/")
    assert_fits(page)
    page.get_by_role("link", name="Create an account").click()
    expect(page).to_have_url(base + "/accounts/signup/")
    assert_fits(page)
    page.get_by_label("Username").fill(username)
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page).to_have_url(base + "/")
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
    expect(page.get_by_role("link", name=username)).to_be_visible()
    assert_fits(page)


def test_gm_invites_a_player_who_joins_by_code_and_makes_a_character(live_server, phone):
    base = live_server.url

    # --- The GM, on their phone: sign up, create the campaign, write notes, make an invite.
    gm = phone()
    sign_up(gm, base, "gemma_gm")
    gm.get_by_role("link", name="New campaign").click()
    expect(gm.get_by_role("heading", name="New campaign")).to_be_visible()
    assert_fits(gm)
    gm.get_by_label("Name", exact=True).fill("Drift")
    gm.get_by_label("Default combat model").select_option(label="Burn Bryte")
    gm.get_by_role("button", name="Create campaign").click()
    campaign = Campaign.objects.get(name="Drift")
    campaign_url = f"{base}/campaigns/{campaign.pk}/"
    expect(gm).to_have_url(campaign_url)
    expect(gm.get_by_role("heading", name="Drift", level=1)).to_be_visible()
    assert_fits(gm)

    # GM notes edit inline: htmx swaps the section in place, the page itself never reloads.
    gm.evaluate("window.__samePage = true")
    gm.get_by_role("link", name="Edit notes").click()
    notes = gm.get_by_role("textbox", name="GM notes", exact=True)
    expect(notes).to_be_visible()
    notes.fill(f"{GM_MARKER}: the relay station is a trap.")
    gm.get_by_role("button", name="Save notes").click()
    expect(gm.locator("#gm-notes .notes")).to_contain_text(GM_MARKER)
    expect(gm.get_by_role("link", name="Edit notes")).to_be_visible()
    assert gm.evaluate("window.__samePage === true"), "saving GM notes reloaded the whole page"
    expect(gm).to_have_url(campaign_url)
    assert GM_MARKER in Campaign.objects.get(pk=campaign.pk).gm_notes

    invite = gm.locator("#invite")
    invite.get_by_role("button", name="Make an invite").click()
    expect(gm.get_by_text("New invite ready.")).to_be_visible()
    code_el = gm.locator("[data-testid=join-code]")
    expect(code_el).to_have_text(re.compile(r"^[A-Z0-9]{4}-[A-Z0-9]{4}$"))
    code = code_el.inner_text().strip()
    expect(gm.locator("#invite .qr svg")).to_be_visible()
    assert gm.locator("#invite .qr svg").bounding_box()["width"] >= 150, "the QR code is too small to scan"
    assert_fits(gm)

    # --- The player, on a second phone: sign up, join with the code typed in lower case.
    player = phone()
    sign_up(player, base, "ana_player")
    player.get_by_role("link", name="Join with a code").click()
    expect(player.get_by_role("heading", name="Join a campaign")).to_be_visible()
    assert_fits(player)
    player.get_by_label("Join code").fill(code.lower())
    player.get_by_role("button", name="Join", exact=True).click()
    expect(player).to_have_url(campaign_url)
    expect(player.get_by_text("Welcome to Drift! Make your character next.")).to_be_visible()
    expect(player.locator(".meta .badge")).to_have_text("Player")
    assert_fits(player)
    assert GM_MARKER not in player.content()

    # New character: switching the combat model swaps the stat fields in with htmx.
    player.get_by_role("link", name="New character").click()
    expect(player.get_by_role("heading", name="New character")).to_be_visible()
    assert_fits(player)
    player.get_by_label("Name", exact=True).fill("Luwe Okafor")
    expect(player.get_by_label("SPD", exact=True)).to_have_count(0)
    pick_model(player.get_by_label("Combat model", exact=True), "HERO System")
    spd = player.get_by_label("SPD", exact=True)
    expect(spd).to_be_visible()
    assert_fits(player)

    spd.fill("13")
    player.get_by_role("button", name="Save character").click()
    spd_field = player.locator(".field", has=player.get_by_label("SPD", exact=True))
    expect(spd_field.get_by_text("SPD cannot be above 12.")).to_be_visible()
    expect(player.get_by_label("Combat model", exact=True)).to_have_value("hero")
    expect(player.get_by_label("Name", exact=True)).to_have_value("Luwe Okafor")
    assert_fits(player)
    assert not Character.objects.filter(name="Luwe Okafor").exists()

    player.get_by_label("SPD", exact=True).fill("5")
    player.get_by_role("button", name="Save character").click()
    character = Character.objects.get(name="Luwe Okafor")
    expect(player).to_have_url(f"{campaign_url}characters/{character.pk}/")
    expect(player.get_by_role("heading", name="Luwe Okafor", level=1)).to_be_visible()
    spd_row = player.locator(".stats div", has=player.locator("dt", has_text=re.compile(r"^SPD$")))
    expect(spd_row.locator("dd")).to_have_text("5")
    assert (character.system, character.stats["spd"]) == ("hero", 5)
    assert_fits(player)
    assert GM_MARKER not in player.content()

    player.get_by_role("link", name="Drift").click()
    expect(player).to_have_url(campaign_url)
    expect(player.get_by_role("link", name="Luwe Okafor")).to_be_visible()
    assert_fits(player)
    html = player.content()
    assert GM_MARKER not in html
    assert "GM notes" not in html and "Invite players" not in html and "Members" not in html
    player.screenshot(path=PLAYER_SHOT, full_page=True, caret="initial")

    # --- The GM reloads and sees the new character and the new member.
    gm.reload()
    expect(gm.locator("section[aria-labelledby=mine-h]").get_by_role("link", name="Luwe Okafor")).to_be_visible()
    expect(gm.locator("section[aria-labelledby=mine-h]")).to_contain_text("played by ana_player")
    members = gm.locator("#members")
    expect(members.locator(".card", has_text="ana_player").locator(".badge")).to_have_text("Player")
    expect(members.locator(".card", has_text="gemma_gm").locator(".badge")).to_have_text("GM")
    expect(gm.locator("#invite")).to_contain_text("used 1 time")
    expect(gm.locator("#gm-notes")).to_contain_text(GM_MARKER)
    assert_fits(gm)
    gm.screenshot(path=GM_SHOT, full_page=True, caret="initial")
