"""The review page's stories and highlights on a phone (issue 20): a card per character, highlights that open their
moment in the replay, and a page that never scrolls sideways at 360 px."""

import re

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, log_in
from tests.e2e.test_review_page import FIGHTS, open_log
from tests.e2e.test_review_page import SERVER_SETUP as REVIEW_SETUP

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

# The fights under way (test_review_page's), and Luwe's Ranged attack hits: 1, 2 on two dice, no doubles.
SERVER_SETUP = (
    REVIEW_SETUP
    + """
nivick = bryte.combatants.filter(side="enemy").first().key
act(bryte, ana, "skill_roll", dice=(1, 2), actor=luwe, skill="Ranged", intent="attack", target=nivick)
"""
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_player_reads_the_stories_and_opens_a_highlight_on_a_phone(daphne_server, phone, scheme):
    """Issue 20: "Highlights ... Each links to its moment in the replay"; player screens work at 360 px."""
    page = phone(viewport={"width": 360, "height": 740}, color_scheme=scheme)
    log_in(page, daphne_server, "ana")
    campaign = page.url
    with_highlights = []
    for encounter in FIGHTS:
        page.goto(campaign)
        open_log(page, daphne_server, encounter)
        expect(page.get_by_role("heading", name="Each character's story")).to_be_visible()
        expect(page.locator("article.story").first).to_be_visible()
        fits(page)
        if page.locator("#highlights a").count():
            with_highlights.append(encounter)
    assert with_highlights, "no fight under way has a highlight"
    page.goto(campaign)
    open_log(page, daphne_server, with_highlights[0])
    page.locator("#highlights").screenshot(path=f"/tmp/stories-phone-{scheme}.png")
    page.locator("#stories").screenshot(path=f"/tmp/stories-cards-{scheme}.png")
    link = page.locator("#highlights a").first
    at = re.search(r"\?at=(\d+)", link.get_attribute("href")).group(1)
    link.tap()
    expect(page).to_have_url(re.compile(rf"\?at={at}#replay$"))
    count = page.locator("#replay .moment .where").inner_text().rsplit(" of ", 1)[1]
    expect(page.locator("#replay .moment .where")).to_contain_text(f"of {count}")
    index = re.search(r"entry (\d+) of", page.locator("#replay .moment .where").inner_text()).group(1)
    expect(page.locator("#replay-at")).to_have_value(index)  # the slider counts the viewer's entries
