"""A reveal reaches three phones live: the GM taps "Reveal" beside an enemy the party cannot see, and every
player's table gains it (named on the enemies list and in the log) without a reload; before it, no phone's page
carries its name.

Served by a real daphne (tests/e2e/live.py): the table's updates travel over a Channels websocket.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    LURKER,
    daphne_server,  # noqa: F401  (fixture)
    join_table,
    keeps_gm_secrets,
    log_in,
    phone_opener,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]

PLAYERS = {"ana": "Luwe", "ben": "Ballallanava", "cleo": "Furo"}


def test_the_gm_reveals_an_unseen_enemy_and_three_phones_gain_it_live(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in PLAYERS.values():
        party.get_by_label(name, exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    gm.get_by_role("spinbutton", name=LURKER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=LURKER, exact=True).check()  # unseen by the party
    url = start_built_encounter(gm)
    name = gm.get_by_role("heading", level=1).inner_text()
    lurker_row = gm.locator(".roster li", has_text=LURKER)
    expect(lurker_row).to_contain_text("unseen by the party")

    phones = {}
    for username in PLAYERS:
        page = open_phone(username)
        join_table(page, base, username, name, url)
        phones[username] = page
    for username, page in phones.items():
        expect(page.locator(".sheet h2")).to_have_text(PLAYERS[username])
        keeps_gm_secrets(page, username, ("SECRET", "Reveal"))

    lurker_row.get_by_role("button", name="Reveal").click()
    expect(gm.locator(".log li").first).to_contain_text(f"{LURKER} is revealed.")
    expect(lurker_row.get_by_role("button", name="Reveal")).to_have_count(0)
    for username, page in phones.items():
        expect(page.locator(".log li").first).to_contain_text(f"{LURKER} is revealed.")
        expect(page.locator(".roster li", has_text=LURKER)).to_have_count(1)
        assert page.evaluate("window.__noReload === true"), f"{username}'s page reloaded"
    assert not errors, f"JavaScript errors: {errors}"
