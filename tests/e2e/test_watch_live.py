"""A spectator's phone (issue 20): "A spectator link for a live encounter: read-only, player audience, updates live
like a phone; the GM can revoke it. Spectators never see controls or GM-only facts."

The GM makes a watch link on the running encounter's log page; a phone at 360 px with no account opens it and
watches the table live (the GM's quick edit reaches it without a reload, and never an unseen enemy or a control);
the GM revokes the link and the phone says at once that it is closed.

Served by a real daphne (tests/e2e/live.py): the table's updates travel over a Channels websocket.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    LURKER,
    daphne_server,  # noqa: F401  (fixture)
    keeps_gm_secrets,
    log_in,
    phone_opener,
    start_built_encounter,
    watch_live,
)

pytestmark = [pytest.mark.e2e]
SECRETS = ("SECRET", "GM controls", "Reveal", "gm-inline", "Health Levels -1 for")  # an unseen enemy, GM controls


def slowly(route):
    """The script arrives late, as on a phone's first visit over a slow link."""
    import time

    time.sleep(0.5)
    route.continue_()


def test_a_spectator_phone_watches_the_gm_live_until_the_gm_revokes_the_link(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    gm.get_by_role("spinbutton", name=LURKER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=LURKER, exact=True).check()  # unseen by the party
    table_url = start_built_encounter(gm)

    gm.get_by_role("link", name="log and charts").click()
    gm.get_by_role("button", name="Make a watch link").click()
    expect(gm.get_by_text("A watch link is ready")).to_be_visible()
    link = gm.locator("#watch-h ~ div .watch-list input.copy").first.input_value()
    assert link.startswith(base + "/watch/")

    spectator = open_phone("spectator")  # no login: a friend without an account, their phone on a slow link
    spectator.route("**/hx-ws*.js", slowly)  # htmx starts before hx-ws arrives (connection.js then catches up)
    spectator.goto(link)
    watch_live(spectator)
    luwe = spectator.locator(".roster li", has_text="Luwe").first
    expect(luwe).to_contain_text("3/3 HL")
    keeps_gm_secrets(spectator, "spectator", SECRETS)
    assert spectator.locator("#live button, #live form").count() == 0  # nothing to press

    gm.goto(table_url)
    watch_live(gm)
    gm.locator(".table .roster li", has_text="Luwe").get_by_text("Edit").click()  # the GM's quick edits' fold
    gm.get_by_role("button", name="Health Levels -1 for Luwe").click()
    expect(luwe).to_contain_text("2/3 HL")  # live, without a reload
    keeps_gm_secrets(spectator, "spectator", SECRETS)
    spectator.screenshot(path="/tmp/watch-phone.png", full_page=True)

    gm.get_by_role("link", name="log and charts").click()
    gm.locator("#watch-h ~ div .watch-list").get_by_role("button", name="Revoke").click()
    expect(gm.get_by_text("That watch link is closed")).to_be_visible()
    status = spectator.locator("#live-status")
    expect(status).to_have_attribute("data-state", "closed")
    expect(status).to_have_text("closed: the GM revoked this watch link, or the fight is over")
    spectator.screenshot(path="/tmp/watch-phone-closed.png", full_page=True)
    assert spectator.goto(link).status == 404
    assert not errors, f"JavaScript errors: {errors}"
