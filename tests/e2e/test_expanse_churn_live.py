"""The Churn played live (issue 19): the GM adds to the pool past 10 on a phone, the GM's screen prompts for the
effect that came due, and the GM applies it from that prompt: Rosa's next test fails whatever the dice. Her phone
reads the failure but never the Churn, and fits 360 px.

Served by a real daphne (tests/e2e/live.py). The server rolls initiative, so turns pass until Rosa's comes.
"""

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
    start_built_encounter,
)
from tests.e2e.test_expanse_live import attack, turn_of

pytestmark = [pytest.mark.e2e]

ENCOUNTER = "Trouble at the docks"  # no "Churn" in it: players' pages must not hold the word
ROSA = "Rosa Okafor"
GM_SHOT = "/tmp/fray-expanse-churn-gm.png"
PHONE_SHOT = "/tmp/fray-expanse-churn-phone.png"
PROMPT_SHOT = "/tmp/fray-expanse-churn-prompt.png"


def test_the_gm_applies_a_churn_effect_that_came_due_and_the_phone_feels_it(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.wait_for_load_state("load")
    pick_model(gm.get_by_label("Combat model"), "The Expanse (AGE)")
    expect(gm.get_by_label("Use the Churn pool (optional rule)")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(ENCOUNTER)
    gm.get_by_label("Use the Churn pool (optional rule)").check()
    gm.get_by_role("spinbutton", name="OPA Thug", exact=True).fill("1")
    url = start_built_encounter(gm)

    rosa = open_phone("cleo")
    join_table(rosa, base, "cleo", ENCOUNTER, url)
    expect(rosa.locator(".sheet h2")).to_have_text(ROSA)

    gm.get_by_role("button", name="Roll initiative for everyone").click()
    gm.get_by_role("button", name="Begin the first turn").click()
    expect(gm.locator(".status h2")).to_have_text("Round 1")

    # The pool passes 10: the server rolls 1d6 on the Churn Over table and the GM is prompted.
    churn = gm.locator("#gm-churn")
    churn.locator("> summary").click()
    churn.get_by_label("Change").fill("10")
    churn.get_by_label("Why").fill("a long chase")
    churn.get_by_role("button", name="Adjust Churn").click()
    prompt = gm.locator("#gm-churn-due")
    expect(prompt).to_contain_text("effect is due")
    fits(gm)
    gm.screenshot(path=GM_SHOT, full_page=True, caret="initial")
    prompt.screenshot(path=PROMPT_SHOT, caret="initial")
    keeps_gm_secrets(rosa, "cleo", ("Churn", "is due", "GM controls", "gm-only"))

    prompt.get_by_label("Who it strikes").select_option(label=ROSA)
    prompt.get_by_label("What happens (for the log)").fill("her sights are knocked")
    prompt.get_by_role("button", name="Apply the Churn").click()
    expect(gm.locator("#gm-churn-due")).to_have_count(0)
    expect(churn).to_contain_text(f"Next test fails (the Churn): {ROSA}")

    for _ in range(4):  # the server rolled initiative: turns pass until Rosa's
        if turn_of(gm)[1] == ROSA:
            break
        before = gm.locator(".status .phase").inner_text()
        gm.get_by_role("button", name="End this turn, start the next").click()
        expect(gm.locator(".status .phase")).not_to_have_text(before)
    expect(rosa.get_by_text("Your turn!")).to_be_visible()
    attack(rosa, "OPA Thug")
    log_has(rosa, "it fails whatever the dice")
    log_has(gm, "the Churn makes it fail")
    expect(churn).not_to_contain_text("Next test fails")
    keeps_gm_secrets(rosa, "cleo", ("Churn", "is due", "GM controls", "gm-only"))
    rosa.locator(".log").screenshot(path=PHONE_SHOT, caret="initial")
    assert not errors, errors
