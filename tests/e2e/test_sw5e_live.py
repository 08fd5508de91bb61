"""SW5e starship combat live: the GM and two phones crewing the demo's Wayward Lantern against the Red Talon, an
NPC ship, for two whole rounds over websockets.

Served by a real daphne (tests/e2e/live.py) with the demo campaign. The GM first gives the Red Talon numbers no
player may ever see (hull 777/987, shields 321/654) and a SECRET note; every phone page is checked for them,
for the GM's controls, and for fitting 360 px without reloading. Dice are the server's (initiative, the Lantern's
power core, power dice), so nothing below depends on a face; the GM puts the Red Talon at initiative 1, so the
Lantern always acts first. Damage is the GM's: 40 to the Red Talon and 10 to the Lantern each round.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    DEMO_CAMPAIGN,
    daphne_server,  # noqa: F401  (fixture)
    fits,
    log_in,
    phone_opener,
    pick_model,
    reviews_keep_gm_secrets,
)

pytestmark = [pytest.mark.e2e]

CAMPAIGN = DEMO_CAMPAIGN
ENCOUNTER = "Skirmish off the relay"
PLAYERS = {"ana": "Tess Varro", "ben": "Oru Dax"}
GM_SHOT = "/tmp/fray-sw5e-gm.png"
PHONE_SHOT = "/tmp/fray-sw5e-phone.png"
GM_ONLY = ("GM controls", "SECRET", "/987", "/654", "987/", "654/", "777/", "321/")


def check_player(page, who):
    html = page.content()
    for secret in GM_ONLY:
        assert secret not in html, f"{who}'s page shows {secret!r}"
    talon = page.locator(".ships li.ship", has_text="Red Talon")
    expect(talon).to_contain_text("the GM's to know")
    expect(talon).not_to_contain_text("initiative")
    fits(page)
    assert page.evaluate("window.__noReload === true"), f"{who}'s page reloaded"


def status(page):
    return page.locator(".status h2")


def phase(page):
    return page.locator(".status .phase")


def newest_log(page):
    return page.locator(".log li").first


def everyone(gm, phones):
    return (gm, *phones.values())


def edit_the_red_talon(gm):
    """The GM gives the NPC ship numbers (and a note) that must never reach a phone."""
    gm.get_by_role("link", name="Red Talon").click()
    expect(gm.get_by_text("players never see this page")).to_be_visible()
    gm.get_by_role("link", name="Edit ship").click()
    for label, number in (
        ("Maximum hull points", "987"),
        ("Hull points", "777"),
        ("Maximum shield points", "654"),
        ("Shield points", "321"),
    ):
        gm.get_by_label(label, exact=True).fill(number)
    gm.get_by_label("Notes").fill("SECRET: the captain means to defect.")
    gm.get_by_role("button", name="Save ship").click()
    expect(gm.get_by_text("Red Talon saved.")).to_be_visible()
    expect(gm.locator("dl.stats").last).to_contain_text("777 / 987")
    return gm.url


def build_the_encounter(gm):
    gm.get_by_role("link", name=CAMPAIGN).click()
    gm.get_by_role("link", name="New encounter").click()
    pick_model(gm.get_by_label("Combat model"), "SW5e starships")
    lantern = gm.get_by_label("Wayward Lantern (party ship)")
    expect(lantern).to_be_visible()  # the form came back for SW5e
    gm.get_by_label("Name", exact=True).fill(ENCOUNTER)
    lantern.select_option("ready")
    gm.get_by_label("Red Talon (NPC ship)").select_option("ready")
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Mek-7", exact=True).uncheck()  # two phones on this ship
    for name in PLAYERS.values():
        expect(party.get_by_label(name, exact=True)).to_be_checked()
    gm.get_by_role("button", name="Start the encounter").click()
    expect(gm).to_have_url(re.compile(r"/campaigns/\d+/encounters/\d+/$"))
    expect(status(gm)).to_have_text("Set-up: initiative and crews")


def lantern_turn(gm, phones, round_no):
    tess, oru = phones["ana"], phones["ben"]
    for page in everyone(gm, phones):
        expect(phase(page)).to_contain_text("Wayward Lantern's ship turn")
    # The reactor's dice: the crew places them (the suggestion fits the coupling's room).
    expect(oru.get_by_role("button", name="Store the power dice")).to_be_visible()
    tess.get_by_role("button", name="Store the power dice").click()
    expect(newest_log(gm)).to_contain_text("Tess Varro distributes Wayward Lantern's power dice")
    expect(oru.get_by_role("button", name="Store the power dice")).to_have_count(0)
    if round_no == 1:
        expect(tess.get_by_text("No shield regeneration: The shields are full.")).to_be_visible()
        # Oru proposes going first; Tess at the helm settles it the other way.
        oru.get_by_label("Turn 1", exact=True).select_option(label="Oru Dax")
        oru.get_by_label("Turn 2", exact=True).select_option(label="Tess Varro")
        oru.get_by_role("button", name="Propose this order").click()
        expect(tess.locator(".crew-order")).to_have_text("Crew order, proposed by Oru Dax: Oru Dax, Tess Varro.")
        tess.get_by_label("Turn 1", exact=True).select_option(label="Tess Varro")
        tess.get_by_label("Turn 2", exact=True).select_option(label="Oru Dax")
        tess.get_by_role("button", name="Settle the order").click()
        for page in everyone(gm, phones):
            expect(page.locator(".crew-order")).to_have_text("Crew order, settled by Tess Varro: Tess Varro, Oru Dax.")
        expect(oru.get_by_role("button", name="Propose this order")).to_have_count(0)
        expect(oru.get_by_text("The crew's order has Tess Varro go next.")).to_be_visible()
    else:
        # Last round's hit took 10 shield points: one shield die (d8 × 1) brings back 8.
        tess.get_by_role("button", name="Regenerate shields (spend a shield die)").click()
        expect(newest_log(oru)).to_contain_text("to restore 8 shield points (shields 28/30)")

    # Tess: the action, then the bonus action her feature grants (a helm option).
    tess.get_by_role("button", name="Take my turn").click()
    expect(tess.get_by_text("Your turn!")).to_be_visible()
    expect(oru.get_by_text("Your turn!")).to_have_count(0)
    expect(phase(oru)).to_contain_text("Tess Varro is taking their turn")
    fits(tess)
    tess.get_by_label("Action", exact=True).select_option("fire")
    tess.get_by_label("Weapon (for Fire)").select_option("laser cannons")
    tess.get_by_label("Target (optional)").select_option(label="Red Talon")
    tess.get_by_role("button", name="Act", exact=True).click()
    expect(newest_log(oru)).to_contain_text("Tess Varro fires the laser cannons at Red Talon as an action.")
    expect(tess.locator(".slots")).to_contain_text("Action: used")
    tess.get_by_role("button", name="Evade (bonus action)").click()  # her feature's action, offered on its own
    expect(newest_log(gm)).to_contain_text("Tess Varro takes Evade as a bonus action.")
    if round_no == 2:
        tess.screenshot(path=PHONE_SHOT, full_page=True, caret="initial")
    check_player(tess, "ana")
    tess.get_by_role("button", name="End my turn").click()

    # Oru: the laser cannons have fired this round; the ion cannon has not. Then power dice for the weapons.
    oru.get_by_role("button", name="Take my turn").click()
    expect(oru.get_by_text("Your turn!")).to_be_visible()
    weapon = oru.get_by_label("Weapon (for Fire)")
    expect(weapon.locator("option", has_text="laser cannons")).to_have_count(0)
    expect(oru.get_by_label("Action", exact=True).locator("option", has_text="Evade")).to_have_count(0)
    oru.get_by_label("Action", exact=True).select_option("fire")
    weapon.select_option("ion cannon")
    oru.get_by_label("Target (optional)").select_option(label="Red Talon")
    oru.get_by_role("button", name="Act", exact=True).click()
    expect(newest_log(tess)).to_contain_text("Oru Dax fires the ion cannon at Red Talon as an action.")
    # Oru's own page redraws with the shot (answer or frame) before he opens a fold the redraw would close.
    expect(newest_log(oru)).to_contain_text("Oru Dax fires the ion cannon at Red Talon as an action.")
    expect(oru.locator(".open-actions summary")).to_contain_text("Still open to Wayward Lantern this round")
    spend = oru.locator("details.spend")
    if round_no == 1:
        spend.locator("> summary").click()
    else:  # opened in round 1, it kept Oru's choice across every update since
        expect(spend).to_have_attribute("open", "")
    oru.get_by_label("For", exact=True).select_option("weapons")
    oru.get_by_label("From", exact=True).select_option("central")
    oru.get_by_role("button", name="Spend (the server rolls)").click()
    expect(newest_log(tess)).to_contain_text("Oru Dax spends 1 power die from the central store on weapons (d4 shows")

    # The GM lands the hits: the phones read the amount, never the Red Talon's numbers. The GM's page first shows
    # Oru's spending, so that redrawing it does not wipe the damage form half filled in.
    expect(newest_log(gm)).to_contain_text("Oru Dax spends 1 power die from the central store on weapons")
    gm.get_by_label("Ship hit").select_option(label="Red Talon")
    gm.get_by_label("Damage (shields first, then hull)").fill("40")
    gm.get_by_label("Dealt by").select_option(label="Oru Dax")
    gm.get_by_role("button", name="Apply damage").click()
    expect(newest_log(gm)).to_contain_text("Red Talon takes 40 damage from Oru Dax: 40 to shields and 0 to hull")
    for who, page in phones.items():
        expect(newest_log(page)).to_have_text("Red Talon takes 40 damage from Oru Dax.")
        check_player(page, who)
    oru.get_by_role("button", name="End my turn").click()
    oru.get_by_role("button", name="End the ship's turn").click()


def talon_turn(gm, phones, round_no):
    """The GM runs the NPC ship: its power, its captain's turn, its shot at the Lantern."""
    for page in everyone(gm, phones):
        expect(phase(page)).to_contain_text("Red Talon's ship turn")
    for page in phones.values():
        expect(page.get_by_role("button", name="Take my turn")).to_have_count(0)
        expect(phase(page)).not_to_contain_text("power dice")  # its reactor's output is the GM's
    gm.get_by_role("button", name="Store the power dice").click()
    gm.get_by_label("Crew turn for").select_option(label="Captain Vrask")
    gm.get_by_role("button", name="Start their turn").click()
    expect(gm.get_by_role("heading", name="Captain Vrask is acting")).to_be_visible()
    gm.get_by_label("Action", exact=True).select_option("fire")
    gm.get_by_label("Weapon (for Fire)").select_option("twin blasters")
    gm.get_by_label("Target (optional)").select_option(label="Wayward Lantern")
    gm.get_by_role("button", name="Act", exact=True).click()
    expect(newest_log(gm)).to_contain_text("Captain Vrask fires the twin blasters at Wayward Lantern as an action.")
    gm.get_by_label("Ship hit").select_option(label="Wayward Lantern")
    gm.get_by_label("Damage (shields first, then hull)").fill("10")
    gm.get_by_label("Dealt by").select_option(label="Red Talon")
    gm.get_by_role("button", name="Apply damage").click()
    shields = "shields 20/30" if round_no == 1 else "shields 18/30"
    for page in everyone(gm, phones):
        expect(newest_log(page)).to_contain_text("Wayward Lantern takes 10 damage from Red Talon: 10 to shields")
        expect(newest_log(page)).to_contain_text(shields)
    if round_no == 2:
        gm.screenshot(path=GM_SHOT, full_page=True, caret="initial")
    gm.get_by_role("button", name="End their turn").click()
    gm.get_by_role("button", name="End the ship's turn").click()
    for page in everyone(gm, phones):
        expect(status(page)).to_have_text(f"Round {round_no + 1}")


