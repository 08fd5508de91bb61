"""The encounter builder keeps what the GM typed and chose when the combat model changes: only the model's own
part of the form is swapped (it once copied the whole first form of the page in, the topbar's Log out with it).
Its checkbox lists are rows, each box beside its name, and a tap on the name toggles the box."""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import DEMO_CAMPAIGN, daphne_server, log_in, pick_model  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]


def test_a_model_change_keeps_the_name_and_adds_no_second_log_out(daphne_server, phone):
    page = phone()
    log_in(page, daphne_server, "gm", DEMO_CAMPAIGN)
    page.get_by_role("link", name="New encounter").click()
    name = page.get_by_label("Name", exact=True)
    name.fill("Ambush at the relay")
    model = page.get_by_label("Combat model")
    pick_model(model, "HERO System")
    # The HERO part arrived: its DEX-tie setting is there and the Burn Bryte ship picker is gone.
    expect(page.get_by_label("Characters tied on DEX")).to_be_visible()
    expect(page.get_by_label("Ship", exact=True)).to_have_count(0)
    expect(name).to_have_value("Ambush at the relay")
    expect(model).to_have_value("hero")
    expect(page.get_by_role("button", name="Log out")).to_have_count(1)
    expect(page.locator("form.card").get_by_role("button", name="Log out")).to_have_count(0)
    pick_model(model, "Burn Bryte")
    expect(page.get_by_label("Ship", exact=True)).to_be_visible()
    expect(name).to_have_value("Ambush at the relay")
    expect(page.get_by_role("button", name="Log out")).to_have_count(1)


def test_each_checkbox_sits_beside_its_name_and_the_name_toggles_it(daphne_server, phone):
    page = phone()
    log_in(page, daphne_server, "gm", DEMO_CAMPAIGN)
    page.get_by_role("link", name="New encounter").click()
    # The builder loaded, its stylesheet applied: a measure taken while the page still lays out unstyled (a loaded
    # machine) would compare a box and a row from two different layouts.
    expect(page.get_by_role("heading", name="New encounter")).to_be_visible()
    page.wait_for_load_state("load")
    boxes = page.locator("#id_pcs input[type=checkbox], #id_hidden input[type=checkbox]")
    assert boxes.count() >= 2
    for i in range(boxes.count()):
        # The box and its label measured at one instant, in the page, so both come from one layout.
        b, row, text = boxes.nth(i).evaluate(
            """(box) => { const label = box.closest("label"); const r = (el) => el.getBoundingClientRect();
            return [r(box).toJSON(), r(label).toJSON(), label.textContent.trim()]; }"""
        )
        assert b["width"] < 40, "the box is a small square, not a wide field"
        assert b["height"] < row["height"] + 1 and row["y"] <= b["y"] + b["height"] / 2 <= row["y"] + row["height"]
        assert text, "each box has its name"
    unseen = page.locator("#id_hidden label").first
    box = unseen.locator("input[type=checkbox]")
    name_text = unseen.evaluate("(l) => l.textContent.trim()")
    expect(box).not_to_be_checked()
    page.locator("#id_hidden label").filter(has_text=name_text).first.click(position={"x": 200, "y": 10})
    expect(box).to_be_checked()
    # the name is to the right of the box, on the same row
    text_box = page.evaluate(
        """() => { const l = document.querySelector('#id_hidden label'); const r = document.createRange();
        r.selectNodeContents(l); const rects = [...r.getClientRects()]; const last = rects[rects.length - 1];
        return {x: last.x, y: last.y, h: last.height}; }"""
    )
    b = box.bounding_box()
    assert text_box["x"] > b["x"] + b["width"] - 1
    assert abs((text_box["y"] + text_box["h"] / 2) - (b["y"] + b["height"] / 2)) < 12
