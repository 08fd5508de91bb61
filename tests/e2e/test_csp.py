"""The Content-Security-Policy in a real browser: Fray's pages work under it without a single violation.

Served by a real daphne (tests/e2e/live.py) so the table's websocket runs too: connect-src 'self' must let
Chromium open ws:// to the same host. The `phone` fixture (tests/e2e/conftest.py) records every
`securitypolicyviolation` event and CSP console error of every browser test; here all console errors count.
"""

import re

import pytest
from django.utils.csp import build_policy
from playwright.sync_api import expect

from tests.e2e.live import DEMO_PASSWORD, daphne_server, pick_model  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]

CAMPAIGN = "The Drift Between Stars"
ENCOUNTER = "Ambush at the derelict relay"


def test_campaign_table_and_character_form_run_without_a_csp_violation(daphne_server, phone, csp_violations, settings):
    base = daphne_server
    page = phone()
    errors = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))

    response = page.goto(base + "/accounts/login/")
    assert response.headers["content-security-policy"] == build_policy(settings.SECURE_CSP)
    page.get_by_label("Username").fill("gm")
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()

    # The campaign page: an invite with its QR code (inline SVG), the address field that selects itself on a
    # tap (static/js/copy-field.js, formerly an inline onclick), and the GM notes edited in place by htmx.
    page.get_by_role("link", name=CAMPAIGN).click()
    expect(page.get_by_role("heading", name=CAMPAIGN, level=1)).to_be_visible()
    campaign_url = page.url
    invite = page.locator("#invite")
    invite.get_by_role("button", name=re.compile(r"Make (a new|an) invite")).click()
    expect(page.locator(".qr svg")).to_be_visible()
    page.wait_for_load_state()  # the invite is a plain form: the new page's deferred scripts have run by "load"
    link = page.get_by_label("Invite link")
    link.click()
    selected = page.evaluate(
        "() => { const i = document.querySelector('input.copy');"
        " return [i.selectionStart, i.selectionEnd, i.value.length]; }"
    )
    assert selected[0] == 0 and selected[1] == selected[2] > 0, selected
    before_notes = page.url
    page.get_by_role("link", name="Edit notes").click()
    expect(page.get_by_role("button", name="Save notes")).to_be_visible()
    page.get_by_role("textbox", name="GM notes").fill("The relay hums.")
    page.get_by_role("button", name="Save notes").click()
    expect(page.locator("#gm-notes .notes")).to_contain_text("The relay hums.")
    assert page.url == before_notes  # swapped in place, no navigation

    # The live table: htmx, hx-ws and table.js load, and the websocket connects under connect-src 'self'.
    page.get_by_role("link", name=ENCOUNTER).click()
    expect(page.locator("#live-status")).to_have_attribute("data-state", "live")
    assert sockets and all(url.startswith(base.replace("http://", "ws://")) for url in sockets), sockets
    expect(page.get_by_role("heading", name="GM controls")).to_be_visible()
    page.get_by_label("Action", exact=True).fill("fires a flare")
    page.get_by_role("button", name="Declare", exact=True).click()  # an htmx POST, fragments swapped oob
    expect(page.locator(".declarations")).to_contain_text("fires a flare")

    # A character form: switching the combat model swaps the stat fields in with htmx.
    page.goto(campaign_url)
    page.get_by_role("link", name="New character").click()
    expect(page.get_by_role("heading", name="New character")).to_be_visible()
    expect(page.get_by_label("SPD", exact=True)).to_have_count(0)
    pick_model(page.get_by_label("Combat model", exact=True), "HERO System")
    expect(page.get_by_label("SPD", exact=True)).to_be_visible()

    assert not csp_violations, csp_violations
    assert not errors, errors

    # The policy is enforced, and the reporter would have seen a violation: an injected inline script is
    # blocked and reported. (Then forgotten, so the fixture's end-of-test check stays about Fray's pages.)
    page.evaluate(
        "() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
        " document.head.append(s); }"
    )
    for _ in range(50):
        if csp_violations:
            break
        page.wait_for_timeout(100)
    assert any("script-src" in v for v in csp_violations), csp_violations
    assert page.evaluate("window.__inline") is None
    csp_violations.clear()
