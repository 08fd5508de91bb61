"""The GM's table on a 1366x900 laptop (issue 17): for a six-combatant fight in each of the four models, the
table's rows and the controls of whoever acts now (or the phase's GM controls) are both on the first screen, and
the log stands beside them rather than below. A long log scrolls in its own column instead of stretching the
page. On a 360 px phone the same GM page stays one column, and a player's page is one column on a laptop too.

Each fight is built in the encounter builder and played to an ordinary turn by the GM; served by a real daphne
(tests/e2e/live.py), so the page checked is the one the live table's swaps have redrawn.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, join_table, log_has, log_in, pick_model, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

LAPTOP = {"width": 1366, "height": 900}
# The laptop is no phone: a mouse, no touch, a desktop browser.
DESKTOP = {
    "viewport": LAPTOP,
    "device_scale_factor": 1,
    "is_mobile": False,
    "has_touch": False,
    "user_agent": (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"
    ),
}

# SW5e fights are between crews: two NPC crew members join Captain Vrask aboard the Red Talon, six in all.
SERVER_SETUP = """
from campaigns.models import Campaign, Character
from ships.models import CrewAssignment, Ship
campaign = Campaign.objects.get(name="The Drift Between Stars")
talon = Ship.objects.get(campaign=campaign, name="Red Talon")
for name, station in (("Talon Gunner", "gunner"), ("Talon Mechanic", "mechanic")):
    npc, _ = Character.objects.get_or_create(campaign=campaign, name=name,
                                             defaults=dict(system="sw5e", kind=Character.Kind.NPC, stats={}))
    CrewAssignment.objects.get_or_create(ship=talon, character=npc, defaults={"station": station})
"""


def new_encounter(gm, base, model=None):
    """The GM opens the encounter builder, on `model` if given (its own fields then come in)."""
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    if model:
        pick_model(gm.get_by_label("Combat model"), model)


def start(gm, name):
    gm.get_by_label("Name", exact=True).fill(name)
    start_built_encounter(gm)


def burn_bryte(gm, base, name="Wide Burn Bryte"):
    """Three PCs against three Nivicks; the enemies declared, Phase 2: the players act."""
    new_encounter(gm, base)
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("3")
    start(gm, name)
    for n, target in ((1, "Luwe"), (2, "Furo"), (3, "Ballallanava")):
        gm.get_by_label("Enemy", exact=True).select_option(label=f"Nivick {n}")
        gm.get_by_label("Target", exact=True).select_option(label=target)
        gm.get_by_role("button", name="Declare", exact=True).click()
        expect(gm.locator(".declarations li", has_text=f"Nivick {n}")).to_be_visible()
    gm.get_by_role("button", name="Start Phase 2: players act").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1 · Phase 2")
    return gm.locator(".roster li"), gm.locator(".gm-controls button").first


def sw5e(gm, base):
    """The Wayward Lantern's three PCs against the Red Talon's three NPCs; initiative rolled, the first ship turn."""
    new_encounter(gm, base, "SW5e starships")
    gm.get_by_label("Wayward Lantern (party ship)").select_option("ready")
    gm.get_by_label("Red Talon (NPC ship)").select_option("ready")
    start(gm, "Wide SW5e")
    for name in ("Tess Varro", "Oru Dax", "Mek-7"):
        gm.locator(".gm-controls .roster li", has_text=name).get_by_role("button", name="Roll for them").click()
        log_has(gm, f"{name} rolls initiative")
    gm.get_by_label("Red Talon's initiative").fill("1")
    gm.get_by_role("button", name="Set", exact=True).click()
    log_has(gm, "The GM sets Red Talon's initiative to 1.")
    gm.get_by_role("button", name="Start combat").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1")
    expect(gm.locator(".ships .crew li")).to_have_count(6)
    return gm.locator(".ships .ship-head, .ships .crew li"), gm.locator(".gm-controls button").first


def hero(gm, base):
    """Kestrel and Bulwark against four Viper Agents (DEX ties rolled off); segment 12: Kestrel's phase, which
    the GM's screen offers to play for her."""
    new_encounter(gm, base, "HERO System")
    gm.get_by_label("Characters tied on DEX").select_option(label="They roll off with a d6 each segment")
    gm.get_by_role("spinbutton", name="Viper Agent", exact=True).fill("4")
    start(gm, "Wide HERO")
    gm.get_by_role("button", name="Begin combat: segment 12 of turn 1").click()
    expect(gm.locator(".queue li")).to_have_count(6)
    expect(gm.locator(".status .phase")).to_contain_text("Kestrel’s phase")
    return gm.locator(".queue li, .speed-chart tbody tr"), gm.locator(".gm-controls .sheet button").first


