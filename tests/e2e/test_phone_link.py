"""An honest connection on a player's phone, and a log that stays as the player left it.

A GM (on a phone too) runs a Burn Bryte encounter against Luwe, Ana's character, and declares the Nivicks' actions:
each declaration is a live update on Ana's phone. On both phone screens (360x740 and 412x915):
- the network is cut: the badge leaves "live" within 10 s, and when the network returns it is live again and the
  table has caught up with what happened meanwhile;
- Ana collapses the log: it stays collapsed across three live updates; she opens it and its earlier entries, and
  they stay open;
- the phone sleeps while its socket dies without a word (no frame either way, no close, as when a phone's
  network drops in its sleep): what the GM did meanwhile shows once the phone wakes, without a reload.
On the 360x740 screen:
- Ana opens another page and comes back with the browser's Back: the page is restored from the back-forward cache
  (not loaded again) and catches up with what the GM did meanwhile;
- the server closes the socket for good (4404: Fay, a player, is removed from the campaign; 4429: a page that asks
  for the table too often): hx-ws does not reconnect after those, and the badge says so instead of "reconnecting…";
- the "Beep when my turn starts" row is one thumb-sized tap target, box and words.
"""

import re
import socket
import threading

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (  # noqa: F401  (fixture)
    DEMO_CAMPAIGN,
    DEMO_PASSWORD,
    daphne_server,
    join_table,
    log_in,
    start_built_encounter,
    watch_live,
)

pytestmark = [pytest.mark.e2e]

# Fay: a player of the demo campaign whom the GM removes while her table is open.
SERVER_SETUP = f"""
from campaigns.models import Campaign, Membership, User
fay = User.objects.create_user("fay", password={DEMO_PASSWORD!r}, first_name="Fay")
Membership.objects.create(campaign=Campaign.objects.get(name={DEMO_CAMPAIGN!r}), user=fay, role="player")
"""
PHONE_360 = {"width": 360, "height": 740}
# The page's websocket, as hx-ws hands it over: for a test that sends on it what the page itself never would.
KEEP_SOCKET = """
document.addEventListener("htmx:ws:after:connection", (e) => { window.__link = e.detail.connection; });
"""

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


class Relay:
    """A phone's network between the browser and daphne: every connection to `url` is passed on to the server,
    byte for byte, except that while `flowing` is clear what the server sends on a websocket waits (a slow link)."""

    def __init__(self, base):
        self.port = int(base.rsplit(":", 1)[1])
        self.flowing = threading.Event()
        self.flowing.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        server = socket.create_connection(("127.0.0.1", self.port))
        first = client.recv(65536)  # a browser opens a connection of its own for each websocket
        server.sendall(first)
        threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
        self._pump(server, client, b"upgrade: websocket" in first.lower())

    def _pump(self, source, sink, holdable):
        try:
            while data := source.recv(65536):
                if holdable:
                    self.flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.flowing.set()
        self.listener.close()


@pytest.fixture
def relay(daphne_server):  # noqa: F811
    link = Relay(daphne_server)
    yield link
    link.close()


def open_table(base, phone, screen, name, *, before_join=None, bfcache=False, via=None):
    """The GM starts `name` (Luwe against four Nivicks); Ana joins on a phone of `screen` (whose browser keeps a
    back-forward cache if `bfcache`, and reaches the server through the base URL `via` if given). Returns (gm, ana)."""
    gm = phone(viewport=screen)
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.get_by_role("group", name="Player characters").get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("4")
    gm.get_by_label("Name", exact=True).fill(name)
    url = start_built_encounter(gm)
    ana = phone(viewport=screen, bfcache=bfcache)
    if before_join:
        before_join(ana)
    join_table(ana, via or base, "ana", name, url.replace(base, via or base))
    return gm, ana


def declare(gm, enemy, text):
    """The GM declares `enemy`'s action against Luwe; it is on the GM's table once the server took it."""
    gm.get_by_label("Enemy", exact=True).select_option(label=enemy)
    gm.get_by_label("Target", exact=True).select_option(label="Luwe")
    gm.get_by_label("Action", exact=True).fill(text)
    gm.get_by_role("button", name="Declare", exact=True).click()
    expect(gm.locator(".declarations li", has_text=enemy)).to_contain_text(text)


def keep_socket(page):
    page.add_init_script(KEEP_SOCKET)


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


