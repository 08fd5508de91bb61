"""Taps per simple Expanse turn on a phone (issue 16): from "Your turn" to "turn ended" with the defaults, at
most 3 taps, on a 360x740 and a 412x915 screen.

The GM brings two OPA Thugs and a Protogen Sniper the party has not seen, rolls initiative and runs the turns
until Rosa's. Her turn is counted: the one-tap attack with her pistol at a Thug (never the unseen Sniper), then
End my turn. Nothing is typed or picked on her phone.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import (
    join_table,
    keeps_gm_secrets,
    log_has,
    log_in,
    phone_opener,
    pick_model,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

SCREENS = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}
SNIPER = "Protogen Sniper"


class Taps:
    """Taps on one phone, counted: the only way the test touches that phone during the turn."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def tap(self, name):
        button = self.page.get_by_role("button", name=name)
        expect(button).to_be_visible()
        button.tap()
        self.count += 1


def build(gm, encounter):
    gm.get_by_role("link", name="New encounter").click()
    pick_model(gm.get_by_label("Combat model"), "The Expanse (AGE)")
    expect(gm.get_by_label("More stunts for this encounter")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(encounter)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Marcus Bell", exact=True).uncheck()
    gm.get_by_role("spinbutton", name="OPA Thug", exact=True).fill("2")
    gm.get_by_role("spinbutton", name=SNIPER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=SNIPER, exact=True).check()
    return start_built_encounter(gm)


def whose_turn(gm):
    """The GM's table: "Round n|name" of whoever acts now."""
    return gm.locator(".status h2").inner_text() + "|" + gm.locator(".status .phase strong").first.inner_text()


@pytest.mark.parametrize("screen", SCREENS, ids=list(SCREENS))
def test_a_simple_attack_turn_takes_at_most_three_taps(daphne_server, phone, screen):
    base, size = daphne_server, SCREENS[screen]
    open_phone, errors = phone_opener(lambda: phone(viewport=size))
    encounter = f"Tap count {screen}"
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    url = build(gm, encounter)
    rosa = open_phone("cleo")
    join_table(rosa, base, "cleo", encounter, url)
    gm.get_by_role("button", name="Roll initiative for everyone").click()
    gm.get_by_role("button", name="Begin the first turn").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1")
    for _ in range(4):  # the GM runs the enemies' turns until Rosa's
        now = whose_turn(gm)
        if now.endswith("|Rosa Okafor"):
            break
        gm.get_by_role("button", name="End this turn, start the next").click()
        expect(gm.locator(".status")).not_to_have_text(re.compile(re.escape(now.split("|")[1]) + "’s turn"))

    # Rosa's turn, counted from the moment her phone says so.
    taps = Taps(rosa)
    expect(rosa.locator(".banner.turn")).to_have_text("Your turn!")
    attack = rosa.locator(".me form.quick-attack button")
    expect(attack).to_have_text(re.compile(r"^Attack OPA Thug [12]: Pistol, 3d6 \+ 5$"))
    taps.tap(re.compile(r"^Attack OPA Thug"))
    log_has(rosa, "Rosa Okafor makes a Ranged Attack with a pistol at OPA Thug")
    taps.tap("End my turn")
    expect(rosa.locator(".banner.turn")).to_have_count(0)
    expect(rosa.locator(".me .waiting")).to_contain_text("is taking their turn")
    assert taps.count <= 3, f"{taps.count} taps for a simple turn"
    keeps_gm_secrets(rosa, "cleo", (SNIPER,))
    assert not errors, f"JavaScript errors: {errors}"
