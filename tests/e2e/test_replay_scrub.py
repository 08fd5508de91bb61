"""Scrubbing a finished fight's replay in each combat model (issue 20, "Done means"): the GM and a player step with
the keyboard and by tapping (an entry back, a round back and on) and open a moment by its URL (`?at=`); at each
moment the table shown is checked against the state replayed to it in this test, from the server's own log, with the
pure rules core: the round and whose turn it is, and the health numbers the viewer may know. A player sees the
player's table of that moment (never a GM-only number or an unseen enemy), the GM the GM's.

Then the leak check of every moment: for a player, a friend holding the review's share link and a spectator's watch
link, no moment of the replay, no highlight, chart or the History's recap holds a GM-only fact (the GM's own page of
the same fight does, or the check would prove nothing), and a revoked link answers 404.
"""

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from playwright.sync_api import expect

from combat.rules import registry
from combat.rules.core import WORDING, Logged, active_events, from_json
from tests.e2e import live
from tests.e2e.live import log_in
from tests.e2e.test_accessibility import SERVER_SETUP as ACCESSIBILITY_SETUP

pytestmark = [pytest.mark.e2e]
daphne_server = live.daphne_server  # the fixture, found by pytest as a name of this module

BRYTE, EXPANSE, HERO, SW5E = (
    "Ambush at the derelict relay",
    "Tycho dock",
    "Rooftop at midnight",
    "Dogfight over Ord Mantell",
)
SPY = "SECRET Spy"  # an enemy the party never sees, in the Expanse and HERO fights

# The four fights of the accessibility audit, played a little further (and then ended, below): in Burn Bryte Luwe
# loses a Health Level (the GM's edit), so his health differs from one moment to another, and the round ends with
# every enemy missing; Marcus ends his Expanse turn and the next one begins; Kestrel ends her HERO phase. In the
# Expanse and HERO fights an enemy the party is not aware of stands among the enemies; the SW5e NPC ship's numbers
# are the GM's alone.
RUNNING_SETUP = (
    ACCESSIBILITY_SETUP.replace(
        "character = {",
        f"""from campaigns.models import Character
for system in ("expanse", "hero"):
    Character.objects.create(campaign=campaign, name={SPY!r} + " " + system, kind=Character.Kind.NPC, system=system,
                             stats={{}}, gm_notes="SECRET: works for the other side.")
character = {{""",
    )
    .replace(
        '[("Viper Agent", 1)])',
        f'[("Viper Agent", 1), ({SPY!r} + " hero", 1)], hidden=[character[{SPY!r} + " hero"].pk])',
    )
    .replace(
        '[("OPA Thug", 1)])',
        f'[("OPA Thug", 1), ({SPY!r} + " expanse", 1)], hidden=[character[{SPY!r} + " expanse"].pk])',
    )
    + """
act(bryte, gm, "adjust_health", target=luwe, change=-1)
act(bryte, ana, "end_turn", actor=luwe)
for pc in bryte.combatants.filter(side="pc").exclude(key=luwe):
    act(bryte, gm, "skip_turn", pc=pc.key)
act(bryte, gm, "start_enemies")
for declared in store.load_state(Encounter.objects.get(pk=bryte.pk)).declarations:
    act(bryte, gm, "resolve", declaration=declared.id, outcome="missed")
act(bryte, gm, "next_round")
act(expanse, ana, "end_turn", actor=marcus)
act(expanse, gm, "next_turn")
act(hero, ana, "end_phase", actor=f"pc{character['Kestrel'].pk}")
"""
)
# The same fights, ended (read by the daphne_server fixture); tests/e2e/test_watch_leaks.py watches them running.
SERVER_SETUP = (
    RUNNING_SETUP
    + """
for fight in (bryte, ships, hero, expanse):
    act(fight, gm, "end_encounter")
"""
)


def server_db(base) -> Path:
    return Path(live.SERVER_ENV[base]["FRAY_VAR_DIR"]) / "fray.sqlite3"


def fight_log(base, name):
    """(campaign id, encounter id, model, initial state, the log as Logged events, [seq a player may read]) of the
    fight `name`, read from the server's database."""
    with closing(sqlite3.connect(server_db(base))) as db:
        pk, campaign, model, initial = db.execute(
            "select id, campaign_id, model, initial from combat_encounter where name = ?", (name,)
        ).fetchone()
        rows = db.execute(
            "select seq, payload, audience, wording, players_text from combat_encounterevent where encounter_id = ? "
            "order by seq",
            (pk,),
        ).fetchall()
    engine = registry.get(model).engine
    log = [Logged(seq=seq, event=engine.CODEC.event_from_json(json.loads(payload))) for seq, payload, *_ in rows]
    players = [seq for seq, _, audience, wording, text in rows if audience != "gm" and (wording != WORDING or text)]
    return campaign, pk, model, from_json(engine.State, json.loads(initial)), log, players


