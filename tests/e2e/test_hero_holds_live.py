"""Issue 19 on a 360 px phone against a real daphne: Kestrel moves half her RUN, holds the rest of her phase until
the Viper Agent attacks, and when it does her phone says "Act now"; she acts, makes a Presence attack (it takes no
time) and ends the phase. Bulwark's phone says the table waits for her held action meanwhile."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, join_table, log_has, log_in, pick_model, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture: one daphne for the module

PHONE = {"width": 360, "height": 740}
SHOT = "/tmp/hero-act-now-360.png"
SECRETS = ("npc-stats", "GM controls", "STUN 20/20")


def test_a_held_action_offered_on_a_360px_phone(daphne_server, phone):
    base, name = daphne_server, "Rooftop holds"
    gm = phone(viewport={"width": 1280, "height": 900})
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.wait_for_load_state("load")
    pick_model(gm.get_by_label("Combat model"), "HERO System")
    gm.get_by_label("Name", exact=True).fill(name)
    gm.get_by_role("spinbutton", name="Viper Agent", exact=True).fill("1")
    url = start_built_encounter(gm)
    kestrel, bulwark = phone(viewport=PHONE), phone(viewport=PHONE)
    join_table(kestrel, base, "ana", name, url)
    join_table(bulwark, base, "ben", name, url)

    gm.get_by_role("button", name="Begin combat: segment 12 of turn 1").click()
    me = kestrel.locator("section.me")
    expect(me).to_have_attribute("data-your-turn", "1")
    expect(me).to_contain_text("up to 6 m is a half move (an attack can follow)")
    me.get_by_label("Metres").fill("4")
    me.get_by_role("button", name="Move", exact=True).click()
    log_has(kestrel, "Kestrel moves 4 m: a half move")
    expect(me.get_by_role("group", name="Hold the half phase left")).to_be_visible()
    me.get_by_label("Until").select_option("trigger")
    me.get_by_label("Something happens: what").select_option("attacks")
    me.get_by_label("Who").select_option(label="Viper Agent")
    me.get_by_role("button", name="Hold", exact=True).click()
    log_has(bulwark, "Kestrel holds the action (half a phase) until Viper Agent attacks.")

    # The Agent's phase (the GM's): it attacks Bulwark, and Kestrel's moment has come.
    gm.locator("section.gm-controls .quick-attack").get_by_role("button", name="Attack Bulwark").click()
    log_has(kestrel, "Viper Agent attacks Bulwark")
    expect(kestrel.locator(".banner")).to_have_text("Act now? The held action's moment has come: Viper Agent attacks.")
    expect(bulwark.locator(".status")).to_contain_text("Waiting for Kestrel: a held action’s moment has come.")
    expect(bulwark.locator("section.me .waiting")).to_contain_text("Turn 1, segment 12: waiting for Kestrel’s held")
    expect(me.locator(".waiting")).to_contain_text("Turn 1, segment 12: waiting for your held action")
    fits(kestrel)
    kestrel.screenshot(path=SHOT, caret="initial")
    live.keeps_gm_secrets(bulwark, "ben", SECRETS)

    me.get_by_role("button", name="Act now").click()
    expect(me.get_by_text("Your held action:")).to_be_visible()
    me.get_by_role("button", name="Presence attack: 2d6").click()
    log_has(bulwark, "Kestrel makes a Presence attack on Viper Agent")
    me.get_by_role("button", name="End my phase").click()
    log_has(bulwark, "Kestrel ends the phase.")
    expect(bulwark.locator("section.me")).to_have_attribute("data-your-turn", "1")
    fits(bulwark)
    live.keeps_gm_secrets(kestrel, "ana", SECRETS)
