"""A simple Burn Bryte turn on a phone takes at most 3 taps: "Take my turn", "Attack <enemy>" (the likelier of
Ranged and Melee at the enemy aiming at this PC), "End my turn". Played on both phone sizes against a real daphne;
the server rolls, so a roll that comes up doubles ends the turn by the GM's choice instead (2 taps then).
While it is not her turn, the phone says what the table waits for."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import join_table, log_has, log_in, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture: one daphne for the module

SIZES = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}


@pytest.mark.parametrize("size", SIZES)
def test_a_simple_attack_turn_is_at_most_three_taps(daphne_server, phone, size):
    base, name = daphne_server, f"Gantry taps {size}"
    gm = phone(viewport=SIZES[size])
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(name)
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("2")
    url = start_built_encounter(gm)

    ana = phone(viewport=SIZES[size])
    join_table(ana, base, "ana", name, url)
    me = ana.locator("section.me")
    expect(me.locator(".waiting")).to_contain_text("Phase 1: the GM declares what each enemy will do")

    gm.get_by_label("Enemy", exact=True).select_option(label="Nivick 2")
    gm.get_by_label("Target", exact=True).select_option(label="Luwe")
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text="Nivick 2")).to_be_visible()
    gm.get_by_label("Enemy", exact=True).select_option(label="Nivick 1")
    gm.get_by_label("Target", exact=True).select_option(label="Furo")
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text="Nivick 1")).to_be_visible()
    gm.get_by_role("button", name="Start Phase 2: players act").click()

    # Her turn can start: from here, count her taps until the log says it ended.
    expect(me).to_have_attribute("data-may-act", "1")
    expect(me.locator(".waiting")).to_contain_text("you can claim the next turn")
    taps = 0

    def tap(button):
        nonlocal taps
        taps += 1
        button.click()

    tap(me.get_by_role("button", name="Take my turn"))
    expect(me).to_have_attribute("data-your-turn", "1")
    attack = me.locator(".quick-attack button.primary")
    expect(attack).to_have_text("Attack Nivick 2")  # the one shooting at her
    tap(attack)
    rolled = ana.locator(".log li", has_text="Luwe rolls Ranged").first
    expect(rolled).to_be_visible()
    if "fails on doubles" in rolled.inner_text():
        gm.get_by_role("button", name="+1 Collapse point").click()  # the GM's choice ends it, not a tap of hers
        log_has(ana, "failed roll")
    else:
        expect(rolled).to_contain_text("Nivick 2")
        tap(me.get_by_role("button", name="End my turn"))
        log_has(ana, "ends their turn")
    expect(me).to_have_attribute("data-your-turn", "0")
    assert taps <= 3, f"{taps} taps for a simple turn"
    expect(me.locator(".waiting")).to_contain_text("Luwe has had a turn this round")
