"""A stream overlay and the GM's watch links on the live table (issue 20): "a page for a stream overlay
(transparent background, big type, whose turn and health only)"; the GM makes, copies and revokes watch links
without leaving the fight.

On a laptop (the GM's wide layout) the GM opens the table's "Let people watch live" fold and makes a link; an OBS
browser source (1920x1080) opens its overlay: whose turn it is and each visible combatant's health, updated live as
the GM acts, never the unseen enemy or a GM number, on a transparent page (screenshots in /tmp to check by eye).
The GM revokes the link from the fold and the overlay says it is closed. On a 360 px phone the fold works too,
with a last day for the link.

Served by a real daphne (tests/e2e/live.py): the updates travel over the spectator's Channels websocket.
"""

import base64
import re
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    LURKER,
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    keeps_gm_secrets,
    log_in,
    phone_opener,
    start_built_encounter,
    watch_live,
)
from tests.e2e.test_accessibility import audit, described

pytestmark = [pytest.mark.e2e]
# The unseen enemy, the GM's controls and quick edits, the enemies' exact health (Nivick's "3/3" is the GM's).
SECRETS = (LURKER, "SECRET", "GM controls", "Reveal", "gm-inline", "Health Levels -1 for", "Collapse")
DESKTOP = {"device_scale_factor": 1, "is_mobile": False, "has_touch": False}
LAPTOP = {**DESKTOP, "viewport": {"width": 1366, "height": 900}}
OBS = {**DESKTOP, "viewport": {"width": 1920, "height": 1080}}
# The overlay's screenshot, drawn over a busy picture standing in for the video (a blank page has no policy).
OVER_VIDEO = """async (png) => {
  const img = new Image(); img.src = png; await img.decode();
  const canvas = document.createElement("canvas"); canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  const corner = ctx.getImageData(0, 0, 1, 1).data[3];
  ctx.drawImage(img, 0, 0);
  const alpha = ctx.getImageData(img.width - 5, img.height - 5, 1, 1).data[3];  // far from any text
  const video = ctx.createLinearGradient(0, 0, img.width, img.height);
  ["#fff", "#f4d03f", "#222", "#6ab04c", "#fff"].forEach((c, i) => video.addColorStop(i / 4, c));
  ctx.globalCompositeOperation = "destination-over"; ctx.fillStyle = video; ctx.fillRect(0, 0, img.width, img.height);
  return {alpha, corner, composed: canvas.toDataURL("image/png")};
}"""


def build_fight(gm, base, name):
    """Luwe against a Nivick the party sees and the lurker it does not; the table opens live. Returns its URL."""
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.get_by_label("Name", exact=True).fill(name)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    party.get_by_label("Luwe", exact=True).check()
    gm.get_by_role("spinbutton", name="Nivick", exact=True).fill("1")
    gm.get_by_role("spinbutton", name=LURKER, exact=True).fill("1")
    gm.get_by_role("checkbox", name=LURKER, exact=True).check()  # unseen by the party
    return start_built_encounter(gm)