def expanse(gm, base):
    """Rosa and Marcus against three OPA Thugs and a Protogen Sniper; initiative rolled, the first turn."""
    new_encounter(gm, base, "The Expanse (AGE)")
    gm.get_by_role("spinbutton", name="OPA Thug", exact=True).fill("3")
    gm.get_by_role("spinbutton", name="Protogen Sniper", exact=True).fill("1")
    start(gm, "Wide Expanse")
    gm.get_by_role("button", name="Roll initiative for everyone").click()
    gm.get_by_role("button", name="Begin the first turn").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1")
    expect(gm.locator(".order li")).to_have_count(6)
    return gm.locator(".order li"), gm.locator(".gm-controls .sheet button").first


FIGHTS = {"burn_bryte": burn_bryte, "sw5e": sw5e, "hero": hero, "expanse": expanse}


@pytest.mark.parametrize("model", FIGHTS)
def test_a_six_combatant_fight_is_run_from_the_first_screen_of_a_laptop(daphne_server, phone, model):
    gm = phone(**DESKTOP)
    rows, control = FIGHTS[model](gm, daphne_server)
    gm.evaluate("window.scrollTo(0, 0)")
    bottom = LAPTOP["height"]
    assert rows.count() >= 6
    for i in range(rows.count()):
        box = rows.nth(i).bounding_box()
        assert box and box["y"] + box["height"] <= bottom, f"{model}: table row {i} ends below the screen: {box}"
    box = control.bounding_box()
    assert box and box["y"] + box["height"] <= bottom, f"{model}: {control.inner_text()!r} is below the screen: {box}"
    table, controls, log = (gm.locator(s).bounding_box() for s in (".table .board", ".gm-controls", ".log"))
    assert table["x"] + table["width"] <= controls["x"], f"{model}: the controls are not beside the table"
    assert controls["x"] + controls["width"] <= log["x"], f"{model}: the log is not beside the controls"
    status = gm.locator(".table .status").bounding_box()
    assert abs(log["y"] - status["y"]) < 1, f"{model}: the log does not start level with the table"
    fits(gm)


def test_the_gm_page_stays_one_column_on_a_phone(daphne_server, phone):
    gm = phone()
    burn_bryte(gm, daphne_server, "Phone Burn Bryte")
    fits(gm)
    table, controls, log = (gm.locator(s).bounding_box() for s in (".table .board", ".gm-controls", ".log"))
    assert table["y"] + table["height"] <= log["y"] <= controls["y"], "the GM's phone reads table, log, controls"
    assert abs(table["x"] - controls["x"]) < 1 and abs(log["x"] - controls["x"]) < 1


def test_a_long_log_scrolls_beside_the_table_and_a_player_keeps_one_column(daphne_server, phone):
    gm = phone(**DESKTOP)
    new_encounter(gm, daphne_server)
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("3")
    start(gm, "Long log")
    url = gm.url
    entries = gm.locator(".log li:not(.muted)")
    for _ in range(12):  # the GM declares and takes it back: two more lines in the log each time
        for button in ("Declare", "Undo last action"):
            count = entries.count()
            gm.get_by_role("button", name=button, exact=True).click()
            expect(entries).to_have_count(count + 1)
    gm.locator(".log-earlier > summary").click()
    expect(gm.locator(".log-earlier")).to_have_attribute("open", "")
    log = gm.locator(".log")
    box = log.bounding_box()
    assert box["height"] <= LAPTOP["height"], f"the log stretches to {box['height']} px"
    assert log.evaluate("el => el.scrollHeight > el.clientHeight"), "the long log does not scroll on its own"
    table, status = (gm.locator(s).bounding_box() for s in (".table .board", ".table .status"))
    assert box["x"] >= table["x"] + table["width"], "the long log is not beside the table"
    assert abs(box["y"] - status["y"]) < 1, "the long log does not start level with the table"

    ana = phone(**DESKTOP)
    join_table(ana, daphne_server, "ana", "Long log", url)
    expect(ana.locator(".gm-controls")).to_have_count(0)
    main, board, log = (ana.locator(s).bounding_box() for s in ("main", ".table .board", ".log"))
    assert main["width"] <= 40 * 17, "a player's page is wider than its one column"
    assert log["y"] >= board["y"] + board["height"] and abs(log["x"] - board["x"]) < 1, "a player's log is not below"
