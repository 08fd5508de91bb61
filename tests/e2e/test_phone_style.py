"""What a phone shows of the style: dark mode follows the phone's setting, buttons and fields are thumb-sized, and
every field a person fills in has a label a screen reader can read."""

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("transactional_db")]

PAGES = ("/accounts/login/", "/accounts/signup/")
BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def luminance(rgb: str) -> float:
    red, green, blue = (int(part) for part in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


@pytest.mark.parametrize("path", PAGES)
def test_dark_mode_follows_the_phone(live_server, phone, path):
    light = phone(color_scheme="light")
    light.goto(live_server.url + path)
    dark = phone(color_scheme="dark")
    dark.goto(live_server.url + path)
    assert luminance(light.evaluate(BACKGROUND)) > 0.8
    assert luminance(dark.evaluate(BACKGROUND)) < 0.2
    text = "getComputedStyle(document.body).color"
    assert luminance(dark.evaluate(text)) > 0.8  # light text on the dark background


@pytest.mark.parametrize("path", PAGES)
def test_buttons_and_fields_are_thumb_sized_and_labelled(live_server, phone, path):
    page = phone()
    page.goto(live_server.url + path)
    controls = page.locator("main button, main input:not([type=hidden]):not([type=checkbox]), main select")
    assert controls.count() >= 3
    for i in range(controls.count()):
        box = controls.nth(i).bounding_box()
        assert box["height"] >= 44, f"{path}: control {i} is {box['height']} px high"
    unlabelled = page.evaluate("""() => [...document.querySelectorAll(
        'main input:not([type=hidden]), main select, main textarea')
      ].filter(el => !el.labels.length && !el.getAttribute('aria-label')).map(el => el.name)""")
    assert unlabelled == []
