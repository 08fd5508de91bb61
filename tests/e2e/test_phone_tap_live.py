"""Every tap answered, and my turn in view: a player's phone at the table of each of the four combat models.

Served by a real daphne (tests/e2e/live.py). Each test gets an encounter of its own, built once per module on the
server's database (SETUP) up to the moment that matters: one GM action before the phone's turn starts (or it may
act), or already in that turn. The GM acts over plain HTTP, so each test drives one browser context: the phone.
Each model's "simple tap" is a one-button action of that turn (claim the turn, end the phase, end the turn,
store the power dice and take the turn) whose log sentence shows it acted, and how many times.
"""

import json
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from http.cookiejar import CookieJar
from urllib.parse import parse_qsl, urlencode
from urllib.request import HTTPCookieProcessor, Request, build_opener

import pytest
from playwright.sync_api import expect

from tests.e2e.live import DEMO_PASSWORD, ROOT, SERVER_ENV, daphne_server, log_in, watch_live  # noqa: F401  (fixture)

pytestmark = [pytest.mark.e2e]


@dataclass(frozen=True)
class Model:
    player: str  # the phone's user
    advance: str  # the GM's command that starts the phone's turn (or lets it act)
    tap: str  # the command of a one-button action of that turn
    logged: str  # the log's sentence for it
    said: str  # what the page's live region says when `advance` starts the phone's turn (or lets it act)


MODELS = {
    "burn_bryte": Model("ana", "start_players", "claim_turn", "Luwe starts their turn.", "You may act now."),
    "hero": Model("ana", "next_segment", "end_phase", "Kestrel lets the phase go by.", "Your phase."),
    "expanse": Model("cleo", "next_turn", "end_turn", "Rosa Okafor ends their turn.", "Your turn."),
    "sw5e": Model(
        "ana",
        "start_combat",
        "distribute_power",
        "Tess Varro distributes Wayward Lantern's power dice",
        "You may act now.",
    ),
}
SIZES = {"360x740": {"width": 360, "height": 740}, "412x915": {"width": 412, "height": 915}}
KINDS = ("turn", "refusal", "offline")
CASES = [(model, size) for model in MODELS for size in SIZES]
# Count the phone's vibrations and beeps (a tone started): what a phone does when its player's turn starts.
BUZZ_AND_BEEP = """
window.__buzz = 0; window.__beeps = 0;
navigator.vibrate = () => { window.__buzz += 1; return true; };
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() {}
  createGain() { return {gain: {}, connect() {}}; }
  createOscillator() { return {frequency: {}, connect() {}, start() { window.__beeps += 1; }, stop() {}}; }
};
"""
REFUSED = "This action arrived without its key; reload the page and try again."
# What the page would read out at once: every assertive live region and alert that holds text (its id, else class).
SPEAKING = """() => [...document.querySelectorAll("[aria-live=assertive], [role=alert]")]
  .filter((el) => el.textContent.trim()).map((el) => el.id || el.className)"""

