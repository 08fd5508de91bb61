"""The review page as a group opens it the evening after a session (issue 20): on a 1366 px laptop the "who did
what" table fits its column without scrolling sideways, and on a 360 px phone the page itself never scrolls
sideways; every chart carries its caption and its numbers as a table, in light and dark mode."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, log_in
from tests.e2e.test_accessibility import SERVER_SETUP as ACCESSIBILITY_SETUP

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

SERVER_SETUP = ACCESSIBILITY_SETUP  # a fight under way in each model (read by the daphne_server fixture)
FIGHTS = ("Ambush at the derelict relay", "Tycho dock", "Rooftop at midnight", "Dogfight over Ord Mantell")


def open_log(page, base, encounter):
    page.get_by_role("link", name=encounter).first.click()
    page.get_by_role("link", name="log and charts").click()
    expect(page.get_by_role("heading", name=f"{encounter}: the log")).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_summary_fits_a_laptop_and_the_page_fits_a_phone(daphne_server, phone, scheme):
    base = daphne_server
    laptop = phone(viewport={"width": 1366, "height": 900}, color_scheme=scheme)
    log_in(laptop, base, "gm")
    campaign = laptop.url
    for encounter in FIGHTS:
        laptop.goto(campaign)
        open_log(laptop, base, encounter)
        summary = laptop.locator(".table-scroll")
        sizes = summary.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert sizes[0] <= sizes[1], f"{encounter}: the summary scrolls sideways on a laptop ({sizes})"
        fits(laptop)
        charts = laptop.locator("figure.chart-figure")
        for i in range(charts.count()):
            expect(charts.nth(i).locator("figcaption")).not_to_be_empty()
            expect(charts.nth(i).locator("table.chart-data tbody tr").first).to_be_attached()
    first = laptop.locator("figure.chart-figure").first
    first.get_by_text("The numbers").click()
    expect(first.locator("table.chart-data")).to_be_visible()
    laptop.screenshot(path=f"/tmp/review-laptop-{scheme}.png", full_page=True)

    small = phone(viewport={"width": 360, "height": 740}, color_scheme=scheme)
    log_in(small, base, "ana")
    campaign = small.url
    for encounter in FIGHTS:
        small.goto(campaign)
        open_log(small, base, encounter)
        fits(small)
    small.screenshot(path=f"/tmp/review-phone-{scheme}.png", full_page=True)


def test_a_player_steps_through_the_replay_on_a_phone(daphne_server, phone):
    """ "A scrubber on the review page: step event by event, or jump round by round ... keyboard and thumb
    friendly. Each moment has its own URL (`?at=<seq>`)." """
    page = phone(viewport={"width": 360, "height": 740})
    log_in(page, daphne_server, "ana")
    campaign = page.url
    open_log(page, daphne_server, "Ambush at the derelict relay")
    replay = page.locator("#replay")
    where = replay.locator(".moment .where")
    expect(where).to_contain_text("Round 1 · entry")
    count = int(where.inner_text().rsplit(" of ", 1)[1])
    expect(where).to_contain_text(f"entry {count} of {count}")  # the last moment first
    back = replay.get_by_role("link", name="Back one entry")
    seq = re.search(r"\?at=(\d+)", back.get_attribute("href")).group(1)  # the log's seq, hers or the GM's alike
    back.tap()
    expect(where).to_contain_text(f"entry {count - 1} of {count}")
    expect(page).to_have_url(re.compile(rf"\?at={seq}$"))
    replay.get_by_role("link", name="First entry").tap()
    expect(where).to_contain_text(f"entry 1 of {count}")
    expect(replay.get_by_role("link", name="Back one entry")).to_have_attribute("aria-disabled", "true")  # the start
    fits(page)
    page.screenshot(path="/tmp/replay-phone.png")
    # The moment's URL opens that moment, and the keyboard moves the slider.
    page.goto(page.url)
    expect(where).to_contain_text(f"entry 1 of {count}")
    page.get_by_role("slider", name="Entry").focus()
    page.keyboard.press("ArrowRight")
    expect(where).to_contain_text(f"entry 2 of {count}")
    assert campaign


