"""A simple HERO phase on a phone takes one tap: "Attack <enemy>" with the defaults (4d6 against PD) ends the
phase. Played on both phone sizes against a real daphne; off-phase, each phone says who has the floor and what
its player may do meanwhile (abort)."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import join_table, log_has, log_in, pick_model, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture: one daphne for the module

SIZES = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}


@pytest.mark.parametrize("size", SIZES)
def test_a_simple_attack_phase_is_at_most_three_taps(daphne_server, phone, size):
    base, name = daphne_server, f"Rooftop taps {size}"
    gm = phone(viewport=SIZES[size])
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.wait_for_load_state("load")
    pick_model(gm.get_by_label("Combat model"), "HERO System")
    expect(gm.get_by_label("Characters tied on DEX")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(name)
    gm.get_by_role("spinbutton", name="Viper Agent", exact=True).fill("1")
    url = start_built_encounter(gm)

    kestrel, bulwark = phone(viewport=SIZES[size]), phone(viewport=SIZES[size])
    join_table(kestrel, base, "ana", name, url)
    join_table(bulwark, base, "ben", name, url)
    expect(kestrel.locator("section.me .waiting")).to_contain_text("Before combat")

    # Segment 12 of turn 1: Kestrel (DEX 23) first; from her "Your phase!", count her taps until it has ended.
    gm.get_by_role("button", name="Begin combat: segment 12 of turn 1").click()
    me = kestrel.locator("section.me")
    expect(me).to_have_attribute("data-your-turn", "1")
    expect(bulwark.locator("section.me .waiting")).to_contain_text(
        "Turn 1, segment 12: Kestrel’s phase — your next phase: segment 12 of turn 1."
    )
    expect(bulwark.locator("section.me .waiting")).to_contain_text("you may abort to a defence")
    taps = 0
    attack = me.locator(".quick-attack button.primary")
    expect(attack).to_have_text("Attack Viper Agent")
    taps += 1
    attack.click()
    log_has(kestrel, "Kestrel attacks Viper Agent")
    expect(me).to_have_attribute("data-your-turn", "0")
    assert taps <= 3, f"{taps} taps for a simple phase"
    # Next the Agent's phase (or Bulwark's, should the hit have Stunned the Agent): her phone says whose.
    expect(me.locator(".waiting")).to_contain_text("Turn 1, segment 12: ")