# Run by manage.py shell on the server's database: builds and starts one encounter per (name, model, kind) in
# SPECS and prints {name: url}. "turn" stops one GM action (the model's `advance`) short of the phone's turn; the
# others take that action too. Enemies make the table long enough that the player's controls start off-screen.
SETUP = r'''
import json
from django.contrib.auth import get_user_model
from django.db import transaction
from campaigns.models import Campaign, Character
from combat import selectors, services, store
from ships.models import Ship

User = get_user_model()
campaign = Campaign.objects.get(name="The Drift Between Stars")
gm = User.objects.get(username="gm")
count = 0


class Peek(Exception):
    pass


def act(encounter, user, command, **data):
    global count
    count += 1
    result = services.submit(encounter.pk, user, command, data, f"setup-{encounter.pk}-{count}")
    assert result.ok, (command, data, result.error)


def starts(encounter, player, command):
    """Whether the GM's `command` would start the player's turn (or let them act): tried, then rolled back."""
    try:
        with transaction.atomic():
            act(encounter, gm, command)
            encounter.refresh_from_db()
            view = selectors.private_view(encounter, store.load_state(encounter), player.pk)
            raise Peek(view["your_turn"] or view["you_may_act"])
    except Peek as peek:
        return peek.args[0]


def build(name, model, pcs, enemies=(), setup=None):
    chars = {c.name: c for c in Character.objects.filter(campaign=campaign)}
    encounter = services.create_encounter(campaign, gm, name=name, model=model, pcs=[chars[p] for p in pcs],
                                          enemies=[(chars[e], q) for e, q in enemies], setup=setup)
    services.start_encounter(encounter, gm)
    encounter.refresh_from_db()
    return encounter, {c.name: c.key for c in encounter.combatants.all()}


def burn_bryte(name):
    encounter, keys = build(name, "burn_bryte", ["Luwe"], [("Nivick", 3)])
    for enemy in ("Nivick 1", "Nivick 2", "Nivick 3"):
        act(encounter, gm, "declare", enemy=keys[enemy], target=keys["Luwe"], text="shoots")
    return encounter


def hero(name):  # Kestrel (DEX 23) has the first phase of segment 12
    return build(name, "hero", ["Kestrel", "Bulwark"], [("Viper Agent", 1)])[0]


def expanse(name):
    encounter = build(name, "expanse", ["Rosa Okafor"], [("OPA Thug", 8)])[0]
    act(encounter, gm, "roll_initiative")
    return encounter


def sw5e(name):
    ships = [{"pk": s.pk, "side": s.side, "surprised": False}
             for s in Ship.objects.filter(campaign=campaign, name__in=["Wayward Lantern", "Red Talon"])]
    encounter, keys = build(name, "sw5e", ["Tess Varro"], setup={"ships": ships})
    act(encounter, gm, "roll_initiative", actor=keys["Tess Varro"])
    for ship in store.load_state(encounter).ships:
        if ship.name == "Red Talon":  # below any d20 + 3: the party's ship goes first
            act(encounter, gm, "set_ship_initiative", ship=ship.id, value=1)
    return encounter


urls = {}
for name, model, kind, player, advance in SPECS:
    encounter, player = globals()[model](name), User.objects.get(username=player)
    for _ in range(12):  # the GM moves on (the Expanse's other turns) until the next step is the phone's
        if starts(encounter, player, advance):
            break
        act(encounter, gm, advance)
    else:
        raise AssertionError(f"{name}: {advance} never starts {player}'s turn")
    if kind != "turn":
        act(encounter, gm, advance)
    urls[name] = encounter.get_absolute_url()
print("URLS " + json.dumps(urls))
'''


def name_of(model, size, kind):
    return f"Tap {model} {kind} {size}"


@pytest.fixture(scope="module")
def tables(daphne_server):  # noqa: F811
    """{encounter name: URL} for every test of the module, built in one go on the server's database."""
    specs = [
        (name_of(model, size, kind), model, kind, MODELS[model].player, MODELS[model].advance)
        for model, size in CASES
        for kind in KINDS
    ]
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", f"SPECS = {specs!r}\n{SETUP}"],
        env=SERVER_ENV[daphne_server],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"setting up the tables failed:\n{done.stdout}\n{done.stderr}"
    return json.loads(re.search(r"^URLS (.*)$", done.stdout, re.M).group(1))


