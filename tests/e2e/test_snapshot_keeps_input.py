"""The table the socket sends when it connects is the one already on the page: what the viewer typed stays.

Every render draws fresh form keys, so that snapshot never matches the page byte for byte. Before the page
compared tables without their keys, a GM who started typing while the socket was still connecting lost the
text (and a tap right after "live" sent the form's defaults instead of what was typed).
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import DEMO_CAMPAIGN, daphne_server, log_in  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]


def test_the_connect_snapshot_keeps_what_the_gm_typed(daphne_server, phone):
    page = phone()
    held, sockets = [], []

    def hold_frames(ws):
        server = ws.connect_to_server()
        server.on_message(lambda message: held.append(message))  # held until the test lets them through
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws/campaigns/"), hold_frames)
    page.add_init_script(
        "window.__frames = 0; document.addEventListener("
        "'htmx:ws:after:message:incoming', function () { window.__frames++; });"
    )
    log_in(page, daphne_server, "gm", DEMO_CAMPAIGN)
    page.get_by_role("link", name="New encounter").click()
    page.get_by_role("group", name="Player characters").get_by_label("Luwe", exact=True).check()
    page.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    page.get_by_role("button", name="Start the encounter").click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    field = page.get_by_label("Action", exact=True)
    field.fill("Flank them from the gantry")
    for _ in range(100):  # Playwright runs the socket's callbacks while the page waits
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the server sent no snapshot when the socket connected"
    for frame in held:
        sockets[0].send(frame)
    page.wait_for_function(f"window.__frames >= {len(held)}")
    expect(field).to_have_value("Flank them from the gantry")
