"""An honest connection on a player's phone, and a log that stays as the player left it.

A GM (on a phone too) runs a Burn Bryte encounter against Luwe, Ana's character, and declares the Nivicks' actions:
each declaration is a live update on Ana's phone. On both phone screens (360x740 and 412x915):
- the network is cut: the badge leaves "live" within 10 s, and when the network returns it is live again and the
  table has caught up with what happened meanwhile;
- Ana collapses the log: it stays collapsed across three live updates; she opens it and its earlier entries, and
  they stay open;
- the phone sleeps while its socket dies without a word (no frame either way, no close, as when a phone's
  network drops in its sleep): what the GM did meanwhile shows once the phone wakes, without a reload.
"""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.live import daphne_server, join_table, log_in, start_built_encounter  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]

SCREENS = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}
# Make the page believe the phone was locked (true) or woken (false): what a phone's browser reports.
SLEEP = """hidden => {
  Object.defineProperty(document, "hidden", {configurable: true, get: () => hidden});
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => hidden ? "hidden" : "visible"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture(params=SCREENS, ids=list(SCREENS))
def screen(request):
    return SCREENS[request.param]


def open_table(base, phone, screen, name, *, before_join=None):
    """The GM starts `name` (Luwe against four Nivicks); Ana joins on a phone of `screen`. Returns (gm, ana)."""
    gm = phone(viewport=screen)
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.get_by_role("group", name="Player characters").get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("4")
    gm.get_by_label("Name", exact=True).fill(name)
    url = start_built_encounter(gm)
    ana = phone(viewport=screen)
    if before_join:
        before_join(ana)
    join_table(ana, base, "ana", name, url)
    return gm, ana


def declare(gm, enemy, text):
    """The GM declares `enemy`'s action against Luwe; it is on the GM's table once the server took it."""
    gm.get_by_label("Enemy", exact=True).select_option(label=enemy)
    gm.get_by_label("Target", exact=True).select_option(label="Luwe")
    gm.get_by_label("Action", exact=True).fill(text)
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text=enemy)).to_contain_text(text)


def badge(page):
    return page.locator("#live-status")


def test_the_badge_leaves_live_when_the_network_is_cut_and_returns_with_it(daphne_server, phone, screen):
    gm, ana = open_table(daphne_server, phone, screen, f"Cut network {screen['width']}")
    ana.context.set_offline(True)
    expect(badge(ana)).not_to_have_attribute("data-state", "live", timeout=10_000)
    expect(badge(ana)).to_have_text("offline")
    declare(gm, "Nivick 1", "fires across the gap")  # happens while Ana's phone is cut off
    ana.context.set_offline(False)
    expect(badge(ana)).to_have_attribute("data-state", "live", timeout=15_000)
    expect(badge(ana)).to_have_text("live")
    expect(ana.locator(".declarations li", has_text="Nivick 1")).to_contain_text("fires across the gap")
    assert ana.evaluate("window.__noReload === true"), "the phone reloaded the page"


def test_the_log_stays_as_the_player_left_it_across_live_updates(daphne_server, phone, screen):
    gm, ana = open_table(daphne_server, phone, screen, f"Folded log {screen['width']}")
    log = ana.locator("details.log")
    newest = ana.locator(".log li").first
    expect(newest).to_be_visible()
    log.locator("summary", has_text="Log").click()
    expect(newest).to_be_hidden()
    for n in (1, 2, 3):
        declare(gm, f"Nivick {n}", f"aims shot {n}")
        expect(ana.locator(".declarations li", has_text=f"Nivick {n}")).to_contain_text(f"aims shot {n}")
        expect(newest).to_be_hidden()  # still collapsed after this update
    assert ana.locator(".log li", has_text="aims shot 3").count() == 1  # the update did reach the hidden log

    # Open again: the newest three lines, the rest behind "Earlier entries (N)", which stays open once opened.
    log.locator("summary", has_text="Log").click()
    declare(gm, "Nivick 4", "aims shot 4")
    lines = ana.locator(".log > ol > li")
    expect(lines.first).to_contain_text("aims shot 4")
    expect(lines).to_have_count(3)
    earlier = ana.locator(".log-earlier")
    expect(earlier.locator("li", has_text="aims shot 1")).to_be_hidden()
    earlier.locator("summary", has_text=re.compile(r"Earlier entries \(\d+\)")).click()
    expect(earlier.locator("li", has_text="aims shot 1")).to_be_visible()
    gm.get_by_role("button", name="Start Phase 2: players act").click()
    expect(ana.locator(".status h2")).to_have_text("Round 1 · Phase 2")
    expect(earlier.locator("li", has_text="aims shot 2")).to_be_visible()  # pushed down, and still open
    expect(lines).to_have_count(3)
    assert ana.evaluate("window.__noReload === true"), "the phone reloaded the page"


def test_a_change_made_while_the_phone_slept_shows_when_it_wakes(daphne_server, phone, screen):
    asleep = [False]

    def socket_that_dies_in_its_sleep(ws):
        """Every frame passes while the phone is awake; while it sleeps nothing passes, not even a close."""
        server = ws.connect_to_server()
        ws.on_message(lambda message: None if asleep[0] else server.send(message))
        server.on_message(lambda message: None if asleep[0] else ws.send(message))
        ws.on_close(lambda code, reason: None if asleep[0] else server.close())
        server.on_close(lambda code, reason: None if asleep[0] else ws.close())

    def route(page):
        page.route_web_socket(re.compile(r"/ws/campaigns/"), socket_that_dies_in_its_sleep)

    gm, ana = open_table(daphne_server, phone, screen, f"Asleep {screen['width']}", before_join=route)
    asleep[0] = True
    ana.evaluate(SLEEP, True)
    declare(gm, "Nivick 2", "creeps up the ladder")
    asleep[0] = False
    ana.evaluate(SLEEP, False)
    expect(ana.locator(".declarations li", has_text="Nivick 2")).to_contain_text("creeps up the ladder")
    expect(badge(ana)).to_have_attribute("data-state", "live")
    assert ana.evaluate("window.__noReload === true"), "the phone reloaded the page"
