"""The accessibility audit: axe-core (package.json, installed by `make test-e2e`) runs in every kind of page a player
sees, on a phone in the light and the dark colour scheme; no page may have a serious or critical violation. axe.min.js
is loaded into each page from node_modules and run there.

Served by a real daphne (tests/e2e/live.py) with the demo campaign plus SERVER_SETUP below: a live encounter in
each of the four combat models, at a point where Ana (a player) has her own controls on screen, a game session,
a notification and an invite link for Dee, who is not in the campaign yet.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    DEMO_CAMPAIGN,
    DEMO_PASSWORD,
    ROOT,
    daphne_server,  # noqa: F401  (fixture)
    watch_live,
)

pytestmark = [pytest.mark.e2e]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# The page loads axe from its own origin (answered from node_modules by a route), so the Content-Security-Policy
# stays on while the audit runs.
AXE_URL_PATH = "/__axe-core.min.js"
SERIOUS = ("serious", "critical")
# axe leaves these undecided where only a person can judge: the colour behind text another element partly covers
# (the log's sideways-scrolling table) or behind a bare symbol (the HERO speed chart's dots, hidden from screen
# readers), and the speed chart's data cells (read out through their hidden "Segment 3: phase" text).
A_PERSON_DECIDES = ("color-contrast", "th-has-data-cells")
INVITE = "a11y-audit-invite-link"

SERVER_SETUP = f"""
from datetime import timedelta
from django.utils import timezone
from campaigns import sessions
from campaigns.models import Campaign, Invite, Notification, User
from combat import services as combat, store
from combat.models import Encounter
from combat.rules.dice import ScriptedDice
from ships.models import Ship

campaign = Campaign.objects.get(name={DEMO_CAMPAIGN!r})
gm, ana = User.objects.get(username="gm"), User.objects.get(username="ana")
dee = User.objects.create_user("dee", password={DEMO_PASSWORD!r}, first_name="Dee")
Invite.objects.create(campaign=campaign, created_by=gm, token={INVITE!r}, expires_at=timezone.now() + timedelta(days=7))
night = sessions.create_session(campaign, gm, title="Night at the relay", starts_at=timezone.now() + timedelta(days=3),
                                duration_minutes=180, notes="Bring dice.")
Notification.objects.create(user=ana, campaign=campaign, text="Night at the relay starts in three days.",
                            url=night.get_absolute_url())
character = {{c.name: c for c in campaign.characters.all()}}
step = iter(range(1000))


def act(encounter, user, name, dice=(), **data):
    dice = ScriptedDice(dice) if dice else None  # none given: the server rolls
    result = combat.submit(encounter.pk, user, name, data, f"a11y-{{next(step)}}", dice=dice)
    assert result.ok, (name, result.error)


def start(name, model, pcs, enemies, **extra):
    encounter = combat.create_encounter(campaign, gm, name=name, model=model, session=night,
                                        pcs=[character[n] for n in pcs],
                                        enemies=[(character[n], q) for n, q in enemies], **extra)
    return combat.start_encounter(encounter, gm)


# Burn Bryte: the demo ambush, enemies declared, Ana has taken Luwe's turn.
bryte = Encounter.objects.get(name="Ambush at the derelict relay")
luwe = f"pc{{character['Luwe'].pk}}"
for enemy in bryte.combatants.filter(side="enemy"):
    act(bryte, gm, "declare", enemy=enemy.key, target=luwe, text="fires a rifle")
act(bryte, gm, "start_players")
act(bryte, ana, "claim_turn", actor=luwe)

# SW5e: the Lantern (Tess, Ana's pilot) beats the Red Talon; its turn has begun.
lantern, talon = Ship.objects.get(name="Wayward Lantern"), Ship.objects.get(name="Red Talon")
ships = start("Dogfight over Ord Mantell", "sw5e", ["Tess Varro", "Oru Dax"], [("Captain Vrask", 1)],
              setup={{"ships": [{{"pk": lantern.pk, "side": "pc", "surprised": False}},
                                {{"pk": talon.pk, "side": "npc", "surprised": False}}], "surprised_crew": []}})
