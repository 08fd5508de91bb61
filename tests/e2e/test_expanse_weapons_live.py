"""The Expanse weapons in hand, live on a phone (issue 19): Marcus's phone says his pistol is in hand and his heavy
melee weapon stowed; one tap readies the heavy weapon (putting the pistol away), the table's log says so, and the
one-tap attack then swings it. On a 360 px phone, with no GM-only fact on it.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import (
    fits,
    join_table,
    keeps_gm_secrets,
    log_has,
    log_in,
    phone_opener,
    pick_model,
    start_built_encounter,
)
from tests.e2e.test_taps_expanse import SNIPER, whose_turn

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

SHOT = "/tmp/fray-expanse-weapons-phone.png"


def test_marcus_readies_his_stowed_weapon_in_one_tap_and_attacks_with_it(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(lambda: phone(viewport={"width": 360, "height": 740}))
    encounter = "Weapons in hand"
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    url = build_with_marcus(gm, encounter)
    marcus = open_phone("ana")
    join_table(marcus, base, "ana", encounter, url)
    gm.get_by_role("button", name="Roll initiative for everyone").click()
    gm.get_by_role("button", name="Begin the first turn").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1")
    for _ in range(5):  # the GM runs the other turns until Marcus's
        now = whose_turn(gm)
        if now.endswith("|Marcus Bell"):
            break
        gm.get_by_role("button", name="End this turn, start the next").click()
        expect(gm.locator(".status")).not_to_have_text(re.compile(re.escape(now.split("|")[1]) + "’s turn"))

    expect(marcus.locator(".banner.turn")).to_have_text("Your turn!")
    facts = marcus.locator(".me .sheet .facts")
    expect(facts).to_contain_text("In hand: Pistol. Stowed: Heavy melee weapon.")
    expect(marcus.locator(".me form.quick-attack button")).to_contain_text("Pistol")
    marcus.get_by_role("button", name="Ready Heavy melee weapon").tap()
    log_has(marcus, "Marcus Bell readies heavy melee weapon, putting away pistol")
    expect(facts).to_contain_text("In hand: Heavy melee weapon. Stowed: Pistol.")
    attack = marcus.locator(".me form.quick-attack button")
    expect(attack).to_have_text(re.compile(r"^Attack OPA Thug [12]: Heavy melee weapon, 3d6 \+ \d+$"))
    fits(marcus)
    marcus.screenshot(path=SHOT, full_page=True, caret="initial")
    attack.tap()
    log_has(marcus, "Marcus Bell makes a Melee Attack with a heavy melee weapon at OPA Thug")
    keeps_gm_secrets(marcus, "ana", (SNIPER,))
    assert not errors, f"JavaScript errors: {errors}"


def build_with_marcus(gm, encounter):
    """test_taps_expanse's fight with Marcus Bell in the party instead of Rosa Okafor."""
    pick_model(gm.get_by_label("Combat model"), "The Expanse (AGE)")
    gm.get_by_label("Name", exact=True).fill(encounter)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Rosa Okafor", exact=True).uncheck()
    gm.get_by_role("spinbutton", name="OPA Thug", exact=True).fill("2")
    gm.get_by_role("spinbutton", name=SNIPER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=SNIPER, exact=True).check()
    return start_built_encounter(gm)
