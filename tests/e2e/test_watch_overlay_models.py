"""A stream overlay shows health only in every model (issue 20: "whose turn and health only").

The players' table puts a combatant's other numbers on the same line as its health: The Expanse's Defense and
Toughness beside Fortune, HERO's SPD, DEX and END beside STUN and BODY. The overlay, an OBS browser source at
1920x1080 on a watch link the GM makes from the table's fold, shows Fortune, and STUN and BODY, and none of the rest.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    log_in,
    pick_model,
    start_built_encounter,
    watch_live,
)

pytestmark = [pytest.mark.e2e]
OBS = {"device_scale_factor": 1, "is_mobile": False, "has_touch": False, "viewport": {"width": 1920, "height": 1080}}
CASES = {
    # model: (the builder's label and a setting only its form has, a combatant's line, shown on the overlay, on the
    # line but not on the overlay)
    "expanse": (
        ("The Expanse (AGE)", "More stunts for this encounter"),
        ".roster > li",
        ("Fortune",),
        ("Defense", "Toughness"),
    ),
    "hero": (("HERO System", "Characters tied on DEX"), ".speed-chart tbody", ("STUN", "BODY"), ("SPD", "DEX", "END")),
}


@pytest.mark.parametrize("model", list(CASES))
def test_the_overlay_shows_health_and_not_the_other_numbers(daphne_server, phone, model):
    (label, setting), line, shown, hidden = CASES[model]
    gm = phone()
    log_in(gm, daphne_server, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.wait_for_load_state("load")  # htmx binds the model select once the document has loaded
    pick_model(gm.get_by_label("Combat model"), label)
    expect(gm.get_by_label(setting)).to_be_visible()  # the form came back for the model
    gm.get_by_label("Name", exact=True).fill(f"Overlay of {label}")
    start_built_encounter(gm)
    fold = gm.locator("details#watch-links")
    fold.locator("summary").click()
    fold.get_by_role("button", name="Make a watch link").click()
    expect(fold.get_by_text("A watch link is ready")).to_be_visible()
    overlay_url = fold.get_by_role("textbox", name="Overlay", exact=False).first.input_value()

    obs = phone(**OBS)
    obs.goto(overlay_url)
    watch_live(obs)
    row = obs.locator(line).filter(has_text=shown[0]).first  # a PC: the players see its numbers
    expect(row).to_contain_text(shown[0])
    seen = row.inner_text()  # what the stream shows: display:none text is not in it
    for word in shown:
        assert word in seen, f"{model}: the overlay lost {word}: {seen!r}"
    for word in hidden:
        assert word not in seen, f"{model}: the overlay shows {word}, not health: {seen!r}"
    # The same line on the GM's table still carries them all.
    table_row = gm.locator(f".table {line}").filter(has_text=shown[0]).first
    for word in (*shown, *hidden):
        expect(table_row).to_contain_text(word)
