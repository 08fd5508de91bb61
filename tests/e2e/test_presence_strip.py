"""The connected-players strip shows a phone joining and leaving: the GM has the demo encounter open on a laptop;
Ana opens it on her phone and the GM's strip says she is connected, without a reload; her page closes and it says
she is not. Her phone never shows the strip.

Served by a real daphne (tests/e2e/live.py): the strip travels over the GM's Channels websocket.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    join_table,
    keeps_gm_secrets,
    log_in,
    phone_opener,
    watch_live,
)

pytestmark = [pytest.mark.e2e]

DEMO_ENCOUNTER = "Ambush at the derelict relay"
LAPTOP = {"viewport": {"width": 1366, "height": 900}, "device_scale_factor": 1, "is_mobile": False, "has_touch": False}


def test_the_connected_players_strip_shows_a_phone_joining_and_leaving(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    gm = open_phone("gm")
    gm.set_viewport_size(LAPTOP["viewport"])
    log_in(gm, base, "gm")
    gm.get_by_role("link", name=DEMO_ENCOUNTER).click()
    watch_live(gm)
    url = gm.url
    strip = gm.get_by_role("region", name="Players at the table")
    ana, ben = (strip.locator("li", has_text=re.compile(rf"^\s*{name} ")) for name in ("Ana", "Ben"))
    expect(ana).to_contain_text("Luwe")  # the character she plays here
    expect(ana.locator(".badge")).to_have_text("not connected")
    expect(ben.locator(".badge")).to_have_text("not connected")

    ana_phone = open_phone("ana")
    join_table(ana_phone, base, "ana", DEMO_ENCOUNTER, url)
    expect(ana.locator(".badge")).to_have_text("connected")
    expect(ben.locator(".badge")).to_have_text("not connected")
    expect(ana_phone.locator(".presence")).to_have_count(0)
    keeps_gm_secrets(ana_phone, "ana", ("Players at the table", "connected"))

    ana_phone.close()
    expect(ana.locator(".badge")).to_have_text("not connected")
    assert gm.evaluate("window.__noReload === true"), "the GM's page reloaded"
    assert not errors, f"JavaScript errors: {errors}"
