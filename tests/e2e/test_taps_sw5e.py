"""Taps per simple SW5e crew turn on a phone (issue 16): from "your turn" to "turn ended" with the defaults,
at most 3 taps, on a 360x740 and a 412x915 screen.

The GM pits the demo's Wayward Lantern against the Red Talon, an NPC ship put last in the order.
- Tess at the helm and Oru the gunner: on the Lantern's turn Tess stores the reactor's dice (the ship's chore,
  before any crew turn); then Oru's turn is counted: Take my turn, the one-tap Fire at the Red Talon, End my turn.
- Tess alone aboard: the chore is hers, and it is counted: her phone offers to store the dice as its form sets
  them and take her turn in the same tap, then the one-tap Fire, End my turn.
Nothing is typed or picked on the counted phone: the dice's stores, the weapon and the target are its defaults.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import join_table, log_has, log_in, phone_opener, pick_model, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

SCREENS = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}


class Taps:
    """Taps on one phone, counted: the only way the test touches that phone during the turn."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def tap(self, name):
        button = self.page.get_by_role("button", name=name)
        expect(button).to_be_visible()
        button.tap()
        self.count += 1


def build(gm, encounter, away=("Mek-7",)):
    """The GM's builder: the two ships, every SW5e PC of the demo but those `away`. Returns the table's URL."""
    gm.get_by_role("link", name="New encounter").click()
    pick_model(gm.get_by_label("Combat model"), "SW5e starships")
    lantern = gm.get_by_label("Wayward Lantern (party ship)")
    expect(lantern).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(encounter)
    lantern.select_option("ready")
    gm.get_by_label("Red Talon (NPC ship)").select_option("ready")
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in away:
        party.get_by_label(name, exact=True).uncheck()
    return start_built_encounter(gm)


def tess_alone_against_the_talon(open_phone, base, encounter):
    """The GM builds `encounter`: the Lantern with Tess alone aboard against the Red Talon. Tess joins and rolls
    initiative, the GM puts the Talon last and starts combat. Returns (the GM's page, Tess's phone), Tess's
    phone offering to store the reactor's dice and take her turn."""
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    url = build(gm, encounter, away=("Mek-7", "Oru Dax"))
    tess = open_phone("ana")
    join_table(tess, base, "ana", encounter, url)
    tess.get_by_role("button", name="Roll initiative").click()
    expect(tess.locator(".sheet .where")).to_contain_text("· initiative")
    expect(gm.locator(".log li", has_text="Tess Varro rolls initiative")).to_have_count(1)
    gm.get_by_label("Red Talon's initiative").fill("1")
    gm.get_by_role("button", name="Set", exact=True).click()
    log_has(gm, "The GM sets Red Talon's initiative to 1.")
    gm.get_by_role("button", name="Start combat").click()
    expect(tess.get_by_role("button", name="Store them and take my turn")).to_be_visible()
    return gm, tess


@pytest.mark.parametrize("screen", SCREENS, ids=list(SCREENS))
def test_a_gunners_simple_turn_takes_at_most_three_taps(daphne_server, phone, screen):
    base, size = daphne_server, SCREENS[screen]
    open_phone, errors = phone_opener(lambda: phone(viewport=size))
    encounter = f"Tap count {screen}"
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    url = build(gm, encounter)
    tess, oru = open_phone("ana"), open_phone("ben")
    for username, page in (("ana", tess), ("ben", oru)):
        join_table(page, base, username, encounter, url)
        page.get_by_role("button", name="Roll initiative").click()
        expect(page.locator(".sheet .where")).to_contain_text("· initiative")
    for name in ("Tess Varro", "Oru Dax"):  # the GM's page shows both rolls before its form is filled in
        expect(gm.locator(".log li", has_text=f"{name} rolls initiative")).to_have_count(1)
    gm.get_by_label("Red Talon's initiative").fill("1")
    gm.get_by_role("button", name="Set", exact=True).click()
    log_has(gm, "The GM sets Red Talon's initiative to 1.")
    gm.get_by_role("button", name="Start combat").click()
    tess.get_by_role("button", name="Store the power dice").click()
    log_has(oru, "Tess Varro distributes Wayward Lantern's power dice")

    # Oru's turn, counted from the moment his phone offers it.
    taps = Taps(oru)
    expect(oru.locator(".banner.may")).to_have_text("You may act now.")
    taps.tap("Take my turn")
    expect(oru.locator(".banner.turn")).to_have_text("Your turn!")
    taps.tap("Fire the laser cannons at Red Talon")
    log_has(oru, "Oru Dax fires the laser cannons at Red Talon as an action.")
    taps.tap("End my turn")
    log_has(oru, "Oru Dax ends their turn.")
    expect(oru.locator(".banner")).to_have_count(0)
    expect(oru.locator(".me .waiting")).to_have_text(re.compile(r"^You have had your turn"))
    assert taps.count <= 3, f"{taps.count} taps for a simple turn"
    assert not errors, f"JavaScript errors: {errors}"


@pytest.mark.parametrize("screen", SCREENS, ids=list(SCREENS))
def test_a_lone_crew_members_simple_turn_stores_the_dice_within_the_three_taps(daphne_server, phone, screen):
    base, size = daphne_server, SCREENS[screen]
    open_phone, errors = phone_opener(lambda: phone(viewport=size))
    gm, tess = tess_alone_against_the_talon(open_phone, base, f"Lone tap count {screen}")

    # The Lantern's turn, counted from the moment Tess's phone offers it: the reactor's dice wait for her.
    taps = Taps(tess)
    expect(tess.locator(".banner.may")).to_have_text("You may act now.")
    taps.tap("Store them and take my turn")
    expect(tess.locator(".banner.turn")).to_have_text("Your turn!")
    log_has(tess, "Tess Varro distributes Wayward Lantern's power dice")
    taps.tap("Fire the laser cannons at Red Talon")
    log_has(tess, "Tess Varro fires the laser cannons at Red Talon as an action.")
    taps.tap("End my turn")
    log_has(tess, "Tess Varro ends their turn.")
    expect(tess.locator(".banner")).to_have_count(0)
    expect(tess.locator(".me .waiting")).to_have_text("You have had your turn; Wayward Lantern's turn can end.")
    assert taps.count <= 3, f"{taps.count} taps for a simple turn"
    assert not errors, f"JavaScript errors: {errors}"
