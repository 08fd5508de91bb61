"""The HERO System played live: a GM and two phones (Kestrel, SPD 4, and Bulwark, SPD 3) from the opening segment 12
through the whole of turn 2, with an abort, a held action released off-phase and the post-segment-12 recovery.

Served by a real daphne (tests/e2e/live.py) with the demo campaign. The server rolls every die and nothing below
depends on a face: Kestrel's and the Viper Agent's attacks are 2d6 (never enough to Stun or knock anyone out), so
the phases run in the order the speed chart says. Whoever has the floor is read from the GM's table and that
phone (or the GM, for the Agent) acts. No phone may show a GM-only fact (the GM controls, the campaign's GM note,
the Agent's numbers or the number an attack needed), and every phone fits 360 px without reloading.
"""

import pytest
from playwright.sync_api import expect

from tests.e2e.live import (
    daphne_server,  # noqa: F401  (fixture)
    fits,
    join_table,
    keeps_gm_secrets,
    log_has,
    log_in,
    phone_opener,
    pick_model,
    reviews_keep_gm_secrets,
    start_built_encounter,
)

pytestmark = [pytest.mark.e2e]

ENCOUNTER = "Rooftop at midnight"
PLAYERS = {"ana": "Kestrel", "ben": "Bulwark"}
AGENT = "Viper Agent"
GM_ONLY = ("GM controls", "Only GMs see this", "npc-stats", "gm-only", "DEX 15", "needed")
PHONE_SHOT = "/tmp/fray-hero-phone.png"
GM_SHOT = "/tmp/fray-hero-gm.png"


def check_player(page, who):
    keeps_gm_secrets(page, who, GM_ONLY)


def version(page) -> int:
    return int(page.locator("section.table").get_attribute("data-version"))


def wait_after(page, before: int, *others):
    """Until the table on `page` shows a version newer than `before` (the action arrived). If it never does, say
    what every screen showed: its version, its status and any refusal sentence."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("v => +document.querySelector('section.table').dataset.version > v", arg=before)
    except PlaywrightTimeout:
        seen = [
            f"v{version(p)} {p.locator('.status').first.inner_text()!r} "
            f"notice={p.locator('.notice').first.inner_text()!r}"
            for p in (page, *others)
        ]
        pytest.fail(f"no new version after {before}: " + " | ".join(seen))


def caught_up(page, at: int):
    """Until `page` shows version `at` or newer. A phone acting on an older screen would send an older form's key:
    the same action twice from one version counts once (a double tap), so each phone acts on the newest table."""
    page.wait_for_function("v => +document.querySelector('section.table').dataset.version >= v", arg=at)


def on_floor(gm) -> str:
    strong = gm.locator(".status .phase strong")
    return strong.first.inner_text() if strong.count() else ""


def attack(page, target, dice="2"):
    builder = page.locator("form.attack-builder")
    target_select = builder.get_by_label("Target", exact=True)
    target_select.select_option(target_select.locator("option", has_text=target).first.get_attribute("value"))
    builder.get_by_label("Damage (d6)").fill(dice)
    builder.get_by_role("button", name="Roll the attack").click()


def strip_cells(page, name, kind):
    """How many cells of `name`'s speed-chart row show `kind` (e.g. "phase": a phase to come)."""
    row = page.locator(".speed-chart tbody", has=page.locator("th.who", has_text=name))
    return row.locator(f"td.cell.{kind}").count()