act(ships, ana, "roll_initiative", dice=[15], actor=f"pc{{character['Tess Varro'].pk}}")
act(ships, User.objects.get(username="ben"), "roll_initiative", dice=[12], actor=f"pc{{character['Oru Dax'].pk}}")
act(ships, gm, "set_ship_initiative", ship=f"ship{{talon.pk}}", value=2)
act(ships, gm, "start_combat")

# HERO: segment 12 of turn 1, Kestrel (Ana, DEX 23) acts first.
hero = start("Rooftop at midnight", "hero", ["Kestrel", "Bulwark"], [("Viper Agent", 1)])
act(hero, gm, "next_segment")

# The Expanse: Marcus (Ana) wins initiative and his turn begins.
expanse = start("Tycho dock", "expanse", ["Marcus Bell", "Rosa Okafor"], [("OPA Thug", 1)])
marcus = f"pc{{character['Marcus Bell'].pk}}"
act(expanse, gm, "roll_initiative",
    dice=[d for f in store.load_state(expanse).fighters for d in ((6, 6, 6) if f.id == marcus else (1, 1, 1))])
act(expanse, gm, "next_turn")
"""


def refused_login(page):
    """The login form sent back with its error (a form in error must read as well as a fresh one)."""
    page.get_by_label("Username").fill("nobody")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".error-box")).to_be_visible()


def refused_signup(page):
    """The signup form sent back with an error under its fields: a taken username, passwords that differ."""
    page.get_by_label("Username").fill("ana")
    page.get_by_label("Password", exact=True).fill("a long enough password 1")
    page.get_by_label("Password confirmation").fill("a different password 2")
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator(".field.has-error").first).to_be_visible()


# Every kind of page a player sees: name -> (who is logged in, how to get there, its main heading). `how` is a
# path, or the link names to follow from the campaign page (the ids are the server's), or a path and then a
# function that does something on the page.
PAGES = {
    "landing": (None, "/", "Fray"),
    "login": (None, "/accounts/login/", "Log in"),
    "login refused": (None, ("/accounts/login/", refused_login), "Log in"),
    "signup": (None, "/accounts/signup/", "Create your account"),
    "signup refused": (None, ("/accounts/signup/", refused_signup), "Create your account"),
    "password reset": (None, "/accounts/password/reset/", "Reset your password"),
    "password reset sent": (None, "/accounts/password/reset/sent/", "Check your e-mail"),
    "not found": (None, "/no-such-page/", "Not Found"),
    "home": ("ana", "/", "Your campaigns"),
    "profile": ("ana", "/accounts/profile/", "Your profile"),
    "password change": ("ana", "/accounts/password/", "Change your password"),
    "notifications": ("ana", "/notifications/", "Notifications"),
    "join by code": ("dee", "/join/", "Join a campaign"),
    "join link": ("dee", f"/join/{INVITE}/", f"Join {DEMO_CAMPAIGN}?"),
    "join link, logged out": (None, f"/join/{INVITE}/", f"Join {DEMO_CAMPAIGN}"),
    "campaign": ("ana", (), DEMO_CAMPAIGN),
    "character": ("ana", ("Luwe",), "Luwe"),
    "character form": ("ana", ("New character",), "New character"),
    "party ship": ("ana", ("Wayward Lantern",), "Wayward Lantern"),
    "session list": ("ana", ("All sessions",), "Sessions"),
    "session": ("ana", ("Next: Night at the relay",), "Night at the relay"),
    "encounter list": ("ana", ("All encounters",), "Encounters"),
    "history": ("ana", ("All encounters", "History"), "History"),
    "Burn Bryte table, my turn": ("ana", ("Ambush at the derelict relay",), "Ambush at the derelict relay"),
    "Burn Bryte table, waiting": ("ben", ("Ambush at the derelict relay",), "Ambush at the derelict relay"),
    "Burn Bryte table, the GM's": ("gm", ("Ambush at the derelict relay",), "Ambush at the derelict relay"),
    "SW5e table, my turn": ("ana", ("Dogfight over Ord Mantell",), "Dogfight over Ord Mantell"),
    "HERO table, my phase": ("ana", ("Rooftop at midnight",), "Rooftop at midnight"),
    "HERO table, waiting": ("ben", ("Rooftop at midnight",), "Rooftop at midnight"),
    "Expanse table, my turn": ("ana", ("Tycho dock",), "Tycho dock"),
    "encounter log": (
        "ana",
        ("Ambush at the derelict relay", "log and charts"),
        "Ambush at the derelict relay: the log",
    ),
    "encounter log with dice": ("ana", ("Tycho dock", "log and charts"), "Tycho dock: the log"),
    "not found, logged in": ("ana", "/campaigns/999999/", "Not Found"),
}
USERS = ("ana", "ben", "dee", "gm")


@pytest.fixture(scope="module")
def logins(daphne_server, browser, tmp_path_factory):
    """Each user's cookies after logging in once (a file for new_context's storage_state)."""
    states = {}
    for user in USERS:
        context = browser.new_context()
        page = context.new_page()
        page.goto(daphne_server + "/accounts/login/")
        page.get_by_label("Username").fill(user)
        page.get_by_label("Password").fill(DEMO_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
        states[user] = tmp_path_factory.mktemp("a11y") / f"{user}.json"
        context.storage_state(path=states[user])
        context.close()
    return states


def open_page(page, base, how):
    """Go where `how` says: a path, the campaign page and then the named links in turn, or (path, function)."""
    if isinstance(how, str):
        page.goto(base + how)
        return
    if how and callable(how[-1]):
        page.goto(base + how[0])
        how[1](page)
        return
    page.goto(base + "/")
    page.get_by_role("link", name=DEMO_CAMPAIGN).click()
    expect(page.get_by_role("heading", name=DEMO_CAMPAIGN, level=1)).to_be_visible()
    page.wait_for_load_state("load")  # the heading is parsed before the stylesheet applies: audit the styled page
    for name in how:
        page.get_by_role("link", name=name, exact=True).first.click()
        page.wait_for_load_state("load")
    if page.locator("#live").count():
        watch_live(page)  # the table as the socket's snapshot leaves it


def audit(page) -> list[dict]:
    """axe-core's serious and critical findings on `page`, run in the page: its violations, and what it could not
    decide alone ("incomplete": an aria-describedby naming no element, say) unless the rule needs a person."""
    page.route(f"**{AXE_URL_PATH}", lambda route: route.fulfill(path=AXE, content_type="text/javascript"))
    page.add_script_tag(url=AXE_URL_PATH)
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
        const list = (kind, rules) => rules.map(v => ({id: v.id, impact: v.impact, help: v.help, kind,
            nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary}))}));
        return [...list("violation", result.violations), ...list("undecided", result.incomplete)];
    }""")
    return [
        v for v in found if v["impact"] in SERIOUS and not (v["kind"] == "undecided" and v["id"] in A_PERSON_DECIDES)
    ]


