"""Live notices outside the encounter: a player on another Fray page learns, without reloading, that an encounter
of their campaign started (with "Join") and that they may act in a fight, the bell's count going up live; and a
"your turn" raises a browser notification in a background tab, through Fray's service worker as a phone's Chrome
needs, once the player allowed it with the button of their profile or their table, the only things that ever ask.
The fight's own table raises it too when it is in the background.

Served by a real daphne (tests/e2e/live.py): the notices travel over each page's one websocket.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    DEMO_CAMPAIGN,
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    log_in,
    phone_opener,
    start_built_encounter,
    watch_live,
)

pytestmark = [pytest.mark.e2e]

NOTICE_WITHIN_MS = 2000  # the promise: "encounter started" on the campaign page within 2 s of the GM's tap

# A phone's Chrome (Android): `new Notification(...)` throws there, only a service worker's registration shows one.
# Records the titles the page asks a registration to show and how often it asked for permission; `document.hidden`
# as the test sets it (BACKGROUND), as a phone's browser reports a tab in the background. Installed before any of the
# page's scripts run.
ANDROID_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  window.__asked = 0;
  function Refused() {
    throw new TypeError("Failed to construct 'Notification': Illegal constructor. "
                        + "Use ServiceWorkerRegistration.showNotification() instead.");
  }
  Object.defineProperty(Refused, "permission", { get: () => Real.permission });
  Refused.requestPermission = (...args) => { window.__asked += 1; return Real.requestPermission(...args); };
  window.Notification = Refused;
  window.__shown = [];
  const show = ServiceWorkerRegistration.prototype.showNotification;
  ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
    window.__shown.push(title);
    return show.call(this, title, options);
  };
  window.__hidden = false;
  Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
  Object.defineProperty(document, "visibilityState", {
    configurable: true, get: () => window.__hidden ? "hidden" : "visible" });
})();
"""
# The tab goes to the background (true) or comes back (false), with the event the browser fires.
BACKGROUND = """hidden => {
  window.__hidden = hidden;
  document.dispatchEvent(new Event("visibilitychange"));
}"""
# The notifications the browser shows for Fray's service worker, looked for until there is one.
LOOK = """() => {
  window.__onScreen = null;
  const look = () => navigator.serviceWorker.ready
    .then((registration) => registration.getNotifications({ tag: "fray-your-turn" }))
    .then((all) => {
      if (all.length) window.__onScreen = all.map((n) => [n.title, n.body, n.data.url]);
      else setTimeout(look, 50);
    });
  look();
}"""


def on_screen(page) -> list[list[str]]:
    """[title, body, link] of each "your turn" notification shown through the service worker, once there is one."""
    page.evaluate(LOOK)
    page.wait_for_function("() => window.__onScreen")
    return page.evaluate("window.__onScreen")


def allow_notifications(page, base):
    """The player presses "Notify me when it's my turn" on this page and says yes: it had not asked before."""
    allow = page.get_by_role("button", name="Notify me when it's my turn")
    expect(allow).to_be_visible()
    assert page.evaluate("window.__asked") == 0  # never asked unprompted
    page.context.grant_permissions(["notifications"], origin=base)  # what the player answers when asked
    allow.click()
    expect(page.get_by_role("status").filter(has_text="This browser will notify you")).to_be_visible()
    expect(allow).to_be_hidden()
    assert page.evaluate("window.__asked") == 1


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
    ana.context.add_init_script(ANDROID_NOTIFICATIONS)
    log_in(ana, base, "ana")
    ana.goto(base + "/accounts/profile/")
    allow_notifications(ana, base)

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

    # In the background it raises one as well, through the service worker: this phone has no other way.
    ana.evaluate(BACKGROUND, True)
    gm.get_by_role("link", name=DEMO_CAMPAIGN).first.click()
    build(gm, "Seal the hatch")
    table = start_built_encounter(gm)
    to_phase_2(gm)
    notice = ana.locator("#notices .notice-item", has_text="You may act now in Seal the hatch.")
    expect(notice).to_be_visible()
    assert on_screen(ana) == [["You may act now in Seal the hatch.", "", table]]
    assert notice.get_by_role("link", name="Open").get_attribute("href") in table  # the notice's own link
    assert ana.evaluate("window.__shown") == ["You may act now in Seal the hatch."]
    assert ana.evaluate("window.__asked") == 0  # this page never asked: only the button does
    assert ana.evaluate("window.__noReload === true"), "ana's page reloaded"
    assert not errors, f"JavaScript errors: {errors}"


def test_the_fights_own_table_in_the_background_raises_the_players_turn(daphne_server, phone):
    """Luwe's player allows notifications with the button under her table (it asks only when pressed) and switches
    to another app: her table's socket stays open, and when her turn comes the table raises the notification."""
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    build(gm, "Cut the power")
    url = start_built_encounter(gm)
    ana = open_phone("ana")
    ana.context.add_init_script(ANDROID_NOTIFICATIONS)
    join_table(ana, base, "ana", "Cut the power", url)
    allow_notifications(ana, base)
    fits(ana)

    ana.evaluate(BACKGROUND, True)
    to_phase_2(gm)
    expect(ana.locator("#turn-say")).to_have_text("You may act now.")  # what the table says, in the background
    assert on_screen(ana) == [["You may act now.", "Cut the power", url]]
    assert ana.evaluate("window.__shown") == ["You may act now."]
    expect(ana.locator("#notices .notice-item")).to_have_count(0)  # the table says it: no notice besides

    ana.evaluate(BACKGROUND, False)  # back to the table: her turn is there, on the same page
    expect(ana.get_by_role("button", name="Take my turn")).to_be_visible()
    expect(ana.locator("#live-status")).to_have_attribute("data-state", "live")
    assert ana.evaluate("window.__asked") == 1
    assert ana.evaluate("window.__noReload === true"), "ana's page reloaded"
    assert not errors, f"JavaScript errors: {errors}"


def test_the_tables_button_asks_only_when_pressed_and_says_when_the_browser_blocks_it(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    build(gm, "Hold the line")
    url = start_built_encounter(gm)
    ana = open_phone("ana")
    ana.context.add_init_script(ANDROID_NOTIFICATIONS)
    join_table(ana, base, "ana", "Hold the line", url)
    allow = ana.get_by_role("button", name="Notify me when it's my turn")
    expect(allow).to_be_visible()
    to_phase_2(gm)  # her turn, in the foreground: the table says it and asks nothing
    expect(ana.get_by_role("button", name="Take my turn")).to_be_visible()
    assert ana.evaluate("window.__asked") == 0

    allow.click()  # the player says no
    expect(ana.get_by_role("status").filter(has_text="This browser blocks notifications from Fray")).to_be_visible()
    expect(allow).to_be_hidden()
    assert ana.evaluate("window.__asked") == 1
    assert ana.evaluate("window.__shown") == []
    assert not errors, f"JavaScript errors: {errors}"