def test_a_gm_and_two_phones_play_a_whole_hero_turn(daphne_server, phone):
    base = daphne_server
    open_phone, errors = phone_opener(phone)

    # --- The GM builds the encounter on a phone: HERO System, the two PCs and one Viper Agent.
    gm = open_phone("gm")
    log_in(gm, base, "gm")
    gm.get_by_role("link", name="New encounter").click()
    gm.wait_for_load_state("load")
    pick_model(gm.get_by_label("Combat model"), "HERO System")
    expect(gm.get_by_label("Characters tied on DEX")).to_be_visible()
    fits(gm)
    gm.get_by_label("Name", exact=True).fill(ENCOUNTER)
    party = gm.locator("fieldset", has=gm.locator("legend", has_text="Player characters"))
    for name in PLAYERS.values():
        expect(party.get_by_label(name, exact=True)).to_be_checked()
    gm.get_by_role("spinbutton", name=AGENT, exact=True).fill("1")
    encounter_url = start_built_encounter(gm)
    expect(gm.locator(".status h2")).to_have_text("Before combat")

    phones = {}
    for username, name in PLAYERS.items():
        page = open_phone(username)
        # Record vibrations: a phone buzzes when its player's phase begins.
        page.add_init_script(
            "navigator.vibrate = (pattern) => { (window.__buzz = window.__buzz || []).push(pattern); return true; };"
        )
        join_table(page, base, username, ENCOUNTER, encounter_url)
        expect(page.locator(".sheet h2")).to_have_text(name)
        check_player(page, username)
        phones[username] = page
    kestrel, bulwark = phones["ana"], phones["ben"]
    everyone = (gm, kestrel, bulwark)

    # --- Segment 12 of turn 1: Kestrel (DEX 23), the Agent (15), Bulwark (14).
    gm.get_by_role("button", name="Begin combat: segment 12 of turn 1").click()
    for page in everyone:
        expect(page.locator(".status h2")).to_have_text("Turn 1, segment 12")
        expect(page.locator(".queue li")).to_have_count(3)
    expect(kestrel.get_by_text("Your phase!")).to_be_visible()
    expect(kestrel.locator("#turn-say")).to_have_text("Your phase.")  # the one live region, not the banner
    expect(bulwark.locator(".me")).to_have_attribute("data-your-turn", "0")
    kestrel.wait_for_function("(window.__buzz || []).length === 1")
    assert bulwark.evaluate("(window.__buzz || []).length") == 0

    # Bulwark aborts to Dodge ahead of the faster Kestrel: his phase in this segment is spent.
    expect(bulwark.get_by_text("Aborting gives up your next phase (segment 12 of turn 1).")).to_be_visible()
    bulwark.get_by_role("button", name="Dodge").click()
    for page in everyone:
        log_has(page, "Bulwark aborts to Dodge, giving up the next phase (segment 12 of turn 1).")
    expect(bulwark.get_by_text("No abort now: Bulwark has already acted in this segment.")).to_be_visible()
    check_player(bulwark, "ben")

    acted: dict[tuple[str, str], int] = {}
    held = released = False
    for _ in range(60):
        heading = gm.locator(".status h2").inner_text()
        if heading.startswith("Turn 3"):
            break
        name = on_floor(gm)
        before = version(gm)
        if not name:
            gm.get_by_role("button", name="Next segment").click()
            wait_after(gm, before, kestrel, bulwark)
            continue
        step = acted.get((heading, name), 0)
        acted[heading, name] = step + 1
        for page in (kestrel, bulwark):
            caught_up(page, before)
        if name == "Kestrel":
            expect(kestrel.get_by_text("Your phase!")).to_be_visible()
            if heading == "Turn 1, segment 12":
                fits(kestrel)
                kestrel.screenshot(path=PHONE_SHOT, full_page=True, caret="initial")
                attack(kestrel, AGENT)
                for page in everyone:
                    log_has(page, "Kestrel attacks Viper Agent")
            elif heading == "Turn 2, segment 3" and not held:
                kestrel.get_by_role("button", name="Hold", exact=True).click()
                held = True
            elif released:
                expect(kestrel.get_by_text("Your held action:")).to_be_visible()
                kestrel.get_by_role("button", name="End my phase").click()
                released = False
            else:
                kestrel.get_by_role("button", name="Half phase action").click()
            check_player(kestrel, "ana")
        elif name == "Bulwark":
            expect(bulwark.get_by_text("Your phase!")).to_be_visible()
            if heading == "Turn 2, segment 4":
                bulwark.get_by_role("button", name="Take a Recovery (full phase)").click()
            elif step == 0:
                bulwark.get_by_role("button", name="Zero phase action").click()
            else:
                bulwark.get_by_role("button", name="End my phase").click()
            check_player(bulwark, "ben")
        else:
            assert name == AGENT, name
            expect(gm.get_by_role("heading", name=f"Phase: {AGENT}")).to_be_visible()
            if heading == "Turn 2, segment 3" and held and step == 0:
                # Kestrel's held action interrupts the Agent's phase, off her own.
                expect(kestrel.locator(".banner.may")).to_have_text("You may act now: your held action.")
                kestrel.get_by_role("button", name="Act on my held action now").click()
                released = True
                for page in everyone:
                    log_has(page, "Kestrel acts on the held action.")
            elif heading == "Turn 1, segment 12":
                attack(gm, "Kestrel")
            else:
                gm.get_by_role("button", name=f"End {AGENT}’s phase").click()
        wait_after(gm, before, kestrel, bulwark)
    else:
        pytest.fail(f"turn 2 did not end: {gm.locator('.status').inner_text()}")

    # Every phase of the speed chart was played: SPD 4 acts in 3, 6, 9, 12 and SPD 3 in 4, 8, 12.
    assert {h for (h, n) in acted if n == "Kestrel"} >= {f"Turn 2, segment {s}" for s in (3, 6, 9, 12)}
    assert {h for (h, n) in acted if n == "Bulwark"} == {f"Turn 2, segment {s}" for s in (4, 8, 12)}
    for page in everyone:
        expect(page.locator(".status h2")).to_have_text("Turn 3, segment 3")
        log_has(page, "After segment 12 of turn 1, everyone recovers")
        log_has(page, "After segment 12 of turn 2, everyone recovers")
        log_has(page, "Kestrel holds the action.")
        log_has(page, "Bulwark takes a Recovery")
        log_has(page, "segments 1–2 skipped with nobody to act")
    # The strip: a player sees every phase to come of the party, and of the Agent only the segment now running.
    assert strip_cells(bulwark, "Bulwark", "phase") == 3 and strip_cells(bulwark, "Kestrel", "phase") == 4
    assert strip_cells(bulwark, AGENT, "phase") == 1 and strip_cells(gm, AGENT, "phase") == 4
    for username, page in phones.items():
        check_player(page, username)
    fits(gm)
    gm.screenshot(path=GM_SHOT, full_page=True, caret="initial")

    # --- The GM ends it on a page that asks once more; the phones see it over.
    gm.get_by_role("link", name="End encounter…").click()
    expect(gm.get_by_text("STUN, BODY and END go back to the player characters' sheets")).to_be_visible()
    gm.get_by_role("button", name="End the encounter").click()
    for username, page in phones.items():
        expect(page.locator(".status h2")).to_have_text("Encounter over")
        check_player(page, username)
    reviews_keep_gm_secrets(gm, phones, encounter_url, ENCOUNTER, GM_ONLY)
    assert not errors, errors
