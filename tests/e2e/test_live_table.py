"""The live table: one browser, a GM and three phones playing two whole Burn Bryte rounds over websockets,
one phone dropping off the network mid-game and catching up on its own when it comes back.

Served by a real daphne (tests/e2e/live.py), since the table's updates travel over a Channels websocket.
Dice are random, so each roll is handled either way: a success ends with "End my turn", doubles with the
GM's "+1 Collapse point" (and one roll enters physical dice showing doubles, so that path runs every time).
The GM also brings in an enemy the party cannot see, named and acting "SECRET": no player page may show it,
nor "Collapse" or "GM controls", and every phone page must fit 360 px without reloading.
"""

import re
import time

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    LURKER,
    daphne_server,  # noqa: F401  (fixture)
    fits,
    keeps_gm_secrets,
    log_in,
    phone_opener,
    reviews_keep_gm_secrets,
)

pytestmark = [pytest.mark.e2e]

PLAYERS = {"ana": "Luwe", "ben": "Ballallanava", "cleo": "Furo"}
GM_SHOT = "/tmp/fray-live-gm.png"
PHONE_SHOT = "/tmp/fray-live-phone.png"
GM_ONLY = ("GM controls", "Collapse", "SECRET")
RECONNECT_S = 15
# Make the page believe the phone was locked (true) or woken (false): what a phone's browser reports.
SLEEP = """hidden => {
  Object.defineProperty(document, "hidden", {configurable: true, get: () => hidden});
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => hidden ? "hidden" : "visible"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def check_player(page, name):
    """A player's page never shows GM-only things, fits the phone, and has not reloaded since it opened."""
    keeps_gm_secrets(page, name, GM_ONLY)


def live(page):
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")


def status(page):
    return page.locator(".status h2")


def phase(page):
    return page.locator(".status .phase")


def declare(gm, enemy, target, text):
    """The GM declares one enemy action and waits for the table to show it (the form's key changes with it)."""
    gm.get_by_label("Enemy", exact=True).select_option(label=enemy)
    gm.get_by_label("Target", exact=True).select_option(label=target)
    gm.get_by_label("Action", exact=True).fill(text)
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text=enemy)).to_contain_text(text)


def take_turn(gm, phones, who, shot=None, dice=""):
    """`who` claims the turn, rolls a skill once and the turn ends: by "End my turn", or by the GM on doubles.
    The server rolls, unless `dice` gives the faces of physical dice."""
    name = PLAYERS[who]
    me = phones[who]
    claim = me.get_by_role("button", name="Take my turn")
    expect(claim).to_be_visible()
    claim.click()
    expect(me.get_by_text("Your turn!")).to_be_visible()
    expect(me.get_by_role("button", name="Roll", exact=True)).to_be_visible()
    fits(me)
    if shot:
        me.screenshot(path=shot, full_page=True, caret="initial")
    for other, page in phones.items():
        if other != who:
            expect(phase(page)).to_contain_text(f"{name} is taking their turn")
            expect(page.get_by_role("button", name="Take my turn")).to_have_count(0)
    expect(phase(gm)).to_contain_text(f"{name} is taking their turn")

    me.get_by_label("What for?").select_option("other")
    me.get_by_label("Note (optional)").fill("a flourish")
    me.get_by_label("Physical dice", exact=False).fill(dice)
    rolls = me.locator(".log li", has_text=f"{name} rolls")
    before = rolls.count()
    me.get_by_role("button", name="Roll", exact=True).click()
    expect(rolls).to_have_count(before + 1)
    check_player(me, who)
    if "fails on doubles" in rolls.first.inner_text():  # the log is newest first
        expect(me.get_by_text("Doubles: the roll failed")).to_be_visible()
        expect(me.get_by_role("button", name="End my turn")).to_have_count(0)
        gm.get_by_role("button", name="+1 Collapse point").click()
        outcome = "failed roll"
    else:
        me.get_by_role("button", name="End my turn").click()
        outcome = "ends their turn"
    for page in (gm, *phones.values()):
        expect(page.locator(".log li").first).to_contain_text(outcome)
    expect(me.get_by_text("Your turn!")).to_have_count(0)
    return outcome


def phase_1(gm, phones, round_no):
    for page in (gm, *phones.values()):
        expect(status(page)).to_have_text(f"Round {round_no} · Phase 1")
    declare(gm, "Nivick 1", "Luwe", f"shoots from the gantry (round {round_no})")
    declare(gm, "Nivick 2", "Ballallanava", f"charges (round {round_no})")
    declare(gm, LURKER, "Furo", f"SECRET ambush (round {round_no})")
    gm.get_by_role("button", name="Start Phase 2: players act").click()
    expect(status(gm)).to_have_text(f"Round {round_no} · Phase 2")


def phase_3(gm, phones, round_no, shot=None):
    gm.get_by_role("button", name="Start Phase 3: enemies resolve").click()
    for page in (gm, *phones.values()):
        expect(status(page)).to_have_text(f"Round {round_no} · Phase 3")
        expect(phase(page)).to_contain_text("Enemies move and resolve")
    if shot:
        gm.screenshot(path=shot, full_page=True, caret="initial")
    waiting = gm.locator(".gm-controls li.card")
    expect(waiting).to_have_count(3)
    for left, button in enumerate(("Resolve (hit)", "Out of range", "Resolve (hit)"), start=1):
        waiting.first.get_by_role("button", name=button).click()
        expect(waiting).to_have_count(3 - left)
    for page in phones.values():  # the unseen enemy's hit is not on the players' table
        expect(page.locator(".declarations .badge", has_text="hit")).to_have_count(1)
        expect(page.locator(".declarations .badge", has_text="missed")).to_have_count(1)
    gm.get_by_role("button", name="Next round").click()
    for page in (gm, *phones.values()):
        expect(status(page)).to_have_text(f"Round {round_no + 1} · Phase 1")
        expect(phase(page)).to_contain_text("Enemies declare")