class Gm:
    """The GM, acting over plain HTTP as the page's forms do (htmx's header, the CSRF token)."""

    def __init__(self, base):
        self.base, self.cookies = base, CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.cookies))
        page = self.opener.open(base + "/accounts/login/").read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        self._post("/accounts/login/", {"username": "gm", "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token})

    def _post(self, path, fields, headers=None):
        request = Request(self.base + path, data=urlencode(fields).encode(), headers=headers or {})
        return self.opener.open(request).read().decode()

    def act(self, encounter_url, command):
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        html = self._post(
            encounter_url + "act/",
            {"command": command, "key": f"gm-{uuid.uuid4().hex[:12]}"},
            {"X-CSRFToken": token, "HX-Request": "true"},
        )
        assert 'class="notice"' in html, f"the GM's {command} was refused: {html[-300:]}"


@pytest.fixture(scope="module")
def gm(daphne_server):  # noqa: F811
    return Gm(daphne_server)


def open_table(phone, base, model, size, url, init_script=None):
    """The model's player, on a phone of `size`, at the encounter's live table (scrolled to the top)."""
    errors = []
    page = phone(viewport=SIZES[size])
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if init_script:
        page.add_init_script(init_script)
    log_in(page, base, MODELS[model].player)
    page.goto(base + url)
    watch_live(page)
    return page, errors


def simple_tap(page, model):
    """The form of the model's one-button action in the phone's own section; its first button is the tap (SW5e's
    also offers to store the dice without taking the turn)."""
    return page.locator(f".me form:has(input[name=command][value={MODELS[model].tap}])")


def logged(page, model):
    return page.locator(".log li", has_text=MODELS[model].logged)


def notice(page):
    return page.locator(".notice[role=alert]")


def until(page, condition):
    """Until `condition()` holds, letting Playwright deliver its events (a route handler's call, say)."""
    for _ in range(200):
        if condition():
            return
        page.evaluate("0")
    pytest.fail("the condition never held")


@pytest.mark.parametrize("model,size", CASES)
def test_my_turn_brings_my_first_control_into_view(daphne_server, phone, tables, gm, model, size):  # noqa: F811
    url = tables[name_of(model, size, "turn")]
    page, errors = open_table(phone, daphne_server, model, size, url, init_script=BUZZ_AND_BEEP)
    # The beep is off until the player turns it on (turning it on plays it once).
    sound = page.get_by_label("Beep when my turn starts")
    expect(sound).not_to_be_checked()
    sound.check()
    page.evaluate("window.__beeps = 0")
    me = page.locator(".me")
    # The player reads the table, away from their own section: at the top of the page if that is below, else
    # at the bottom.
    page.evaluate("""() => {
      const top = document.querySelector(".me").getBoundingClientRect().top;
      window.scrollTo(0, top > innerHeight ? 0 : document.documentElement.scrollHeight);
    }""")
    assert not 0 <= me.bounding_box()["y"] < SIZES[size]["height"], "the phone's own section starts in view"
    gm.act(url, MODELS[model].advance)

    first = me.locator(":is(button, select, textarea, input:not([type=hidden])):visible").first
    expect(first).to_be_in_viewport()
    # "Your turn" is said once: by the page's one live region, in the model's words; the banner is only shown.
    expect(page.locator("#turn-say")).to_have_text(MODELS[model].said)
    expect(me.locator(".banner")).to_be_visible()
    assert page.evaluate(SPEAKING) == ["turn-say"]
    assert me.locator(".banner").evaluate("b => b.closest('[aria-live], [role=alert], [role=status]')") is None
    assert page.evaluate("[window.__buzz, window.__beeps]") == [1, 1]
    # The phone remembers the beep for its next visit.
    again = page.context.new_page()
    again.goto(page.url)
    expect(again.get_by_label("Beep when my turn starts")).to_be_checked()
    assert not errors


@pytest.mark.parametrize("model,size", CASES)
def test_a_refusal_stands_by_the_tap_and_a_slow_tap_shows_it_is_on_its_way(daphne_server, phone, tables, model, size):  # noqa: F811
    page, errors = open_table(phone, daphne_server, model, size, tables[name_of(model, size, "refusal")])

    # A tap the server refuses: its idempotency key is lost on the way. The sentence comes back beside the button.
    def drop_the_key(route):
        fields = [(k, v) for k, v in parse_qsl(route.request.post_data) if k != "key"]
        route.continue_(post_data=urlencode(fields))

    page.route("**/act/", drop_the_key)
    simple_tap(page, model).locator("button").first.click()
    expect(notice(page)).to_have_text(REFUSED)
    expect(notice(page)).to_be_in_viewport()
    expect(simple_tap(page, model).locator("xpath=following-sibling::*[1]")).to_have_text(REFUSED)
    page.unroute("**/act/")

    # The next tap, held on its way: its buttons are disabled and it is marked busy until the answer comes.
    button = simple_tap(page, model).locator("button").first
    held = []
    page.route("**/act/", lambda route: held.append(route))
    button.click()
    expect(button).to_be_disabled()
    expect(button).to_have_attribute("aria-busy", "true")
    until(page, lambda: held)
    held[0].continue_()
    page.unroute("**/act/")
    expect(logged(page, model)).to_have_count(1)
    expect(notice(page)).to_be_hidden()  # the refusal went with the next success
    expect(page.locator(".me [aria-busy]")).to_have_count(0)
    assert not errors


@pytest.mark.parametrize("model,size", CASES)
def test_a_tap_that_got_no_answer_is_retried_with_its_key_and_acts_once(daphne_server, phone, tables, model, size):  # noqa: F811
    page, errors = open_table(phone, daphne_server, model, size, tables[name_of(model, size, "offline")])
    page.context.set_offline(True)
    simple_tap(page, model).locator("button").first.click()
    expect(notice(page)).to_contain_text("Not sent")
    expect(notice(page)).to_be_in_viewport()
    page.context.set_offline(False)

    # The network is back but the retry's answer is lost on its way: the server acted, the phone cannot know.
    lost = []

    def lose_the_answer(route):
        route.fetch()
        route.abort()
        lost.append(route)

    page.route("**/act/", lose_the_answer)
    retry = notice(page).get_by_role("button", name="Retry")
    retry.click()
    until(page, lambda: lost)
    page.unroute("**/act/")
    expect(notice(page).locator("[aria-busy]")).to_have_count(0)  # the failure is in: busy since it was sent
    expect(logged(page, model)).to_have_count(1)  # over the socket
    expect(notice(page)).to_contain_text("Not sent")

    # Retried once more: the same key, so the server answers without acting again.
    retry.click()
    expect(notice(page)).to_be_hidden()
    expect(logged(page, model)).to_have_count(1)
    assert not errors
