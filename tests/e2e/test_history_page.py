"""The campaign's history on a 360 px phone (issue 20): the GM types the session's recap notes after play, a player
opens the History, reads the totals and dice luck without scrolling sideways, and taps the recap to copy it."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, log_in
from tests.e2e.test_accessibility import SERVER_SETUP as ACCESSIBILITY_SETUP

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

# A fight under way in each model (tests/e2e/test_accessibility.py), all of them played on the evening "Night at the
# relay" (read by the daphne_server fixture).
SERVER_SETUP = ACCESSIBILITY_SETUP + "\nEncounter.objects.filter(campaign=campaign).update(session=night)\n"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_gm_writes_the_recap_and_a_player_copies_it_on_a_phone(daphne_server, phone, scheme):
    gm = phone(viewport={"width": 360, "height": 740}, color_scheme=scheme)
    log_in(gm, daphne_server, "gm")
    gm.get_by_role("link", name="All sessions").click()
    gm.get_by_role("link", name="Night at the relay").first.click()
    gm.get_by_role("textbox", name="Recap notes").fill("Loot: 300 credits and the relay's key card.")
    gm.get_by_role("button", name="Save recap notes").click()
    expect(gm.get_by_text("Recap notes saved.")).to_be_visible()

    page = phone(viewport={"width": 360, "height": 740}, color_scheme=scheme)
    log_in(page, daphne_server, "ana")
    page.get_by_role("link", name="All encounters").click()
    page.get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History", level=1)).to_be_visible()
    expect(page.get_by_role("row", name="Luwe")).to_be_visible()
    page.get_by_text("Recap to paste into the group chat").click()
    recap = page.get_by_label("The session's recap in Markdown")
    # the fights, oldest first, then the GM's notes
    shape = re.compile(r"^# Night at the relay \(.*\n\n## Fights\n\n- \*\*.*Loot: 300 credits", re.S)
    expect(recap).to_have_value(shape)
    recap.tap()
    assert recap.evaluate("el => el.selectionStart === 0 && el.selectionEnd === el.value.length")
    fits(page)
    page.screenshot(path=f"/tmp/history-phone-{scheme}.png", full_page=True)