def test_an_overlay_follows_the_gm_live_shows_turn_and_health_only_and_closes_when_revoked(daphne_server, phone):
    base = daphne_server
    open_page, errors = phone_opener(lambda: phone(**LAPTOP))
    gm = open_page("gm")
    table_url = build_fight(gm, base, "Streamed relay")
    fold = gm.locator("details#watch-links")
    expect(fold).not_to_have_attribute("open", "")  # folded until opened: on the title's line, above the players
    title, strip = gm.locator("h1").bounding_box(), gm.locator(".presence").bounding_box()
    assert title["y"] <= fold.bounding_box()["y"] < strip["y"], "the closed fold takes a line of the GM's screen"
    gm.screenshot(path="/tmp/watch-links-gm-wide-closed.png", caret="initial")
    fold.locator("summary").click()
    fold.get_by_role("button", name="Make a watch link").click()
    expect(fold.get_by_text("A watch link is ready")).to_be_visible()
    overlay_url = fold.get_by_role("textbox", name=re.compile(r"^Overlay")).first.input_value()
    assert re.fullmatch(re.escape(base) + r"/watch/[\w-]+/overlay/", overlay_url)
    assert gm.evaluate("window.__noReload === true"), "making a link reloaded the GM's table"
    fits(gm)
    gm.screenshot(path="/tmp/watch-links-gm-wide.png", caret="initial")
    violations = audit(gm)
    assert not violations, f"the GM's table with its watch links open:\n{described(violations)}"

    obs = phone(**OBS)  # an OBS browser source: no account, 1920x1080
    obs.on("pageerror", lambda exc: errors.append(f"overlay: {exc}"))
    obs.goto(overlay_url)
    watch_live(obs)
    luwe = obs.locator(".roster li", has_text="Luwe").first
    expect(luwe).to_contain_text("3/3 HL")
    expect(obs.locator(".roster li", has_text="Nivick").first).to_be_visible()
    phase = obs.locator(".status .phase")
    expect(phase).to_have_text(gm.locator(".status .phase").inner_text())  # whose turn: the table's own words
    for gone in (".log", ".pools", ".declarations", ".topbar", "#live-status"):  # turn and health only, no chrome
        expect(obs.locator(gone).first).to_be_hidden()
    assert (
        obs.evaluate(
            "[getComputedStyle(document.documentElement).backgroundColor,"
            " getComputedStyle(document.body).backgroundColor]"
        )
        == ["rgba(0, 0, 0, 0)"] * 2
    )
    assert float(obs.evaluate("getComputedStyle(document.querySelector('.status .phase')).fontSize")[:-2]) >= 32
    keeps_gm_secrets(obs, "overlay", SECRETS)
    violations = audit(obs)  # over a white frame of video: the page's own canvas here
    assert not violations, f"the overlay:\n{described(violations)}"

    # The GM acts: the overlay follows without a reload, still keeping the GM's secrets.
    gm.locator(".table .roster li", has_text="Luwe").get_by_text("Edit").click()
    gm.get_by_role("button", name="Health Levels -1 for Luwe").click()
    expect(luwe).to_contain_text("2/3 HL")
    for n, enemy in enumerate(gm.locator("#gm-enemy option").all_inner_texts(), 1):  # the lurker's is GM-only
        gm.get_by_label("Enemy", exact=True).select_option(label=enemy)
        gm.get_by_role("button", name="Declare", exact=True).click()
        expect(gm.locator(".declarations li")).to_have_count(n)
    gm.get_by_role("button", name="Start Phase 2: players act").click()
    expect(obs.locator(".status h2")).to_have_text("Round 1 · Phase 2")
    ana = open_page("ana")  # Luwe's player takes the turn: the overlay names who acts
    join_table(ana, base, "ana", "Streamed relay", table_url)
    ana.get_by_role("button", name="Take my turn").click()
    expect(phase).to_contain_text("Luwe is taking their turn")
    expect(obs.locator(".roster li.acting")).to_contain_text("Luwe")
    keeps_gm_secrets(obs, "overlay", SECRETS)

    png = obs.screenshot(path="/tmp/watch-overlay-1080.png", omit_background=True, caret="initial")
    blank = open_page("checker")
    seen = blank.evaluate(OVER_VIDEO, "data:image/png;base64," + base64.b64encode(png).decode())
    assert seen["alpha"] == 0, "the overlay's page is not transparent"
    with open("/tmp/watch-overlay-over-video.png", "wb") as out:
        out.write(base64.b64decode(seen["composed"].split(",", 1)[1]))
    blank.close()

    fold.get_by_role("button", name="Revoke").click()
    expect(fold.get_by_text("That watch link is closed")).to_be_visible()
    status = obs.locator("#live-status")
    expect(status).to_have_text("closed: the watch link was revoked, or the fight is over")
    expect(status).to_be_visible()  # a stream shows that the overlay lost the table
    assert obs.goto(overlay_url).status == 404
    assert not errors, f"JavaScript errors: {errors}"


def test_the_gm_makes_a_link_with_a_last_day_and_revokes_it_on_a_phone(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)
    gm = open_phone("gm")
    build_fight(gm, base, "Relay on a phone")
    fold = gm.locator("details#watch-links")
    fold.locator("summary").click()
    last_day = datetime.now(UTC).date() + timedelta(days=3)
    fold.get_by_label("Works until (optional)").fill(last_day.isoformat())
    fold.get_by_role("button", name="Make a watch link").click()
    expect(fold.get_by_text("A watch link is ready")).to_be_visible()
    expect(fold.get_by_text(f"Works until the end of {last_day.day} {last_day:%b %Y}")).to_be_visible()
    watch_url = fold.get_by_role("textbox", name=re.compile(r"^Watch")).first.input_value()
    fits(gm)
    fold.screenshot(path="/tmp/watch-links-gm-phone.png", caret="initial")

    fold.get_by_label("Works until (optional)").fill("2020-01-01")
    fold.get_by_role("button", name="Make a watch link").click()
    expect(fold.get_by_role("alert")).to_have_text(re.compile("Choose an end date in the future"))
    assert fold.locator(".watch-list li").count() == 1

    spectator = open_phone("spectator")
    spectator.goto(watch_url)
    watch_live(spectator)
    fold.get_by_role("button", name="Revoke").click()
    expect(fold.get_by_text("That watch link is closed")).to_be_visible()
    expect(fold.locator(".watch-list li")).to_have_count(0)
    expect(spectator.locator("#live-status")).to_have_attribute("data-state", "closed")
    assert gm.evaluate("window.__noReload === true"), "the fold reloaded the GM's table"
    keeps_gm_secrets(spectator, "spectator", SECRETS)
    assert not errors, f"JavaScript errors: {errors}"
