"""The Expanse played live: a GM and two phones through two whole rounds over websockets, with a stunt, a jammed
gun cleared by a minor action, an enemy attack absorbed with Fortune, and an unseen sniper.

Served by a real daphne (tests/e2e/live.py). Initiative is rolled by the server, so the order is whatever the
dice say and each turn is played by whoever holds it. The GM allows physical dice, and the two rolls that must
come out a certain way are typed in as a player at a real table would: Rosa's pistol shot "3 3 4" (a hit with
doubles: 4 stunt points) and Marcus's "1 1 6" (a miss with Drama Die 6: the pistol jams). The GM's Thug hits
Rosa with "4 5 6" and damage "6 6". Everything else the server rolls. No phone may show a GM-only fact (the GM
controls, the campaign's GM note, an enemy's numbers, the unseen Protogen Sniper), and every phone fits 360 px.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    keeps_gm_secrets,
    log_has,
    log_in,
    phone_opener,
    pick_model,
    reviews_keep_gm_secrets,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]

ENCOUNTER = "Dock fight at Tycho"
PLAYERS = {"ana": "Marcus Bell", "cleo": "Rosa Okafor"}
SNIPER = "Protogen Sniper"
# What only the GM's screen may hold: its controls, the campaign's GM note, the unseen enemy, enemy numbers.
GM_ONLY = ("GM controls", "Only GMs see this", SNIPER, "npc-stats", "gm-only", "Fortune 0/0", "Fortune 4/4")
PHONE_SHOT = "/tmp/fray-expanse-phone.png"
GM_SHOT = "/tmp/fray-expanse-gm.png"


def check_player(page, who):
    """No GM-only fact, no sideways scroll, no reload since the page opened."""
    keeps_gm_secrets(page, who, GM_ONLY)


def turn_of(gm):
    """(round, name of whoever's turn it is) as the GM's table shows it."""
    heading = gm.locator(".status h2").inner_text()
    found = re.match(r"Round (\d+)", heading)
    name = gm.locator(".status .phase strong").first.inner_text() if gm.locator(".status .phase strong").count() else ""
    return int(found.group(1)) if found else 0, name


def wait_for_next_turn(gm, before):
    """Until the GM's table shows another turn (or round) than `before`."""
    gm.wait_for_function(
        """before => {
          const h = document.querySelector('.status h2').textContent;
          const s = document.querySelector('.status .phase strong');
          return h + '|' + (s ? s.textContent : '') !== before;
        }""",
        arg=before,
    )


def turn_key(gm):
    heading = gm.locator(".status h2").inner_text()
    strong = gm.locator(".status .phase strong")
    return heading + "|" + (strong.first.inner_text() if strong.count() else "")


def attack(page, target, dice="", damage=""):
    """Fill the phone's attack builder (the roll it shows comes before the dice) and roll."""
    builder = page.locator("form.attack-builder")
    more = page.locator(".me details.attack-more")
    if more.evaluate("details => !details.open"):  # folded under the one-tap attack
        more.locator("> summary").click()
    expect(builder).to_be_visible()
    builder.get_by_label("Action", exact=True).select_option("ranged_attack")
    target_select = builder.get_by_label("Target", exact=True)
    value = target_select.locator("option", has_text=target).first.get_attribute("value")
    target_select.select_option(value)
    builder.get_by_label("Weapon: your roll").select_option("pistol")
    builder.get_by_label("Distance to the target (m)").fill("10")
    if dice:
        builder.get_by_label("Physical dice (optional): three faces, the Drama Die last").fill(dice)
    if damage:
        builder.get_by_label("Physical damage dice (optional, used if it hits)").fill(damage)
    builder.get_by_role("button", name="Roll the attack").click()


def test_a_gm_and_two_phones_play_two_rounds_of_the_expanse(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    # --- The GM builds the encounter on a phone: The Expanse, physical dice allowed, the Sniper unseen.
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.wait_for_load_state("load")  # htmx binds the model select once the document has loaded
    pick_model(gm.get_by_label("Combat model"), "The Expanse (AGE)")
    expect(gm.get_by_label("More stunts for this encounter")).to_be_visible()  # the form came back for Expanse
    fits(gm)
    gm.get_by_label("Name", exact=True).fill(ENCOUNTER)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in PLAYERS.values():
        expect(party.get_by_label(name, exact=True)).to_be_checked()
    gm.get_by_role("spinbutton", name="OPA Thug", exact=True).fill("2")
    gm.get_by_role("spinbutton", name=SNIPER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=SNIPER, exact=True).check()
    gm.get_by_label("Players may enter the faces of physical dice").check()
    encounter_url = start_built_encounter(gm)
    expect(gm.get_by_role("heading", level=1)).to_have_text(ENCOUNTER)
    expect(gm.get_by_role("heading", name="GM controls")).to_be_visible()

    phones = {}
    for username, name in PLAYERS.items():
        page = open_phone(username)
        join_table(page, base, username, ENCOUNTER, encounter_url)
        expect(page.locator(".sheet h2")).to_have_text(name)
        check_player(page, username)
        phones[username] = page
    rosa, marcus = phones["cleo"], phones["ana"]

    # --- Initiative: the server rolls; the GM sees totals and Drama Dice (and any tie), players their own.
    gm.get_by_role("button", name="Roll initiative for everyone").click()
    expect(gm.locator(".order .die.drama")).to_have_count(5)
    for page in phones.values():
        expect(page.locator(".order .die.drama")).to_have_count(2)  # the PCs' rolls only
        expect(page.locator(".order li")).to_have_count(4)  # the Sniper is unseen
    gm.get_by_role("button", name="Begin the first turn").click()
    for page in (gm, *phones.values()):
        expect(page.locator(".status h2")).to_have_text("Round 1")

    done = {"stunt": False, "jam": False, "cleared": False, "hit_rosa": False}
    shots = set()
    for _ in range(14):
        round_no, name = turn_of(gm)
        if round_no >= 3:
            break
        before = turn_key(gm)
        if name == PLAYERS["cleo"]:
            expect(rosa.get_by_text("Your turn!")).to_be_visible()
            expect(rosa.locator("#turn-say")).to_have_text("Your turn.")
            if round_no == 1:
                builder = rosa.locator("form.attack-builder")
                expect(builder.get_by_label("Weapon: your roll").locator("option[value=pistol]")).to_have_text(
                    re.compile(r"Pistol: 3d6 \+ 5")
                )  # Accuracy 3 + Pistols 2, shown before rolling
                attack(rosa, "OPA Thug 2", dice="3 3 4", damage="2 2")
                expect(rosa.get_by_role("heading", name="Stunt points to spend: 4")).to_be_visible()
                fits(rosa)
                if "phone" not in shots:
                    rosa.screenshot(path=PHONE_SHOT, full_page=True, caret="initial")
                    shots.add("phone")
                stunt = rosa.locator("form.stunt", has=rosa.get_by_role("button", name="Duck and Weave (1-3 SP)"))
                stunt.get_by_label("Points on Duck and Weave").select_option("2")
                stunt.get_by_role("button", name="Duck and Weave (1-3 SP)").click()
                expect(rosa.get_by_role("heading", name="Stunt points to spend: 2")).to_be_visible()
                expect(rosa.get_by_role("button", name="Duck and Weave (1-3 SP)")).to_have_count(0)  # once a round
                expect(rosa.get_by_role("button", name="Knock Prone (2 SP)")).to_be_visible()  # still affordable
                for page in (gm, *phones.values()):
                    log_has(page, "Rosa Okafor spends 2 stunt points on Duck and Weave")
                done["stunt"] = True
                # The GM answers the damage on the Thug for it: taken out.
                gm.locator(".damage", has_text="OPA Thug 2").get_by_role("button", name="Be taken out").click()
                for page in (gm, *phones.values()):
                    log_has(page, "OPA Thug 2 is taken out")
                rosa.get_by_role("button", name="End my turn").click()
            else:
                rosa.get_by_label(re.compile(r"^Move \(up to")).fill("5")
                rosa.get_by_role("button", name="Move", exact=True).click()
                expect(
                    rosa.get_by_text("One minor action.").or_(rosa.get_by_text("A major or a minor action."))
                ).to_be_visible()
                rosa.get_by_role("button", name="Defend (+2 Defense until your next turn)").click()
            check_player(rosa, "cleo")
        elif name == PLAYERS["ana"]:
            expect(marcus.get_by_text("Your turn!")).to_be_visible()
            if not done["jam"]:
                attack(marcus, "OPA Thug 1", dice="1 1 6")
                expect(marcus.get_by_text("Your pistol is jammed or out of ammunition")).to_be_visible()
                expect(marcus.get_by_role("heading", name=re.compile("Stunt points to spend"))).to_have_count(0)
                for page in (gm, *phones.values()):
                    log_has(page, "the pistol jams or runs dry (Drama Die 6)")
                done["jam"] = True
                marcus.get_by_role("button", name="End my turn").click()
            else:
                expect(marcus.get_by_label("Weapon: your roll").locator("option[value=pistol]")).to_be_disabled()
                marcus.get_by_role("button", name="Clear the jam: Pistol").click()
                expect(marcus.get_by_text("Your pistol is jammed")).to_have_count(0)
                log_has(marcus, "Marcus Bell clears the jam in their pistol")
                done["cleared"] = True
                attack(marcus, "OPA Thug 1")  # the server rolls this one
                expect(marcus.get_by_text("No actions left")).to_be_visible()
                marcus.get_by_role("button", name="End my turn").click()
            check_player(marcus, "ana")
        elif name.startswith("OPA Thug") and round_no == 1 and not done["hit_rosa"]:
            panel = gm.locator(".sheet", has_text=f"Acting: {name}")
            expect(panel).to_be_visible()
            target = panel.get_by_label("Target", exact=True)
            expect(target.locator("option", has_text="Rosa Okafor")).to_have_text(re.compile(r"Defense 1[35]"))
            target.select_option(target.locator("option", has_text="Rosa Okafor").get_attribute("value"))
            panel.get_by_label("Weapon: your roll").select_option("pistol")
            panel.get_by_label("Physical dice (optional): three faces, the Drama Die last").fill("4 5 6")
            panel.get_by_label("Physical damage dice (optional, used if it hits)").fill("6 6")
            panel.get_by_role("button", name="Roll the attack").click()
            # 13 damage, Toughness 4: Rosa's phone asks how much Fortune she spends.
            expect(rosa.locator(".banner.may")).to_have_text("You may act now.")
            expect(rosa.locator("#turn-say")).to_have_text("You may act now.")
            expect(rosa.get_by_text("9 damage to absorb")).to_be_visible()
            fits(rosa)
            rosa.get_by_label(re.compile(r"^Fortune to spend")).fill("9")
            rosa.get_by_role("button", name="Spend Fortune").click()
            for page in (gm, *phones.values()):
                log_has(page, "Rosa Okafor spends 9 Fortune on the damage; none gets through")
            expect(rosa.locator(".banner.may")).to_have_count(0)
            expect(rosa.locator(".sheet .numbers").first).to_contain_text("Fortune 9/18")
            done["hit_rosa"] = True
            if "gm" not in shots:
                gm.screenshot(path=GM_SHOT, full_page=True, caret="initial")
                shots.add("gm")
            gm.get_by_role("button", name="End this turn, start the next").click()
        elif name == SNIPER and round_no == 1:
            gm.locator(".sheet", has_text=f"Acting: {SNIPER}").get_by_role(
                "button", name="Aim (+1 on the next attack)"
            ).click()
            for page in phones.values():
                log_has(page, "Someone unseen aims")
            gm.get_by_role("button", name="End this turn, start the next").click()
        else:
            gm.get_by_role("button", name="End this turn, start the next").click()
        wait_for_next_turn(gm, before)
        for username, page in phones.items():
            check_player(page, username)

    assert turn_of(gm)[0] == 3, "two whole rounds were played"
    assert all(done.values()), done
    for page in phones.values():
        expect(page.locator(".status h2")).to_have_text("Round 3")
        check_player(page, "phone")
    fits(gm)
    assert gm.evaluate("window.__noReload === true"), "the GM's page reloaded"
    reviews_keep_gm_secrets(gm, phones, encounter_url, ENCOUNTER, GM_ONLY)
    assert not errors, f"JavaScript errors: {errors}"
