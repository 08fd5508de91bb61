"""What the GM typed survives a live redraw: a player acting while the GM fills in a form redraws the GM's table
over the socket, and the half-typed damage, the ship picked and the focus are still there; the damage then
applied is what the GM typed. A form that was sent is drawn fresh."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import log_has, phone_opener
from tests.e2e.test_taps_sw5e import tess_alone_against_the_talon

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module


def test_a_players_action_does_not_wipe_what_the_gm_is_typing(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(lambda: phone(viewport={"width": 1366, "height": 900}))
    gm, tess = tess_alone_against_the_talon(open_phone, base, "Typed through a redraw")

    gm.get_by_label("Ship hit").select_option(label="Red Talon")
    amount = gm.get_by_label("Damage (shields first, then hull)")
    amount.fill("12")
    version = gm.locator("#live .gm-controls").get_attribute("data-version")
    tess.get_by_role("button", name="Store them and take my turn").click()  # redraws the GM's table
    log_has(gm, "Tess Varro starts their turn aboard Wayward Lantern")
    expect(gm.locator("#live .gm-controls")).not_to_have_attribute("data-version", version)
    expect(amount).to_have_value("12")
    expect(amount).to_be_focused()
    expect(gm.locator("#gm-dmg-ship option:checked")).to_have_text("Red Talon")

    gm.get_by_role("button", name="Apply damage").click()
    log_has(gm, "Red Talon takes 12 damage")
    expect(amount).to_have_value("1")  # sent: the next damage starts from the form's own default
    assert not errors, f"JavaScript errors: {errors}"