def state_at(model, initial, log, seq):
    """The state after every live event up to `seq` (an undone one never happened): the rules core's own fold."""
    engine = registry.get(model).engine
    state = initial
    for item in active_events(log):
        if item.seq <= seq:
            state = engine.evolve(state, item.event)
    return state


def expected(model, state, gm, ended):
    """(the table's heading, [(a row's name, text that row shows)], [(a row's name, text it never shows)]) for
    `state`, as the GM (`gm`) or a player sees it; a name None stands for the whole table."""
    rows, never = [], []
    if model == "burn_bryte":
        heading = f"Round {state.round} · Phase {state.phase}"
        for f in state.fighters:
            if f.side == "pc":
                rows.append((f.name, f"{f.health}/{f.health_max} HL"))
        turn = next((f.name for f in state.fighters if f.id == state.turn), "")
        if turn and not ended:
            rows.append((None, f"{turn} is taking their turn"))
    elif model == "expanse":
        heading = f"Round {state.round}" if state.round else "Before the first round"
        for f in state.fighters:
            shown = f"Fortune {f.fortune}/{f.fortune_max}"
            if f.side == "pc" or gm:
                rows.append((f.name, shown))
            else:
                never.append((None, f.name) if f.name.startswith("SECRET") else (f.name, shown.split(" ")[0]))
        turn = next((f.name for f in state.fighters if f.id == state.turn), "")
        if turn and not ended and (gm or not turn.startswith("SECRET")):
            rows.append((None, f"{turn}’s turn"))
    elif model == "hero":
        heading = f"Turn {state.turn}, segment {state.segment}" if state.started else "Before combat"
        for f in state.fighters:
            shown = f"STUN {f.stun}/{f.stun_max} · BODY {f.body}/{f.body_max}"
            if f.side == "pc" or gm:
                rows.append((f.name, shown))
            else:
                never.append((None, f.name) if f.name.startswith("SECRET") else (f.name, shown.split(" ")[0]))
        names = {f.id: f.name for f in state.fighters}
        floor = names[state.order[state.cursor]] if state.started and state.cursor < len(state.order) else ""
        if floor and not ended and not state.acting and not state.offers and (gm or not floor.startswith("SECRET")):
            rows.append((None, f"{floor}’s phase"))
    else:
        heading = f"Round {state.round}" if state.started else "Set-up: initiative and crews"
        for s in state.ships:
            shown = f"{s.hull}/{s.hull_max}"
            if s.side == "pc" or gm:
                rows.append((s.name, shown))
            else:
                never.append((None, f"{s.name} hull points"))
        turn = next((s.name for s in state.ships if s.id == state.ship_turn), "")
        if turn and state.started and not ended:
            rows.append((None, f"{turn}'s ship turn"))
    return ("Encounter over" if ended else heading), rows, never


def check_table(page, fight, gm):
    """The replay's table on `page` is the replayed state of the moment the page shows, for this viewer."""
    _, _, model, initial, log, players = fight
    replay = page.locator("#replay")
    where = replay.locator(".moment .where").inner_text()
    index, count = (int(n) for n in re.search(r"entry (\d+) of (\d+)", where).groups())
    assert int(page.locator("#replay-at").input_value()) == index  # the slider counts the viewer's entries
    seq = ([item.seq for item in log] if gm else players)[index - 1]
    if "?" in page.url:  # a moment asked for by its URL or a step: the address bar names it by its log seq
        expect(page).to_have_url(re.compile(rf"\?at={seq}(#replay)?$"))
    state = state_at(model, initial, log, seq)
    heading, rows, never = expected(model, state, gm, ended=index == count)
    table = replay.locator(".replay-table")
    expect(table.locator("h2").first).to_have_text(heading)
    rows_of = {"hero": "tbody", "sw5e": "li.ship"}.get(model, ".roster > li")
    for name, text in rows:
        holder = table if name is None else table.locator(rows_of, has_text=name).first
        expect(holder).to_contain_text(text)
    for name, text in never:
        holder = table if name is None else table.locator(rows_of, has_text=name).first
        assert text not in holder.inner_html(), f"a player's table at entry {index} shows {text!r} ({name})"
    return index, count


