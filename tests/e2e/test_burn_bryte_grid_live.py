"""Burn Bryte on a grid, on a 360 px phone against a real daphne (issue 18): the GM places Luwe and two Nivicks;
Luwe's attack on the far one is refused beside her tap with the distance, she moves to a square in reach with the
phone's "Move to", and the attack then rolls."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, join_table, log_has, log_in, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture: one daphne for the module


def place(gm, who, square):
    gm.locator("#gm-p-who").select_option(label=who)
    gm.locator("#gm-p-to").fill(square)
    gm.locator("#gm-positions").get_by_role("button", name="Place").click()
    log_has(gm, f"The GM places {who} on {square}.")


def test_a_pc_moves_into_range_and_attacks_after_an_out_of_range_refusal(daphne_server, phone):
    base, name = daphne_server, "Gantry grid"
    gm = phone()
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(name)
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("2")
    url = start_built_encounter(gm)

    gm.locator("#gm-positions > summary").click()
    place(gm, "Luwe", "A1")
    place(gm, "Nivick 1", "B3")
    place(gm, "Nivick 2", "J1")
    gm.get_by_label("Enemy", exact=True).select_option(label="Nivick 2")
    gm.get_by_label("Target", exact=True).select_option(label="Luwe")
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text="Nivick 2")).to_be_visible()
    gm.get_by_label("Enemy", exact=True).select_option(label="Nivick 1")
    gm.get_by_label("Target", exact=True).select_option(label="Furo")
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text="Nivick 1")).to_be_visible()
    gm.get_by_role("button", name="Start Phase 2: players act").click()

    ana = phone()
    join_table(ana, base, "ana", name, url)
    me = ana.locator("section.me")
    me.get_by_role("button", name="Take my turn").click()
    expect(me).to_have_attribute("data-your-turn", "1")
    expect(me).to_contain_text("on A1")
    far = me.locator(".quick-attack form", has_text="Attack Nivick 2")
    expect(far).to_contain_text("9 squares: out of")
    far.get_by_role("button").click()
    refusal = ana.locator(".notice.error-box")
    expect(refusal).to_contain_text("Nivick 2 is 9 squares away: Luwe's")
    # The answer stands beside the tapped form, not at the top of the page.
    assert ana.evaluate("el => !!el.closest('.quick-attack')", refusal.element_handle())
    fits(ana)

    me.get_by_label("Move to").fill("e1")
    me.locator("form.move-to").get_by_role("button", name="Move").click()
    log_has(ana, "Luwe moves 4 squares to E1 (free move).")
    expect(me).to_contain_text("on E1")
    near = me.locator(".quick-attack form", has_text="Attack Nivick 2")
    expect(near).to_contain_text("5 squares")
    expect(near).not_to_contain_text("out of")
    near.get_by_role("button").click()
    log_has(ana, "Luwe rolls")
    expect(ana.locator(".log li", has_text="Luwe rolls").first).to_contain_text("to attack Nivick 2")
    fits(ana)