def test_a_gm_and_three_phones_play_two_rounds_with_one_phone_dropping_out(daphne_server, phone):
    base = daphne_server
    started = time.monotonic()
    open_phone, errors = phone_opener(phone)

    # --- The GM builds the encounter on their phone.
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in PLAYERS.values():
        party.get_by_label(name, exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("2")
    gm.get_by_role("spinbutton", name=LURKER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=LURKER, exact=True).check()  # unseen by the party
    gm.get_by_label("Players may enter the faces of physical dice").check()
    gm.get_by_label("An unseen combatant is revealed when it attacks").uncheck()  # the lurker stays unseen
    gm.get_by_role("button", name="Start the encounter").click()
    expect(gm).to_have_url(re.compile(r"/campaigns/\d+/encounters/\d+/$"))
    encounter_url = gm.url
    encounter_name = gm.get_by_role("heading", level=1).inner_text()
    gm.evaluate("window.__noReload = true")
    live(gm)
    expect(gm.get_by_role("heading", name="GM controls")).to_be_visible()

    # --- An action too big to read (3 MiB in a field, past the form's own limit) is refused with a sentence on
    # the notice line, and nothing is declared.
    gm.get_by_label("Action", exact=True).evaluate("(field, n) => { field.value = 'x'.repeat(n); }", 3 * 2**20)
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".notice")).to_contain_text("That request could not be read. It was more than Fray takes")
    expect(gm.locator(".declarations li")).to_have_count(0)

    # --- Three players open it from the campaign page on their own phones.
    phones = {}
    for username in PLAYERS:
        page = open_phone(username)
        log_in(page, base, username)
        page.get_by_role("link", name=encounter_name).click()
        expect(page).to_have_url(encounter_url)
        page.evaluate("window.__noReload = true")
        live(page)
        phones[username] = page
    for username, page in phones.items():
        expect(page.locator(".sheet h2")).to_have_text(PLAYERS[username])
        check_player(page, username)

    # --- Round 1.
    phase_1(gm, phones, 1)
    for username, page in phones.items():
        expect(status(page)).to_have_text("Round 1 · Phase 2")
        expect(phase(page)).to_contain_text("Players act")
        expect(page.get_by_role("button", name="Take my turn")).to_be_visible()
        expect(page.locator(".banner.may")).to_have_text("You may act now.")
        check_player(page, username)
    take_turn(gm, phones, "ana")
    take_turn(gm, phones, "ben")
    take_turn(gm, phones, "cleo", dice="1 1")  # doubles on purpose: the GM's failure prompt, every run
    for username, page in phones.items():
        check_player(page, username)
    phase_3(gm, phones, 1)

    # --- Round 2: Cleo's phone goes to sleep and drops off the network while the table moves on.
    # Chromium's offline emulation alone keeps an open websocket open (frames just wait), so the page is
    # also told it was hidden: hx-ws then closes the socket (pauseOnBackground), as a locked phone does.
    cleo = phones["cleo"]
    cleo.context.set_offline(True)
    cleo.evaluate(SLEEP, True)
    expect(cleo.locator("#live-status")).to_have_attribute("data-state", "offline")
    awake = {k: v for k, v in phones.items() if k != "cleo"}
    phase_1(gm, awake, 2)
    take_turn(gm, awake, "ana")
    take_turn(gm, awake, "ben")
    expect(status(cleo)).to_have_text("Round 2 · Phase 1")  # asleep: nothing arrived
    expect(cleo.get_by_role("button", name="Take my turn")).to_have_count(0)

    # She wakes the phone before the network is back: hx-ws tries at once, fails, and backs off (500 ms, 1 s,
    # 2 s ...); when the network returns, the next attempt connects and the server sends the whole table.
    attempts = []
    cleo.on("websocket", lambda ws: attempts.append(time.monotonic()))
    cleo.evaluate(SLEEP, False)
    cleo.wait_for_timeout(1500)
    assert len(attempts) >= 2, "hx-ws did not retry while the network was down"
    back = time.monotonic()
    cleo.context.set_offline(False)
    expect(cleo.locator("#live-status")).to_have_attribute("data-state", "live", timeout=RECONNECT_S * 1000)
    expect(status(cleo)).to_have_text("Round 2 · Phase 2", timeout=RECONNECT_S * 1000)
    caught_up = time.monotonic() - back
    expect(phase(cleo)).to_contain_text("Players act")
    expect(cleo.locator(".roster li", has_text="Luwe")).to_contain_text("done")
    check_player(cleo, "cleo")
    take_turn(gm, phones, "cleo", shot=PHONE_SHOT)

    # --- Round 2 ends; round 3 begins on every phone.
    phase_3(gm, phones, 2, shot=GM_SHOT)
    for username, page in phones.items():
        check_player(page, username)
    assert gm.evaluate("window.__noReload === true"), "the GM's page reloaded"

    # --- After the fight: the log with its charts, and the campaign's archive, on every phone.
    reviews_keep_gm_secrets(gm, phones, encounter_url, encounter_name, GM_ONLY)
    assert not errors, f"JavaScript errors: {errors}"
    print(
        f"\nlive table: cleo caught up {caught_up:.1f}s after coming back; whole run {time.monotonic() - started:.1f}s"
    )