def test_a_page_back_from_the_back_forward_cache_catches_up_without_a_reload(daphne_server, phone, relay):
    """The real thing: a Chromium that keeps pages in its back-forward cache (Playwright's default turns it off).
    As Ana opens another page, hx-ws closes the table's socket (code 1000) and the page is frozen in the cache.
    Whether the server's answer to that close reaches the page before it is frozen is a race; here the phone's
    network holds it until Back has restored the page (pageshow with persisted, no load: the test's mark is still on
    it), the order in which hx-ws lets the connection go for good. The page must open a new socket and catch up
    with what the GM did while it was away."""
    gm, ana = open_table(daphne_server, phone, PHONE_360, "Back and forth", bfcache=True, via=relay.url)
    ana.evaluate("window.addEventListener('pageshow', (e) => { window.__restored = e.persisted; })")
    table_url = ana.url
    relay.flowing.clear()
    ana.get_by_role("link", name="log and charts").click()
    expect(ana.get_by_role("heading", name="Timeline")).to_be_visible()
    declare(gm, "Nivick 3", "slips behind the crates")  # while Ana reads the log
    ana.go_back(wait_until="commit")  # a page from the cache fires no load event
    expect(ana).to_have_url(table_url)
    ana.wait_for_function("() => window.__restored !== undefined || !window.__noReload")  # shown again, or loaded
    assert ana.evaluate("window.__restored === true"), "the page was not restored from the back-forward cache"
    relay.flowing.set()  # the answer to the page's goodbye arrives now
    expect(ana.locator(".declarations li", has_text="Nivick 3")).to_contain_text("slips behind the crates")
    expect(badge(ana)).to_have_attribute("data-state", "live")
    declare(gm, "Nivick 4", "throws a flare")  # the new socket carries what comes next
    expect(ana.locator(".declarations li", has_text="Nivick 4")).to_contain_text("throws a flare")
    assert ana.evaluate("window.__noReload === true"), "the phone reloaded the page"


def test_a_player_removed_from_the_campaign_is_told_the_table_closed(daphne_server, phone):
    """The server closes Fay's socket with 4404 when the GM removes her: no reconnecting, and the badge says why."""
    gm, ana = open_table(daphne_server, phone, PHONE_360, "Fay watches")
    fay = phone(viewport=PHONE_360)
    log_in(fay, daphne_server, "fay")
    fay.goto(ana.url)  # a member of the campaign may watch any running table
    watch_live(fay)
    gm.get_by_role("link", name=DEMO_CAMPAIGN).first.click()
    card = gm.locator("#members li", has_text="Fay")
    card.get_by_role("button", name="Remove").click()
    expect(gm.get_by_text("Fay left the campaign")).to_be_visible()
    expect(badge(fay)).to_have_attribute("data-state", "closed")
    expect(badge(fay)).to_have_text("closed: this table is no longer open to you; reload the page")
    fay.wait_for_timeout(3_000)  # longer than hx-ws's first reconnect delay and a heartbeat: nothing changes it
    expect(badge(fay)).to_have_attribute("data-state", "closed")
    assert fay.evaluate("window.__noReload === true")


def test_a_page_that_floods_the_server_is_told_its_socket_closed(daphne_server, phone):
    """Resyncs beyond the socket's ration close it with 4429: the badge says closed, not reconnecting…"""
    gm, ana = open_table(daphne_server, phone, PHONE_360, "Flooded", before_join=keep_socket)
    ana.evaluate("() => { for (let i = 0; i < 20; i++) window.__link.socket.send('hello'); }")
    expect(badge(ana)).to_have_attribute("data-state", "closed")
    expect(badge(ana)).to_have_text("closed: this page asked the server too often; reload the page")
    ana.wait_for_timeout(3_000)
    expect(badge(ana)).to_have_text("closed: this page asked the server too often; reload the page")


def test_the_beep_toggle_is_one_thumb_sized_row(daphne_server, phone):
    """At 360 px wide the whole row, box and words, toggles the beep: a target at least 44 x 44 CSS px."""
    gm, ana = open_table(daphne_server, phone, PHONE_360, "Beep row")
    sound = ana.get_by_label("Beep when my turn starts")
    row = ana.locator("label", has=sound)
    box, tick = row.bounding_box(), sound.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, f"the row is {box['width']} x {box['height']} px"
    assert box["width"] >= 0.8 * PHONE_360["width"], "the row is not as wide as the column"
    assert box["x"] <= tick["x"] and tick["x"] + tick["width"] <= box["x"] + box["width"]  # the box is inside it
    assert box["y"] <= tick["y"] and tick["y"] + tick["height"] <= box["y"] + box["height"]
    expect(sound).not_to_be_checked()
    row.tap(position={"x": box["width"] - 4, "y": box["height"] / 2})  # its far end, away from the box and words
    expect(sound).to_be_checked()
    row.tap(position={"x": 2, "y": 2})  # a corner
    expect(sound).not_to_be_checked()
