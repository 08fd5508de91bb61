"""Live notices outside the encounter: a player on another Fray page learns, without reloading, that an encounter
of their campaign started (with "Join") and that they may act in a fight, the bell's count going up live; and a
"your turn" raises a browser notification in a background tab once the player allowed it with the profile page's
button, which is the only thing that ever asks.

Served by a real daphne (tests/e2e/live.py): the notices travel over each page's one websocket.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    DEMO_CAMPAIGN,
    daphne_server,  # noqa: F401  (fixture)
    log_in,
    phone_opener,
    start_built_encounter,
    watch_live,
)

pytestmark = [pytest.mark.e2e]

NOTICE_WITHIN_MS = 2000  # the promise: "encounter started" on the campaign page within 2 s of the GM's tap

# Every `new Notification(...)` the page makes, recorded (then made for real), and how often it asked for
# permission; `document.hidden` as the test sets it (window.__hidden), as a phone's browser reports a tab in the
# background. Installed before any of the page's scripts run.
WATCH_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  window.__shown = [];
  window.__asked = 0;
  class Recorded extends Real {
    constructor(title, options) { super(title, options); window.__shown.push(title); }
  }
  Recorded.requestPermission = (...args) => { window.__asked += 1; return Real.requestPermission(...args); };
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  window.Notification = Recorded;
  window.__hidden = false;
  Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
  Object.defineProperty(document, "visibilityState", {
    configurable: true, get: () => window.__hidden ? "hidden" : "visible" });
})();
"""


def listening(page):
    """Mark the page (a reload would lose the mark) and wait for its notice socket to open."""
    page.evaluate("window.__noReload = true")
    expect(page.locator("#notice-socket")).to_have_attribute("data-state", "live")


def unread(page) -> int:
    badge = page.get_by_test_id("unread-count")
    return int(badge.inner_text()) if badge.count() else 0


def build(gm, name, pcs=("Luwe",)):
    """The GM fills in the builder: `pcs` against one Nivick."""
    gm.get_by_role("link", name="New encounter").click()
    expect(gm.get_by_role("heading", name="New encounter")).to_be_visible()
    gm.get_by_label("Name", exact=True).fill(name)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for pc in pcs:
        party.get_by_label(pc, exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")


def to_phase_2(gm):
    """The GM declares Nivick's attack on Luwe and starts the players' phase: Luwe's player may act now."""
    gm.get_by_label("Enemy", exact=True).select_option(label="Nivick")
    gm.get_by_label("Target", exact=True).select_option(label="Luwe")
    gm.get_by_label("Action", exact=True).fill("shoots from the gantry")
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text="Nivick")).to_contain_text("shoots from the gantry")
    gm.get_by_role("button", name="Start Phase 2: players act").click()


def test_a_player_on_the_campaign_page_sees_the_encounter_start_within_2_s(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    ana = open_phone("ana")
    log_in(ana, base, "ana")  # lands on the campaign page
    listening(ana)
    before = unread(ana)
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    build(gm, "Boarding party")

    gm.get_by_role("button", name="Start the encounter").click()
    notice = ana.locator("#notices .notice-item", has_text="Boarding party")
    expect(notice).to_contain_text(f"{DEMO_CAMPAIGN}: Boarding party has started.", timeout=NOTICE_WITHIN_MS)
    expect(ana.get_by_test_id("unread-count")).to_have_text(str(before + 1))
    assert ana.evaluate("window.__noReload === true"), "ana's page reloaded"
    watch_live(gm)  # the GM's own table, and no notice for the GM who started it
    expect(gm.locator("#notices .notice-item")).to_have_count(0)

    notice.get_by_role("link", name="Join").click()
    expect(ana).to_have_url(gm.url)
    watch_live(ana)
    expect(ana.get_by_role("heading", name="Boarding party", level=1)).to_be_visible()
    assert not errors, f"JavaScript errors: {errors}"


def test_a_player_on_another_page_hears_they_may_act_and_not_on_that_fights_own_page(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    build(gm, "Hold the airlock", pcs=("Luwe", "Furo"))
    url = start_built_encounter(gm)
    ana = open_phone("ana")  # Luwe's player, on the campaign page
    log_in(ana, base, "ana")
    listening(ana)
    cleo = open_phone("cleo")  # Furo's player, on the fight itself
    log_in(cleo, base, "cleo")
    cleo.goto(url)
    watch_live(cleo)

    to_phase_2(gm)
    notice = ana.locator("#notices .notice-item", has_text="Hold the airlock")
    expect(notice).to_contain_text("You may act now in Hold the airlock.")
    expect(cleo.get_by_role("button", name="Take my turn")).to_be_visible()  # the table says it ...
    expect(cleo.locator("#notices .notice-item", has_text="Hold the airlock")).to_have_count(0)  # ... not a notice

    notice.get_by_role("button", name="Dismiss").click()
    expect(notice).to_have_count(0)
    assert ana.evaluate("window.__noReload === true"), "ana's page reloaded"
    assert not errors, f"JavaScript errors: {errors}"


def test_your_turn_raises_a_browser_notification_in_the_background_once_allowed(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    ana = open_phone("ana")
    ana.context.add_init_script(WATCH_NOTIFICATIONS)
    log_in(ana, base, "ana")
    ana.goto(base + "/accounts/profile/")
    allow = ana.get_by_role("button", name="Notify me when it's my turn")
    expect(allow).to_be_visible()
    assert ana.evaluate("window.__asked") == 0  # never asked unprompted
    ana.context.grant_permissions(["notifications"], origin=base)  # what the player answers when asked
    allow.click()
    expect(ana.get_by_role("status").filter(has_text="This browser will notify you")).to_be_visible()
    expect(allow).to_be_hidden()
    assert ana.evaluate("window.__asked") == 1

    ana.goto(base + "/")  # another page: the campaigns
    listening(ana)
    gm = open_phone("gm")
    log_in(gm, base, "gm")

    # In the foreground the page shows the notice itself: no browser notification.
    build(gm, "Vent the bay")
    start_built_encounter(gm)
    to_phase_2(gm)
    expect(ana.locator("#notices .notice-item", has_text="You may act now in Vent the bay.")).to_be_visible()
    assert ana.evaluate("window.__shown") == []

    # In the background it raises one as well.
    ana.evaluate("window.__hidden = true")
    gm.get_by_role("link", name=DEMO_CAMPAIGN).first.click()
    build(gm, "Seal the hatch")
    start_built_encounter(gm)
    to_phase_2(gm)
    expect(ana.locator("#notices .notice-item", has_text="You may act now in Seal the hatch.")).to_be_visible()
    ana.wait_for_function("() => window.__shown.length > 0")
    assert ana.evaluate("window.__shown") == ["You may act now in Seal the hatch."]
    assert ana.evaluate("window.__asked") == 0  # this page never asked: only the profile's button does
    assert ana.evaluate("window.__noReload === true"), "ana's page reloaded"
    assert not errors, f"JavaScript errors: {errors}"
