"""The GM's quick edits on the table: the GM taps a Health Level "-1" on Luwe's row, and the player's phone shows
Luwe's new Health Levels live, without a reload; the fold the controls sit in ("Edit") stays open across the
update, and the GM's Undo puts them back on both screens. The phone's page
never carries the controls.

Served by a real daphne (tests/e2e/live.py): the table's updates travel over a Channels websocket.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    keeps_gm_secrets,
    log_in,
    phone_opener,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]

CONTROLS = ("gm-inline", "inline-edit", "Health Levels -1 for")


def health_of(row) -> tuple[int, int]:
    """(Health Levels, maximum) as a roster row shows them: "2/3 HL"."""
    found = re.search(r"(\d+)/(\d+) HL", row.inner_text())
    assert found, row.inner_text()
    return int(found.group(1)), int(found.group(2))


def test_the_gm_takes_a_health_level_from_a_row_the_phone_sees_it_live_and_undo_gives_it_back(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    url = start_built_encounter(gm)
    name = gm.get_by_role("heading", level=1).inner_text()

    ana = open_phone("ana")
    join_table(ana, base, "ana", name, url)
    expect(ana.locator(".sheet h2")).to_have_text("Luwe")
    gm_row = gm.locator(".table .roster li", has_text="Luwe")
    phone_row = ana.locator(".table .roster li", has_text="Luwe")
    full, most = health_of(phone_row)
    assert full == most >= 2, "Luwe starts unhurt, with two Health Levels to take"
    keeps_gm_secrets(ana, "ana", CONTROLS)

    expect(gm.get_by_role("button", name="Health Levels -1 for Luwe")).to_be_hidden()  # folded under "Edit"
    gm_row.get_by_text("Edit").click()
    expect(gm.get_by_role("button", name="Set the condition for Luwe")).to_be_visible()  # conditions: no third click
    gm.get_by_role("button", name="Health Levels -1 for Luwe").click()
    expect(phone_row).to_contain_text(f"{full - 1}/{most} HL")
    expect(gm_row).to_contain_text(f"{full - 1}/{most} HL")
    # The live update drew the row afresh and the fold stayed open: the next step is one tap.
    expect(gm.get_by_role("button", name="Health Levels +1 for Luwe")).to_be_visible()
    keeps_gm_secrets(ana, "ana", CONTROLS)
    gm.get_by_role("button", name="Health Levels -1 for Luwe").click()
    expect(phone_row).to_contain_text(f"{full - 2}/{most} HL")
    gm.get_by_role("button", name="Undo last action").click()
    expect(phone_row).to_contain_text(f"{full - 1}/{most} HL")

    gm.get_by_role("button", name="Undo last action").click()
    expect(phone_row).to_contain_text(f"{full}/{most} HL")
    expect(gm_row).to_contain_text(f"{full}/{most} HL")
    expect(gm.get_by_role("button", name="Health Levels +1 for Luwe")).to_have_count(0)  # full again
    keeps_gm_secrets(ana, "ana", CONTROLS)
    assert gm.evaluate("window.__noReload === true"), "the GM's page reloaded"
    fits(gm)
    assert not errors, f"JavaScript errors: {errors}"