@pytest.mark.parametrize("name", [BRYTE, EXPANSE, HERO, SW5E])
@pytest.mark.parametrize("who", ["gm", "ana"])
def test_scrub_a_finished_fight_and_check_each_moment_against_its_replay(daphne_server, phone, name, who):
    fight = fight_log(daphne_server, name)
    campaign, pk, *_ = fight
    gm = who == "gm"
    page = phone(viewport={"width": 360, "height": 740})
    log_in(page, daphne_server, who)
    url = f"{daphne_server}/campaigns/{campaign}/encounters/{pk}/log/"
    page.goto(url)
    replay = page.locator("#replay")
    where = replay.locator(".moment .where")
    index, count = check_table(page, fight, gm)
    assert index == count >= 3  # the last moment first: the encounter is over

    # The keyboard and taps step one entry back and on.
    slider = page.get_by_role("slider", name="Entry")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    expect(where).to_contain_text(f"entry {count - 1} of {count}")
    check_table(page, fight, gm)
    replay.get_by_role("link", name="Back one entry").tap()
    expect(where).to_contain_text(f"entry {count - 2} of {count}")
    check_table(page, fight, gm)
    replay.get_by_role("link", name="On one entry").tap()
    expect(where).to_contain_text(f"entry {count - 1} of {count}")
    check_table(page, fight, gm)
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(where).to_contain_text(f"entry {count} of {count}")
    # From the first entry, a tap jumps a round on (where the fight has a next round) and back.
    replay.get_by_role("link", name="First entry").tap()
    expect(where).to_contain_text(f"entry 1 of {count}")
    check_table(page, fight, gm)
    model, initial, log, players = fight[2:]
    moments = [item.seq for item in log] if gm else players
    rounds = state_at(model, initial, log, moments[-1]).round - state_at(model, initial, log, moments[0]).round
    round_on = replay.get_by_role("link", name="Round on")
    if rounds:
        round_on.tap()
        expect(where).not_to_contain_text(f"entry 1 of {count}")
        index, _ = check_table(page, fight, gm)
        replay.get_by_role("link", name="Round back").tap()
        expect(where).to_contain_text(f"entry 1 of {count}")
        check_table(page, fight, gm)
    else:
        expect(round_on).to_have_attribute("aria-disabled", "true")
    # Every moment by its own URL, the log's seq for everyone: a seq a player may not read (one the GM shares)
    # shows their moment before it.
    for item in log:
        page.goto(f"{url}?at={item.seq}")
        n = max(1, len([seq for seq in moments if seq <= item.seq]))
        expect(where).to_contain_text(f"entry {n} of {count}")
        check_table(page, fight, gm)


# GM-only facts as the pages mark them: the unseen enemy's name and notes, the markup of GM-only numbers and notes,
# Burn Bryte's Collapse pool, the SW5e NPC ship's hull.
SECRETS = ("SECRET", "gm-only", "npc-stats", "unseen by the party", "Collapse", "Red Talon hull points")


def leaks(html: str) -> list[str]:
    return [secret for secret in SECRETS if secret in html]


@pytest.mark.parametrize("name", [BRYTE, EXPANSE, HERO, SW5E])
def test_no_moment_highlight_chart_or_recap_shows_a_player_or_a_share_link_a_gm_only_fact(daphne_server, phone, name):
    """Every moment of the replay, the page's stories, highlights and charts ("The numbers" tables are in its HTML),
    for a player and through a share link opened without an account; the History page and its recap for the player.
    The GM's page of the same fight holds some of the secrets. The share link, once revoked, answers 404."""
    campaign, pk, *_, log, players = fight_log(daphne_server, name)
    url = f"{daphne_server}/campaigns/{campaign}/encounters/{pk}/log/"
    gm = phone(viewport={"width": 1366, "height": 900})
    log_in(gm, daphne_server, "gm")
    gm.goto(url)
    assert leaks(gm.content()), f"{name}: no GM-only fact on the GM's review: nothing to keep from players"
    gm.get_by_role("button", name="Make a share link").click()
    expect(gm.get_by_text("A share link is ready")).to_be_visible()
    link = gm.locator(".share-links input.copy").first.input_value()

    player = phone(viewport={"width": 360, "height": 740})
    log_in(player, daphne_server, "ana")
    friend = phone(viewport={"width": 360, "height": 740})  # no account
    for who, page, base in (("ana", player, url), ("a friend", friend, link)):
        page.goto(base)
        expect(page.locator("#replay .moment .where")).to_contain_text(f"of {len(players)}")
        assert not leaks(page.content()), f"{who}'s review of {name} shows {leaks(page.content())}"
        for item in log:  # every seq, GM-only ones too (a GM's link), as the replay's own step requests it
            htmx = {"HX-Request": "true", "HX-Target": "section#replay"}
            step = page.request.get(f"{base}?at={item.seq}", headers=htmx)
            body, n = step.text(), max(1, len([seq for seq in players if seq <= item.seq]))
            assert step.ok and f"entry {n} of {len(players)}" in body, (who, item.seq)
            assert not leaks(body), f"{who}'s moment at seq {item.seq} of {name} shows {leaks(body)}"
    player.goto(f"{daphne_server}/campaigns/{campaign}/archive/")
    expect(player.get_by_role("heading", name="History", level=1)).to_be_visible()
    assert not leaks(player.content()), f"ana's History shows {leaks(player.content())}"

    gm.get_by_role("button", name="Revoke").first.click()
    expect(gm.get_by_text("That link no longer opens the review.")).to_be_visible()
    assert friend.goto(link).status == 404
    assert friend.request.get(f"{link}?at=1").status == 404
