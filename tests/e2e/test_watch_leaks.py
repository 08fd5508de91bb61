"""A spectator's watch link in each combat model (issue 20): "Spectators never see controls or GM-only facts" and "a
revoked link answers 404". The fights of tests/e2e/test_replay_scrub.py, still running: an enemy the party is not
aware of in the Expanse and HERO fights, enemy numbers and Burn Bryte's Collapse pool the GM's alone, the SW5e NPC
ship's hull."""

import pytest
from playwright.sync_api import expect

from tests.e2e import live
from tests.e2e.live import fits, log_in, watch_live
from tests.e2e.test_replay_scrub import BRYTE, EXPANSE, HERO, RUNNING_SETUP, SW5E, fight_log, leaks

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

SERVER_SETUP = RUNNING_SETUP  # read by the daphne_server fixture


@pytest.mark.parametrize("name", [BRYTE, EXPANSE, HERO, SW5E])
def test_a_spectator_watches_a_running_fight_without_a_gm_only_fact_until_the_link_is_revoked(
    daphne_server, phone, name
):
    campaign, pk, *_ = fight_log(daphne_server, name)
    gm = phone(viewport={"width": 1366, "height": 900})
    log_in(gm, daphne_server, "gm")
    gm.goto(f"{daphne_server}/campaigns/{campaign}/encounters/{pk}/")
    watch_live(gm)
    assert leaks(gm.content()), f"{name}: no GM-only fact on the GM's table: nothing to keep from spectators"
    gm.get_by_role("link", name="log and charts").click()
    gm.get_by_role("button", name="Make a watch link").click()
    expect(gm.get_by_text("A watch link is ready")).to_be_visible()
    link = gm.get_by_role("textbox", name="Watch link made", exact=False).first.input_value()

    spectator = phone(viewport={"width": 360, "height": 740})  # no account
    spectator.goto(link)
    watch_live(spectator)  # the page and then the socket's snapshot of the table
    expect(spectator.locator("#live h2").first).to_be_visible()
    assert not leaks(spectator.content()), f"the spectator of {name} sees {leaks(spectator.content())}"
    assert spectator.locator("#live button, #live form").count() == 0  # nothing to press
    fits(spectator)

    gm.locator("#watch-links-body").get_by_role("button", name="Revoke", exact=False).first.click()
    expect(gm.get_by_text("That watch link is closed")).to_be_visible()
    expect(spectator.locator("#live-status")).to_have_attribute("data-state", "closed")
    assert spectator.goto(link).status == 404
