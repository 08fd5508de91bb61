"""A phone on a slow link: the table's socket opens before the page's connection script has arrived.

htmx may process the page, and hx-ws open the table's socket, in the gap between two deferred scripts; the
script that keeps the badge (static/js/connection.js) then missed the "connected" event. The badge must still
say "live" once the socket is open, and the heartbeat must run.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import daphne_server, log_in, start_built_encounter  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]

SOCKET_OPEN = "() => document.getElementById('live')?._htmx?.ws?.connection?.socket?.readyState === WebSocket.OPEN"


def test_the_badge_says_live_when_the_socket_opened_before_the_script_arrived(daphne_server, phone):
    base = daphne_server
    gm = phone()
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.get_by_role("group", name="Player characters").get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    gm.get_by_label("Name", exact=True).fill("Slow link")
    url = start_built_encounter(gm)

    ana = phone()
    log_in(ana, base, "ana")
    held = []
    ana.route("**/static/js/connection.*js", lambda route: held.append(route))
    ana.goto(url, wait_until="commit")
    # The socket opens while connection.js is still on its way (held here, answered only afterwards).
    ana.wait_for_function(SOCKET_OPEN)
    expect(ana.locator("#live-status")).to_have_text("connecting…")  # nothing has told the badge yet
    assert len(held) == 1
    held[0].continue_()

    expect(ana.locator("#live-status")).to_have_attribute("data-state", "live")
    # The heartbeat runs on that socket: its pings are answered, so the badge stays live past the pong deadline.
    pings = []
    ana.on("websocket", lambda ws: pings.append(ws))  # a new socket would mean the old one was declared dead
    ana.wait_for_timeout(9_000)
    expect(ana.locator("#live-status")).to_have_attribute("data-state", "live")
    assert pings == []
