"""The table's dice roller in a browser (issue 19, "A dice roller for the table (all models)"): a phone rolls 2d6
for everyone and the GM and another phone read it live; a roll "only me" is read by nobody else, and the GM's
secret roll by no phone. Every phone page fits 360 px. Dice are the server's, so the test reads the log's words,
not the faces.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    log_has,
    log_in,
    phone_opener,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]

SHOT = "/tmp/fray-dice-phone.png"


def roll(page, dice, show):
    fold = page.locator("details.dice-roller")
    if fold.get_attribute("open") is None:
        fold.locator("summary").click()
    fold.get_by_label("Dice", exact=True).fill(dice)
    fold.get_by_label(show).check()
    fold.get_by_role("button", name="Roll the dice").click()


def test_a_phone_rolls_for_everyone_for_itself_and_the_gm_in_secret(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in ("Luwe", "Furo"):
        party.get_by_label(name, exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    url = start_built_encounter(gm)
    name = gm.get_by_role("heading", level=1).inner_text()
    ana, cleo = open_phone("ana"), open_phone("cleo")
    join_table(ana, base, "ana", name, url)
    join_table(cleo, base, "cleo", name, url)

    # Nobody's turn has begun, and the roller is there for both phones.
    roll(ana, "2d6", "Everyone")
    said = re.compile(r"Luwe rolls 2d6: 2d6 \(\d, \d\) = \d+")
    for page in (gm, ana, cleo):
        log_has(page, "Luwe rolls 2d6: 2d6 (")
        expect(page.locator(".log li").first).to_have_text(said)
    fits(ana)
    ana.screenshot(path=SHOT, full_page=True, caret="initial")

    roll(ana, "1d20+3", "Only me")
    expect(ana.locator(".own-rolls li").first).to_contain_text("You rolled for yourself: 1d20+3: 1d20 (")
    log_has(gm, "Luwe rolled dice for their own eyes only.")
    roll(gm, "3d6", "Secret (GM only)")
    log_has(gm, "The GM rolls in secret: 3d6: 3d6 (")
    # Cleo's phone took another roll of hers after both, so its page is up to date: neither hidden roll is on it.
    roll(cleo, "d8", "Everyone")
    for page in (gm, ana, cleo):
        log_has(page, "Furo rolls 1d8: 1d8 (")
    for hidden in ("1d20+3", "own eyes", "in secret", "You rolled"):
        assert hidden not in cleo.content()
    assert "in secret" not in ana.content() and "own eyes" not in ana.content()
    fits(cleo)
    assert not errors, errors
