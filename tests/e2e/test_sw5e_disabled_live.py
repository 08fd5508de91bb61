"""A disabled ship on a phone (issue 18): the GM's damage takes the Wayward Lantern to 0 hull points while Tess is
taking her turn; her phone redraws with what a disabled ship's crew may still do, at 360 px, and she tries to
stabilise it. Rules notes: "At 0 hull points: ... disabled with system damage and destruction saves"."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, log_has, phone_opener
from tests.e2e.test_taps_sw5e import tess_alone_against_the_talon

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module


def test_a_disabled_ships_pilot_sees_the_tally_and_tries_to_stabilise_it(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(lambda: phone(viewport={"width": 360, "height": 740}))
    gm, tess = tess_alone_against_the_talon(open_phone, base, "Down at the relay")
    tess.get_by_role("button", name="Store them and take my turn").click()
    expect(tess.locator(".banner.turn")).to_have_text("Your turn!")
    log_has(gm, "Tess Varro starts their turn aboard Wayward Lantern")  # the GM's table has moved on too

    gm.get_by_label("Ship hit").select_option(label="Wayward Lantern")
    gm.get_by_label("Damage (shields first, then hull)").fill("80")  # 30 shields, 45 hull, 5 left over
    gm.get_by_role("button", name="Apply damage").click()
    log_has(tess, "Wayward Lantern is disabled at 0 hull points: system damage level 1")

    expect(tess.locator(".me .system-damage")).to_contain_text("System damage level 1")
    expect(tess.locator(".me .saves")).to_contain_text("0 of 3 successes")
    expect(tess.locator(".table .down-note")).to_contain_text("rolled automatically as its turn starts")
    options = tess.locator(".me select[name=action] option")
    expect(options).to_have_text(["Direct (may repeat)", "Patch (may repeat)"])
    expect(tess.locator(".me select[name=action]")).to_have_value("patch")  # repairs first
    expect(tess.get_by_role("button", name="Fire the laser cannons at Red Talon")).to_have_count(0)
    fits(tess)
    tess.get_by_label("Intelligence (Mechanic's Kit) modifier").fill("2")
    tess.get_by_role("button", name="Try to stabilise Wayward Lantern (DC 10; the server rolls)").tap()
    log_has(tess, "Tess Varro tries to stabilise Wayward Lantern")
    expect(tess.get_by_role("button", name="Try to stabilise Wayward Lantern (DC 10; the server rolls)")).to_have_count(
        0
    )
    fits(tess)
    assert not errors, f"JavaScript errors: {errors}"