@pytest.mark.parametrize("who", ["gm", "ana"])
def test_pressing_on_with_the_keyboard_keeps_stepping(daphne_server, phone, who):
    """ "Keyboard ... friendly": after a step the focus stays on the control pressed, so Enter pressed again on
    "On" steps on again."""
    page = phone(viewport={"width": 360, "height": 740})
    log_in(page, daphne_server, who)
    open_log(page, daphne_server, "Ambush at the derelict relay")
    where = page.locator("#replay .moment .where")
    page.locator("#replay").get_by_role("link", name="First entry").click()
    expect(where).to_contain_text("entry 1 of")
    on = page.locator("#replay").get_by_role("link", name="On one entry")
    for moment in (2, 3, 4):
        # htmx takes the swapped-in link over a moment after it lands: Enter before that follows its href, a whole
        # page load (the same moment, but the focus starts afresh)
        expect(on).to_have_attribute("data-htmx-powered", "true")
        if moment == 2:
            on.focus()
        page.keyboard.press("Enter")
        expect(where).to_contain_text(f"entry {moment} of")
        expect(page.locator("#replay").get_by_role("link", name="On one entry")).to_be_focused()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_review_prints_black_on_white_without_its_controls(daphne_server, phone, scheme):
    """ "Charts ... print well": on paper the moment and its table, the summary and the charts with their numbers
    (shut under "The numbers" on screen); no steps, slider, forms, share, watch or export cards, nor the site's
    bar; black on white even in dark mode."""
    page = phone(viewport={"width": 1366, "height": 900}, color_scheme=scheme)
    log_in(page, daphne_server, "gm")
    campaign = page.url
    for encounter in FIGHTS:  # a fight with dice rolled, so with charts
        page.goto(campaign)
        open_log(page, daphne_server, encounter)
        if page.locator("table.chart-data").count():
            break
    numbers = page.locator("table.chart-data").first
    expect(numbers).to_be_hidden()  # on screen, shut
    page.emulate_media(media="print", color_scheme=scheme)
    for shown in ("#replay .moment", "#replay .replay-table", "table.summary", "figure.chart-figure"):
        expect(page.locator(shown).first).to_be_visible()
    expect(numbers).to_be_visible()
    expect(page.get_by_text("The numbers").first).to_be_hidden()
    for hidden in (".topbar", "#replay .scrubber", "#replay-at", "form", "section.share", "section.exports"):
        assert page.locator(hidden).count(), hidden
        for i in range(page.locator(hidden).count()):
            expect(page.locator(hidden).nth(i)).to_be_hidden()
    colours = page.evaluate(
        """() => [document.body, document.querySelector('h1'), document.querySelector('#replay'),
                  document.querySelector('table.chart-data td')].map(el => {
            const style = getComputedStyle(el);
            return [style.color, style.backgroundColor];
        })"""
    )
    white, black = "rgb(255, 255, 255)", "rgb(0, 0, 0)"
    assert colours[0] == [black, white], colours
    assert all(colour == black for colour, _ in colours), colours
    assert colours[2][1] == white, colours  # a card: white too
    page.pdf(path=f"/tmp/review-print-{scheme}.pdf")


def test_a_friend_without_an_account_opens_a_share_link_on_a_phone_until_it_is_revoked(daphne_server, phone):
    """ "A read-only share link for a finished encounter's review ... No account needed to open it."""
    gm = phone(viewport={"width": 1366, "height": 900})
    log_in(gm, daphne_server, "gm")
    gm.get_by_role("link", name="Tycho dock").first.click()
    gm.get_by_role("link", name="End encounter…").click()
    gm.get_by_role("button", name="End the encounter").click()  # and the GM lands on its log
    gm.get_by_role("button", name="Make a share link").click()
    expect(gm.get_by_text("A share link is ready")).to_be_visible()
    link = gm.locator(".share-links input.copy").first.input_value()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/shared/[\w-]{32}/", link), link

    friend = phone(viewport={"width": 360, "height": 740})  # no login
    friend.goto(link)
    expect(friend.get_by_role("heading", name="Tycho dock: the log")).to_be_visible()
    expect(friend.get_by_text("a read-only review, as the players saw the fight")).to_be_visible()
    expect(friend.locator("form[method=post]")).to_have_count(0)
    replay = friend.locator("#replay")
    where = replay.locator(".moment .where")
    count = int(where.inner_text().rsplit(" of ", 1)[1])
    replay.get_by_role("link", name="Back one entry").tap()
    expect(where).to_contain_text(f"entry {count - 1} of {count}")
    fits(friend)
    friend.screenshot(path="/tmp/shared-phone.png")

    gm.get_by_role("button", name="Revoke").click()
    expect(gm.get_by_text("That link no longer opens the review.")).to_be_visible()
    assert friend.goto(link).status == 404