def test_the_gm_and_two_phones_fly_two_rounds_against_an_npc_ship(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    log_in(gm, base, "gm")
    talon_url = edit_the_red_talon(gm)
    build_the_encounter(gm)
    encounter_url = gm.url
    gm.evaluate("window.__noReload = true")
    expect(gm.locator("#live-status")).to_have_attribute("data-state", "live")
    expect(gm.locator(".ships li.ship", has_text="Red Talon")).to_contain_text("777/987")  # the GM sees it all

    phones = {}
    for username, name in PLAYERS.items():
        page = open_phone(username)
        log_in(page, base, username)
        expect(page.get_by_role("link", name="Red Talon")).to_have_count(0)  # not on their ship list
        page.get_by_role("link", name=ENCOUNTER).click()
        expect(page).to_have_url(encounter_url)
        page.evaluate("window.__noReload = true")
        expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
        expect(page.locator(".sheet h2")).to_have_text(name)
        expect(page.locator(".banner.may")).to_have_text("You may act now.")
        check_player(page, username)
        phones[username] = page

    # Initiative from the phones (the server rolls); the GM sets the Red Talon's.
    for username in PLAYERS:
        phones[username].get_by_role("button", name="Roll initiative").click()
        expect(phones[username].locator(".sheet .where")).to_contain_text("· initiative")
    for name in PLAYERS.values():  # the GM's page shows both rolls before the GM fills in a form it would redraw
        expect(gm.locator(".log li", has_text=f"{name} rolls initiative")).to_have_count(1)
    gm.get_by_label("Red Talon's initiative").fill("1")
    gm.get_by_role("button", name="Set", exact=True).click()
    expect(newest_log(gm)).to_have_text("The GM sets Red Talon's initiative to 1.")
    for page in phones.values():
        expect(newest_log(page)).to_have_text("The GM sets Red Talon's initiative.")
    gm.get_by_role("button", name="Start combat").click()
    for page in everyone(gm, phones):
        expect(status(page)).to_have_text("Round 1")
        ships = page.locator(".ships > li.ship strong:first-child")
        expect(ships).to_have_text(["Wayward Lantern", "Red Talon"])  # the order, on every screen
    for username, page in phones.items():
        check_player(page, username)

    for round_no in (1, 2):
        lantern_turn(gm, phones, round_no)
        talon_turn(gm, phones, round_no)
    for username, page in phones.items():
        check_player(page, username)
    fits(gm)

    # The end writes the ships back; the Red Talon's page is still the GM's alone.
    gm.get_by_role("link", name="End encounter…").click()
    gm.get_by_role("button", name="End the encounter").click()
    expect(gm.get_by_role("heading", name=re.compile("the log"))).to_be_visible()
    gm.goto(encounter_url)  # the table, now ended, as it is for everyone
    for page in everyone(gm, phones):
        expect(status(page)).to_have_text("Encounter over")
    gm.goto(talon_url)
    expect(gm.locator("dl.stats").last).to_contain_text("241 / 654")  # 321 shields, less 40 twice
    response = phones["ana"].request.get(talon_url)
    assert response.status == 404
    reviews_keep_gm_secrets(gm, phones, encounter_url, ENCOUNTER, GM_ONLY)
    assert not errors, f"JavaScript errors: {errors}"
