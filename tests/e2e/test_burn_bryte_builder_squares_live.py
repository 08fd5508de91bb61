"""Burn Bryte starting squares from the builder, on a 360 px phone against a real daphne (issue 18): a bad square
is answered on its field with the typed text kept; fixed, the fight starts with Luwe and the Nivicks on the grid and
Luwe's phone says where she stands."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, join_table, log_in, start_built_encounter

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture: one daphne for the module


def test_the_gm_sets_starting_squares_in_the_builder(daphne_server, phone):
    base, name = daphne_server, "Gantry squares"
    gm = phone(viewport={"width": 360, "height": 740})
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(name)
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("2")
    gm.get_by_label("Starting square: Luwe").fill("C0")
    gm.get_by_label("Starting square: Nivick").fill("H1, H2")
    gm.get_by_role("button", name="Start the encounter").click()
    expect(gm.locator(".error", has_text="a row number 1–99, e.g. C5.")).to_be_visible()
    expect(gm.get_by_label("Starting square: Luwe")).to_have_value("C0")
    expect(gm.get_by_label("Starting square: Nivick")).to_have_value("H1, H2")
    expect(gm.get_by_role("spinbutton", name="Nivick", exact=True)).to_have_value("2")
    fits(gm)
    gm.screenshot(path="/tmp/bb-builder-squares.png", full_page=True)

    gm.get_by_label("Starting square: Luwe").fill("c5")
    url = start_built_encounter(gm)
    expect(gm.locator("body")).to_contain_text("Nivick 2")

    ana = phone(viewport={"width": 360, "height": 740})
    join_table(ana, base, "ana", name, url)
    expect(ana.locator(".table")).to_contain_text("Luwe C5")
    expect(ana.locator(".table")).to_contain_text("Nivick 1 H1")
    fits(ana)