def described(violations) -> str:
    """One paragraph per rule: its id, what it asks, and each node with axe's reason."""
    lines = []
    for v in violations:
        lines.append(f"[{v['impact']} {v['kind']}] {v['id']}: {v['help']}")
        for node in v["nodes"]:
            lines.append(f"    {node['target']}\n        " + node["summary"].replace("\n", "\n        "))
    return "\n".join(lines)


# Each page in both colour schemes, on the two phones the team tests with (the light one on the narrower).
SCREENS = {"light": {"width": 360, "height": 740}, "dark": {"width": 412, "height": 915}}


@pytest.mark.parametrize("scheme", list(SCREENS))
@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_accessibility_violation(daphne_server, phone, logins, name, scheme):
    user, how, heading = PAGES[name]
    page = phone(color_scheme=scheme, viewport=SCREENS[scheme], **({"storage_state": logins[user]} if user else {}))
    open_page(page, daphne_server, how)
    expect(page.locator("h1")).to_have_text(heading)  # the page meant, not a login form or an error in its place
    if name.endswith(("my turn", "my phase")):  # Ana may act: her own controls are on screen
        expect(page.locator('.me[data-your-turn="1"], .me[data-may-act="1"]')).to_have_count(1)
    violations = audit(page)
    assert not violations, f"{name} ({scheme}) at {page.url}:\n{described(violations)}"
