"""The HERO System on the table: the builder, the speed chart strip, the segment's queue, each phase's actions on the
phone, aborts and held actions off-phase, the GM's tools, permissions, what players never see, the websocket,
query counts, the review and the write-back.

Dice are scripted through `services.submit(..., dice=ScriptedDice(...))`, or typed in as physical dice through the
real act endpoint. Combatants are ordered enemies first, so the state holds Agent 1, Agent 2, Kestrel, Bulwark;
segment 12 of turn 1 runs Kestrel (DEX 23), the two Agents (DEX 15, tied) and Bulwark (DEX 14).
An Agent's sheet (STUN 27, OCV 5, DCV 5, PD 5) is the GM's alone: "STUN 27/27" must never reach a player.
"""

from __future__ import annotations

import functools
import html
import io
import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Character
from combat import exports, fragments, review, services, store
from combat.models import Encounter, EncounterEvent
from combat.review import Summary
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import combatant_key, inline_edit, state_of, valid_sheet
from tests.combat.test_consumers import sockets  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

sheet = functools.partial(valid_sheet, "hero")
key = combatant_key

SECRET_NUMBERS = "STUN 27/27"


@pytest.fixture
def kestrel(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Kestrel",
        owner=player,
        system="hero",
        stats=sheet(
            spd=4,
            dex=23,
            initiative_dex=23,
            con=18,
            rec=8,
            ocv=8,
            dcv=8,
            pd=8,
            ed=8,
            stun=40,
            stun_max=40,
            body=12,
            body_max=12,
            end=40,
            end_max=40,
        ),
    )


@pytest.fixture
def bulwark(campaign, other_player):
    return Character.objects.create(
        campaign=campaign,
        name="Bulwark",
        owner=other_player,
        system="hero",
        stats=sheet(
            spd=3,
            dex=14,
            initiative_dex=14,
            con=25,
            rec=12,
            ocv=6,
            dcv=5,
            pd=10,
            ed=10,
            stun=60,
            stun_max=60,
            body=15,
            body_max=15,
            end=50,
            end_max=50,
        ),
    )


@pytest.fixture
def agent(campaign):
    return Character.objects.create(
        campaign=campaign,
        name="Agent",
        kind="npc",
        system="hero",
        is_template=True,
        quantity=2,
        stats=sheet(
            spd=4,
            dex=15,
            initiative_dex=15,
            con=13,
            rec=5,
            ocv=5,
            dcv=5,
            pd=5,
            ed=5,
            stun=27,
            stun_max=27,
            body=10,
            body_max=10,
            end=26,
            end_max=26,
        ),
        gm_notes="SECRET-NPC-NOTE: flees when Stunned",
    )


def build(campaign, gm, pcs, npc, quantity=2, hidden=(), extra=(), **settings_):
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Rooftop",
        model="hero",
        pcs=pcs,
        enemies=[(npc, quantity), *extra],
        settings=settings_,
        hidden=set(hidden),
    )
    return services.start_encounter(encounter, gm)


@pytest.fixture
def enc(campaign, gm, kestrel, bulwark, agent):
    return build(campaign, gm, [kestrel, bulwark], agent)


def go(enc, user, name, faces=(), **data):
    """Run a command with these faces scripted for the server's dice (`dice` is an attack's field here)."""
    go.n = getattr(go, "n", 0) + 1
    return services.submit(enc.pk, user, name, data, f"h{go.n}", dice=ScriptedDice(faces))


def ok(enc, user, name, faces=(), **data):
    result = go(enc, user, name, faces=faces, **data)
    assert result.ok, (name, result.error)


def version_of(enc) -> int:
    enc.refresh_from_db()
    return enc.version


def post(client, enc, command, **data):
    post.n = getattr(post, "n", 0) + 1
    return client.post(
        reverse("encounter_act", args=[enc.campaign_id, enc.pk]),
        {"command": command, "key": f"hp{post.n}", **data},
        headers={"HX-Request": "true"},
    )


def notice(response) -> str:
    found = re.search(r'class="notice[^"]*" role="alert">([^<]*)<', response.content.decode())
    return html.unescape(found.group(1)) if found else ""


def phone_of(client, user):
    client.logout()
    client.force_login(user)
    return client


def me(enc, user):
    enc.refresh_from_db()
    return html.unescape(fragments.me_html(enc, store.load_state(enc), user.pk))


def player_html(enc, user):
    enc.refresh_from_db()
    state = store.load_state(enc)
    return html.unescape(fragments.for_players(enc, state) + fragments.me_html(enc, state, user.pk))


def gm_html(enc):
    enc.refresh_from_db()
    return html.unescape(fragments.for_gm(enc, store.load_state(enc)))


def text_of(markup: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", markup).split())


def assert_no_gm_fact(markup: str, enc) -> None:
    assert "SECRET" not in markup
    assert SECRET_NUMBERS not in markup and "OCV 5 · DCV 5" not in markup
    assert "GM controls" not in markup and "needed" not in markup
    assert "npc-stats" not in markup and "gm-only" not in markup
    assert f'id="enc-{enc.pk}-gm"' not in markup
    assert "gm-inline" not in markup and "inline-edit" not in markup and "STUN -1 for" not in markup  # quick edits


def begin(enc, gm):
    ok(enc, gm, "next_segment")


# --- the builder ------------------------------------------------------------------------------------------------------


def test_the_builder_offers_the_hero_settings_and_starts_an_encounter(gm_client, campaign, kestrel, bulwark, agent):
    url = reverse("encounter_create", args=[campaign.pk])
    page = gm_client.get(url, {"model": "hero"}, headers={"HX-Request": "true"}).content.decode()
    assert "cannot be played yet" not in page
    for label in (
        "Characters tied on DEX",
        "SPD 1 characters act in the opening segment 12",
        "A SPD change mid-turn",
        "END for STR",
        "A held action colliding with another action",
        "Players may enter the faces of physical dice",
    ):
        assert html.escape(label) in page, label
    form = {
        "name": "Rooftop",
        "model": "hero",
        "pcs": [kestrel.pk, bulwark.pk],
        f"npc_{agent.pk}": "2",
        "setting_dex_ties": "roll",
        "setting_spd1_opening": "on",
        "setting_spd_change": "lockout",
        "setting_str_end": "5",
        "setting_hold_collision": "roll",
        "setting_entered_dice": "on",
        "setting_presence_against": "higher",
    }
    response = gm_client.post(url, {**form, "setting_str_end": "3"})
    assert response.status_code == 400 and "Select a valid choice" in response.content.decode()
    assert not Encounter.objects.exists()
    response = gm_client.post(url, form)
    assert response.status_code == 302
    encounter = Encounter.objects.get()
    state = store.load_state(encounter)
    assert encounter.status == "active" and not state.started
    assert state.settings["dex_ties"] == "roll" and state.settings["str_end"] == 5
    assert sorted(f.name for f in state.fighters) == ["Agent 1", "Agent 2", "Bulwark", "Kestrel"]
    k = state.fighter(key(kestrel))
    assert (k.spd, k.initiative_dex, k.pd, k.stun, k.owner) == (4, 23, 8, 40, kestrel.owner_id)


# --- the table --------------------------------------------------------------------------------------------------------


def test_before_combat_the_gm_opens_segment_12_and_everyone_sees_the_queue(enc, gm, player, kestrel, bulwark, agent):
    page = gm_html(enc)
    assert "Before combat" in page and "Begin combat: segment 12 of turn 1" in page
    assert "segment 12 of turn 1: everyone acts first" in player_html(enc, player)
    begin(enc, gm)
    page = text_of(gm_html(enc))
    assert "Turn 1, segment 12" in page and "Kestrel ’s phase" in page
    assert (
        "Segment 12, in DEX order Kestrel DEX 23 acting now Agent 1 DEX 15 waiting Agent 2 DEX 15 waiting "
        "Bulwark DEX 14 waiting"
    ) in page
    assert "Tied on DEX 15: who goes first?" in page and "Waiting for Kestrel ." in page
    table = text_of(player_html(enc, player))
    assert "Kestrel DEX 23 acting now Agent 1 waiting Agent 2 waiting Bulwark DEX 14 waiting" in table
    assert "Combat begins in segment 12 of turn 1: Kestrel, then Agent 1, then Agent 2, then Bulwark" in table


def test_the_speed_chart_strip_shows_phases_and_hides_an_enemys_phases_to_come(
    enc, gm, player, kestrel, bulwark, agent
):
    begin(enc, gm)
    for actor in (key(kestrel), key(agent, 1), key(agent, 2), key(bulwark)):
        ok(enc, gm, "end_phase", actor=actor)
    page = text_of(gm_html(enc))
    assert "Every phase in this segment is done" in page and "Next segment" in page
    ok(enc, gm, "next_segment")  # after segment 12 everyone recovers; turn 2 opens in segment 3
    gm_page, table = gm_html(enc), player_html(enc, player)
    assert "Turn 2, segment 3" in text_of(table) and "Segments 1–2 skipped with nobody to act." in table
    # The GM sees every phase to come: Agents 3, 6, 9, 12; Kestrel 3, 6, 9, 12; Bulwark 4, 8, 12.
    assert gm_page.count(": phase to come</span>") == 4 + 4 + 4 + 3
    # Players see their own side's phases, and of an enemy only the segment now running.
    assert table.count(": phase to come</span>") == 1 + 1 + 4 + 3
    agent_row = table[table.index('rowgroup" class="who">Agent 1') : table.index('rowgroup" class="who">Agent 2')]
    assert "Segment 3: phase to come" in agent_row and "Segment 6: phase to come" not in agent_row
    kestrel_row = table[table.index('scope="rowgroup" class="who">Kestrel') :]
    for segment in (3, 6, 9, 12):
        assert f"Segment {segment}: phase to come" in kestrel_row
    assert 'class="now" aria-current="true">3</th>' in table
    # What became of segment 12's phases stays on the strip only until the turn changes.
    ok(enc, gm, "end_phase", actor=key(kestrel))
    assert "Segment 3: let the phase go by" in player_html(enc, player)


def test_a_whole_phase_from_the_phone_half_actions_then_the_next_in_dex_order(enc, client, gm, player, kestrel, agent):
    begin(enc, gm)
    page = me(enc, player)
    # The banner shows it; the page's one live region (#turn-say, filled by table.js) says it in the words of data-say.
    assert 'data-your-turn="1"' in page and '<p class="banner turn">Your phase!</p>' in page
    assert 'data-say="Your phase."' in page and "aria-live" not in page and 'role="alert"' not in page
    assert "A full phase action, or two half phase actions" in page
    for label in (
        "Roll the attack",
        "Half phase action",
        "Full phase action",
        "Zero phase action",
        "Take a Recovery (full phase)",
        "End my phase",
        "Hold the action",
        "Takes no time",
    ):
        assert label in page, label
    assert "Agent 1: hits on 11 + OCV 8 − their DCV or less" in page  # the Agent's DCV is the GM's
    phone = phone_of(client, player)
    assert notice(post(phone, enc, "act", actor=key(kestrel), kind="half", text="Move 6 m")) == ""
    page = me(enc, player)
    assert "Half a phase left: one more half phase action, or an attack." in page
    assert "Full phase action" not in page and "Take a Recovery" not in page and "Hold the half phase left" in page
    response = post(phone, enc, "act", actor=key(kestrel), kind="full", text="Run")
    assert notice(response) == "Kestrel has half a phase left: a half phase action or an attack."
    assert (
        notice(post(phone, enc, "act", actor=key(kestrel), kind="zero", text="Turn on Force Field", active_points="20"))
        == ""
    )
    assert state_of(enc).fighter(key(kestrel)).end == 38  # 20 Active Points: 2 END
    assert notice(post(phone, enc, "act", actor=key(kestrel), kind="half", text="Draw a blaster")) == ""
    page = me(enc, player)
    assert 'data-your-turn="0"' in page and "Your phase!" not in page
    assert "No abort now: Kestrel has already acted in this segment." in page
    assert "Next phase: segment 3 of turn 2." in page
    table = player_html(enc, player)
    assert "Kestrel takes a zero phase action: Turn on Force Field (2 END)." in table
    assert "Kestrel takes a half phase action: Draw a blaster; the phase ends." in table
    gm_page = text_of(gm_html(enc))
    assert "Phase: Agent 1" in gm_page and "Kestrel: hits on 8 or less" in gm_page  # 11 + OCV 5 − DCV 8
    assert state_of(enc).floor == key(agent, 1)


def test_an_attack_from_the_phone_hits_stuns_and_the_stunned_agent_loses_the_phase(enc, gm, player, kestrel, agent):
    begin(enc, gm)
    # 3 + 4 + 5 = 12 against 11 + 8 − 5 = 14: a hit. 6d6 26 STUN, 8 BODY; PD 5: 21 STUN (> CON 13) and 3 BODY.
    ok(
        enc,
        player,
        "attack",
        faces=[3, 4, 5, 6, 6, 5, 4, 3, 2],
        actor=key(kestrel),
        target=key(agent, 1),
        dice=6,
        against="pd",
        text="Blaster",
    )
    state = state_of(enc)
    a1 = state.fighter(key(agent, 1))
    assert (a1.stun, a1.body, a1.stunned) == (6, 7, False)  # Stunned, then its phase spent recovering
    assert a1.mark(12) == "stunned" and state.floor == key(agent, 2)
    gm_page = gm_html(enc)
    assert (
        "Kestrel attacks Agent 1 with Blaster: 12 on 3d6 (needed 14 or less), a hit; 6d6 roll 26 STUN and "
        "8 BODY, and after 5 defence Agent 1 takes 21 STUN and 3 BODY; Agent 1 is Stunned."
    ) in gm_page
    assert "STUN 6/27" in gm_page
    table = player_html(enc, player)
    assert "Kestrel attacks Agent 1 with Blaster: 12 on 3d6, a hit; Agent 1 is Stunned." in table
    assert "Agent 1 spends the phase in segment 12 recovering from being Stunned." in table
    assert "Segment 12: spent recovering from Stunned" in table  # the strip shows what the table saw
    assert "21 STUN" not in table and "STUN 6/27" not in table
    assert_no_gm_fact(table, enc)


def test_a_hit_that_stuns_a_pc_shows_on_the_phone_and_refuses_an_abort(enc, gm, player, kestrel, bulwark, agent):
    begin(enc, gm)
    ok(enc, player, "end_phase", actor=key(kestrel))
    # Agent 1: 1 + 2 + 3 = 6 against 11 + 5 − 8 = 8; 5d6 of sixes: 30 STUN, 10 BODY; PD 8: 22 STUN (> CON 18), 2 BODY.
    ok(
        enc,
        gm,
        "attack",
        faces=[1, 2, 3, 6, 6, 6, 6, 6],
        actor=key(agent, 1),
        target=key(kestrel),
        dice=5,
        against="pd",
    )
    page = me(enc, player)
    assert "STUN <strong>18</strong>/40" in page and "BODY <strong>10</strong>/12" in page
    assert "Stunned" in page and "No abort now: Kestrel is Stunned and cannot abort." in page
    assert "Takes no time" not in page  # a Stunned character takes no actions at all
    table = player_html(enc, player)
    assert (
        "Agent 1 attacks Kestrel: 6 on 3d6, a hit; 5d6 roll 30 STUN and 10 BODY, and after 8 defence Kestrel "
        "takes 22 STUN and 2 BODY; Kestrel is Stunned." in table
    )  # a PC's numbers are the table's
    assert "needed" not in table


def test_an_abort_from_the_phone_costs_the_next_phase(enc, client, gm, player, other_player, kestrel, bulwark, agent):
    begin(enc, gm)
    page = me(enc, other_player)
    assert "Aborting gives up your next phase (segment 12 of turn 1)." in page
    for label in ("Dodge", "Block", "Dive for Cover", "Activate a defence"):
        assert f">{label}</button>" in page, label
    phone = phone_of(client, other_player)
    # Kestrel has the floor: Bulwark aborts to Dodge ahead of the faster attacker.
    assert notice(post(phone, enc, "abort", actor=key(bulwark), action="dodge")) == ""
    state = state_of(enc)
    assert state.fighter(key(bulwark)).forfeit and state.floor == key(kestrel)
    page = me(enc, other_player)
    assert "aborted: the next phase is spent" in page and "Abort to a defence" not in page
    assert "No abort now: Bulwark has already acted in this segment." in page
    assert "Bulwark aborts to Dodge, giving up the next phase (segment 12 of turn 1)." in player_html(enc, player)
    assert notice(post(phone, enc, "abort", actor=key(bulwark), action="attack")) == (
        "Abort to Dodge, Block, Dive for Cover or activating a defence; the GM allows anything else."
    )
    for actor in (key(kestrel), key(agent, 1), key(agent, 2)):
        ok(enc, gm, "end_phase", actor=actor)
    state = state_of(enc)
    assert state.fighter(key(bulwark)).mark(12) == "aborted" and not state.floor  # spent on its own
    assert "Bulwark's phase in segment 12 was already spent on an abort." in player_html(enc, other_player)


def test_hold_then_release_from_the_phone(enc, client, gm, player, other_player, kestrel, bulwark, agent):
    begin(enc, gm)
    phone = phone_of(client, player)
    page = me(enc, player)
    assert '<option value="1">1 (turn 2)</option>' in page and '<option value="2">2 (turn 2)</option>' in page
    assert '<option value="3">' not in page  # a held action is lost when the next phase (segment 3) begins
    response = post(phone, enc, "hold", actor=key(kestrel), until="trigger", trigger="  ")
    assert notice(response) == "Say what the held action waits for."
    response = post(phone, enc, "hold", actor=key(kestrel), until="trigger", trigger="when an agent breaks cover")
    assert notice(response) == ""
    page = me(enc, player)
    assert 'data-may-act="1"' in page and "You may act now: your held action." in page
    assert "holding until when an agent breaks cover" in page and "Act on my held action now" in page
    assert "Kestrel holding until when an agent breaks cover" in text_of(player_html(enc, other_player))
    gm_page = gm_html(enc)
    assert "Kestrel acts on the held action" in gm_page and "Phase: Agent 1" in text_of(gm_page)
    assert notice(post(phone, enc, "release", actor=key(kestrel))) == ""
    page = me(enc, player)
    assert "Your phase!" in page and "Your held action:" in page and "Hold the action" not in page
    assert "Kestrel acts on a held action" in text_of(player_html(enc, other_player))
    assert notice(post(phone, enc, "act", actor=key(kestrel), kind="full", text="Tackle")) == ""
    state = state_of(enc)
    assert state.floor == key(agent, 1) and state.fighter(key(kestrel)).mark(12) == "acted"


def test_the_gm_orders_tied_characters_and_runs_an_agent(enc, gm, gm_client, kestrel, bulwark, agent):
    begin(enc, gm)
    a1, a2 = key(agent, 1), key(agent, 2)
    response = post(gm_client, enc, "order_ties", order=f"{a2},{a1}")
    assert notice(response) == ""
    assert state_of(enc).order == (key(kestrel), a2, a1, key(bulwark))
    assert "The GM orders the characters tied on DEX: Agent 2, then Agent 1." in gm_html(enc)
    response = post(gm_client, enc, "order_ties", order=f"{a2},{key(bulwark)}")
    assert notice(response) == "Only characters tied on DEX can be reordered; the higher DEX acts first."
    ok(enc, gm, "end_phase", actor=key(kestrel))
    page = text_of(gm_html(enc))
    assert "Phase: Agent 2" in page and "Kestrel: hits on 8 or less" in page  # 11 + OCV 5 − DCV 8
    assert notice(post(gm_client, enc, "act", actor=a2, kind="full", text="Recover the case")) == ""
    assert state_of(enc).floor == a1


def test_the_gm_changes_spd_recoveries_and_pools(enc, gm, gm_client, player, kestrel, bulwark, agent):
    begin(enc, gm)
    for actor in (key(kestrel), key(agent, 1), key(agent, 2), key(bulwark)):
        ok(enc, gm, "end_phase", actor=actor)
    ok(enc, gm, "next_segment")  # turn 2, segment 3
    assert notice(post(gm_client, enc, "change_spd", target=key(bulwark), spd="6")) == ""
    page = me(enc, player)
    state = state_of(enc)
    # Lockout: Bulwark's next phase is the later of SPD 3's (4) and SPD 6's (4): segment 4, then 6, 8, 10, 12.
    assert state.fighter(key(bulwark)).phases == (4, 6, 8, 10, 12)
    assert "Bulwark's SPD changes from 3 to 6; the next phase is in segment 4 of turn 2." in player_html(enc, player)
    assert notice(post(gm_client, enc, "change_spd", target=key(bulwark), spd="13")) == "SPD must be from 1 to 12."
    assert notice(post(gm_client, enc, "adjust_pools", target=key(kestrel), stun="-12", body="-1", end="0")) == ""
    page = me(enc, player)
    assert "STUN <strong>28</strong>/40" in page and "BODY <strong>11</strong>/12" in page
    assert notice(post(gm_client, enc, "set_no_recovery", target=key(kestrel), excluded="1")) == ""
    assert "no free recoveries" in me(enc, player)
    assert notice(post(gm_client, enc, "adjust_pools", target=key(kestrel), stun="0")) == (
        "That changes nothing for Kestrel."
    )


def test_the_gms_quick_edits_on_the_chart_step_stun_body_end_and_undo_takes_them_back(
    enc, gm, gm_client, player, kestrel, agent
):
    begin(enc, gm)
    k, a1 = key(kestrel), key(agent, 1)
    table = gm_html(enc)
    for said in ("STUN -1 for Kestrel", "BODY -1 for Kestrel", "END -1 for Kestrel", "STUN -1 for Agent 1"):
        assert inline_edit(table, said)["command"] == "adjust_pools"
    assert "STUN +1 for Kestrel" not in table  # at full: not offered
    assert notice(post(gm_client, enc, **inline_edit(table, "STUN -1 for Kestrel"))) == ""
    assert notice(post(gm_client, enc, **inline_edit(gm_html(enc), "BODY -1 for Agent 1"))) == ""
    state = state_of(enc)
    assert state.fighter(k).stun == 39 and state.fighter(a1).body == state.fighter(a1).body_max - 1
    assert "STUN <strong>39</strong>/40" in me(enc, player)
    assert_no_gm_fact(player_html(enc, player), enc)
    assert notice(post(gm_client, enc, **inline_edit(gm_html(enc), "STUN +1 for Kestrel"))) == ""
    assert state_of(enc).fighter(k).stun == 40
    version = version_of(enc)
    assert notice(post(gm_client, enc, command="adjust_pools", target=k, stun="1")) == (
        "That changes nothing for Kestrel."
    )
    assert version_of(enc) == version
    assert notice(post(gm_client, enc, command="undo")) == ""  # STUN +1 undone
    assert state_of(enc).fighter(k).stun == 39


def test_the_gm_stuns_from_the_chart_the_phone_shows_it_and_undo_clears_it(enc, gm, gm_client, other_player, bulwark):
    begin(enc, gm)  # Kestrel's phase: Bulwark (DEX 14) acts last in the segment
    b = key(bulwark)
    table = gm_html(enc)
    assert '<summary>Conditions<span class="sr-only"> of Bulwark</span>' in table
    assert "Clear Stunned for Bulwark" not in table
    assert notice(post(gm_client, enc, **inline_edit(table, "Stunned for Bulwark"))) == ""
    assert state_of(enc).fighter(b).stunned
    assert "Bulwark is Stunned (GM)." in player_html(enc, other_player)
    assert notice(post(gm_client, enc, command="set_stunned", target=b, stunned="1")) == "Bulwark is already Stunned."
    assert inline_edit(gm_html(enc), "Clear Stunned for Bulwark")["stunned"] == "0"
    assert notice(post(gm_client, enc, **inline_edit(gm_html(enc), "No free recoveries for Bulwark"))) == ""
    assert state_of(enc).fighter(b).no_recovery
    assert notice(post(gm_client, enc, command="undo")) == ""
    assert notice(post(gm_client, enc, command="undo")) == ""
    state = state_of(enc)
    assert not state.fighter(b).stunned and not state.fighter(b).no_recovery


def test_physical_dice_when_the_gm_allows_them(campaign, client, gm, player, kestrel, bulwark, agent):
    enc = build(campaign, gm, [kestrel, bulwark], agent, entered_dice=True)
    begin(enc, gm)
    phone = phone_of(client, player)
    assert "Physical dice (optional): the attack roll’s three faces" in me(enc, player)
    response = post(
        phone,
        enc,
        "attack",
        actor=key(kestrel),
        target=key(agent, 1),
        dice="2",
        against="pd",
        entered="1 2",
        damage_entered="",
    )
    assert notice(response) == "Enter the three dice of the attack roll."
    response = post(
        phone, enc, "attack", actor=key(kestrel), target=key(agent, 1), dice="2", against="pd", entered="1 2 7"
    )
    assert notice(response) == "Each die of the attack roll shows a face from 1 to 6."
    response = post(
        phone,
        enc,
        "attack",
        actor=key(kestrel),
        target=key(agent, 1),
        dice="2",
        against="pd",
        entered="2 2 2",
        damage_entered="6",
    )
    assert notice(response) == "The damage is 2d6: enter 2 dice or none."
    assert not EncounterEvent.objects.filter(encounter=enc, payload__kind="attacked").exists()
    response = post(
        phone,
        enc,
        "attack",
        actor=key(kestrel),
        target=key(agent, 1),
        dice="2",
        against="pd",
        entered="2 2 2",
        damage_entered="6 6",
    )
    assert notice(response) == ""
    assert "Kestrel attacks Agent 1: 6 on 3d6 (physical dice), a hit" in player_html(enc, player)
    assert "2d6 (physical dice) roll 12 STUN and 4 BODY" in gm_html(enc)
    assert state_of(enc).fighter(key(agent, 1)).stun == 27 - 7


def test_physical_dice_are_refused_when_the_server_rolls(enc, client, gm, player, kestrel, agent):
    begin(enc, gm)
    assert "Physical dice" not in me(enc, player)
    response = post(
        phone_of(client, player), enc, "attack", actor=key(kestrel), target=key(agent, 1), dice="2", entered="6 6 6"
    )
    assert notice(response) == "The GM has the server roll the dice in this encounter."
    assert version_of(enc) == 1


@pytest.mark.parametrize(
    "fields,sentence",
    [
        ({"dice": "lots"}, "Dice must be a whole number."),
        ({"dice": "31"}, "Damage must be from 0 to 30 dice."),
        ({"against": "mental"}, "Choose physical (PD) or energy (ED) defence, or none."),
        ({"ocv_mod": "99"}, "OCV and DCV modifiers must be from -30 to 30."),
        ({"active_points": "-5"}, "Active Points must be from 0 to 1000."),
        ({"active_points": "900"}, "Kestrel has 40 END and this costs 90."),
        ({"target": "npc999999-1"}, "That combatant is not in this encounter."),
    ],
)
def test_bad_attack_input_is_a_sentence_and_changes_nothing(enc, client, gm, player, kestrel, agent, fields, sentence):
    begin(enc, gm)
    version = version_of(enc)
    data = {"actor": key(kestrel), "target": key(agent, 1), "dice": "4", "against": "pd", **fields}
    response = post(phone_of(client, player), enc, "attack", **data)
    assert response.status_code == 200 and notice(response) == sentence
    assert version_of(enc) == version


# --- permissions ------------------------------------------------------------------------------------------------------

GM_ONLY = [
    ("next_segment", {}),
    ("order_ties", {"order": "A1,A2"}),
    ("abort_other", {"actor": "K", "text": "run"}),
    ("contest_hold", {"holder": "K"}),
    ("change_spd", {"target": "K", "spd": "6"}),
    ("set_no_recovery", {"target": "K"}),
    ("adjust_pools", {"target": "K", "stun": "5"}),
]


@pytest.mark.parametrize("name,data", GM_ONLY)
def test_players_cannot_issue_gm_commands(enc, client, gm, player, kestrel, agent, name, data):
    begin(enc, gm)
    names = {"K": key(kestrel), "A1": key(agent, 1), "A2": key(agent, 2)}
    data = {k: ",".join(names.get(x, x) for x in v.split(",")) for k, v in data.items()}
    version = version_of(enc)
    assert notice(post(phone_of(client, player), enc, name, **data)) == "Only the GM can do that."
    assert version_of(enc) == version


def test_players_act_only_for_their_own_characters_and_never_undo_or_end(
    enc, client, gm, player, other_player, kestrel, bulwark, agent
):
    begin(enc, gm)
    version = version_of(enc)
    phone = phone_of(client, other_player)
    assert notice(post(phone, enc, "act", actor=key(kestrel), kind="half")) == (
        "You can act only for your own character."
    )
    assert notice(post(phone, enc, "attack", actor=key(agent, 1), target=key(bulwark), dice="3")) == (
        "You can act only for your own character."
    )
    assert notice(post(phone, enc, "undo")) == "Only the GM can undo."
    assert notice(post(phone, enc, "end_encounter")) == "Only the GM can end the encounter."
    assert notice(post(phone, enc, "act", actor=key(bulwark), kind="half")) == "It is not Bulwark's phase."
    assert notice(post(phone, enc, "hold", actor=key(bulwark))) == "Bulwark can hold only the phase now open."
    assert version_of(enc) == version


def test_no_player_fragment_ever_shows_a_gm_fact(campaign, gm, player, other_player, kestrel, bulwark, agent):
    sniper = Character.objects.create(
        campaign=campaign,
        name="SECRET Sniper",
        kind="npc",
        system="hero",
        stats=sheet(spd=4, dex=18, initiative_dex=18, ocv=9),
        gm_notes="SECRET note",
    )
    # The Sniper's attacks leave it unseen (the GM's choice): its name must never reach a player.
    enc = build(campaign, gm, [kestrel, bulwark], agent, hidden={sniper.pk}, extra=[(sniper, 1)], attack_reveals=False)
    sn = f"npc{sniper.pk}-1"
    seen = []

    def check():
        for user in (player, other_player):
            markup = player_html(enc, user)
            assert_no_gm_fact(markup, enc)
            seen.append(markup)
        gm_page = gm_html(enc)
        assert "SECRET Sniper" in gm_page and SECRET_NUMBERS in gm_page and "unseen by the party" in gm_page

    check()
    begin(enc, gm)
    check()
    ok(enc, player, "attack", faces=[3, 3, 3, 2, 2], actor=key(kestrel), target=key(agent, 1), dice=2, against="pd")
    check()
    assert state_of(enc).floor == sn
    assert "<strong>someone unseen</strong>’s phase" in player_html(enc, player)
    ok(
        enc,
        gm,
        "attack",
        faces=[2, 2, 2, 6, 6, 6],
        actor=sn,
        target=key(bulwark),
        dice=3,
        against="pd",
        text="SECRET rifle",
    )
    check()
    assert "Someone unseen attacks Bulwark" in player_html(enc, player)
    ok(enc, gm, "adjust_pools", target=key(agent, 2), stun=-3)
    ok(enc, gm, "change_spd", target=key(agent, 2), spd=6)
    check()
    assert all("Agent 2's SPD changes from" not in markup for markup in seen)
    assert "Agent 2's SPD changes; the next phase" in player_html(enc, player)


# --- the end, the write-back and the review ---------------------------------------------------------------------------


def test_undo_and_end_write_back_stun_body_and_end(enc, gm, player, kestrel, bulwark, agent):
    begin(enc, gm)
    ok(enc, gm, "adjust_pools", target=key(kestrel), stun=-15, body=-2, end=-6)
    before = state_of(enc)
    ok(enc, gm, "adjust_pools", target=key(bulwark), stun=-50)
    ok(enc, gm, "undo")
    assert state_of(enc) == before
    assert "<s>The GM adjusts Bulwark: STUN -50.</s>" in gm_html(enc)
    ok(enc, gm, "adjust_pools", target=key(agent, 1), body=-4)
    assert services.submit(enc.pk, gm, "end_encounter", {}, "end").ok
    kestrel.refresh_from_db()
    bulwark.refresh_from_db()
    agent.refresh_from_db()
    assert (kestrel.stats["stun"], kestrel.stats["body"], kestrel.stats["end"]) == (25, 10, 34)
    assert (bulwark.stats["stun"], bulwark.stats["end"]) == (60, 50)
    assert agent.stats["body"] == 10  # NPC templates are left alone
    kestrel.full_clean()
    assert "Encounter over" in player_html(enc, player)


def test_the_end_page_says_what_persists(enc, gm_client):
    page = gm_client.get(reverse("encounter_end", args=[enc.campaign_id, enc.pk])).content.decode()
    assert "STUN, BODY and END go back to the player characters" in page


@pytest.fixture
def fought(enc, gm, player, other_player, kestrel, bulwark, agent):
    begin(enc, gm)
    steps = [
        (
            player,
            "attack",
            {"actor": key(kestrel), "target": key(agent, 1), "dice": 6, "against": "pd"},
            [3, 4, 5, 6, 6, 5, 4, 3, 2],
        ),  # a hit: 21 STUN and 3 BODY on Agent 1, who is Stunned
        (gm, "attack", {"actor": key(agent, 2), "target": key(bulwark), "dice": 3, "against": "pd"}, [6, 6, 6]),
        (other_player, "take_recovery", {"actor": key(bulwark)}, []),
        (gm, "next_segment", {}, []),
    ]
    for user, name, data, faces in steps:
        result = go(enc, user, name, faces=faces, **data)
        assert result.ok, (name, result.error)
    enc.refresh_from_db()
    return enc


def test_the_review_counts_phases_stun_and_body(fought, kestrel, bulwark, agent):
    data = review.build(fought, is_gm=True)
    by = {s.key: s for s in data.summaries}
    k, b, a1, a2 = by[key(kestrel)], by[key(bulwark)], by[key(agent, 1)], by[key(agent, 2)]
    assert (k.rolls, k.successes, k.damage_dealt) == (1, 1, 3)
    assert (a2.rolls, a2.successes, a2.failures) == (1, 0, 1)  # an 18 always misses
    assert a1.damage_taken == 3 and a1.figures["stun_taken"] == 21
    assert k.figures["phases_used"] == 1 and b.figures["phases_used"] == 1 and a1.figures["phases_used"] == 0
    assert data.model_figures == (
        ("phases_used", "Phases used"),
        ("stun_taken", "STUN taken"),
        ("end_spent", "END spent"),
        ("end_gained", "END gained"),
    )


def test_a_players_review_says_an_enemys_damage_is_hidden_never_zero(fought, client, kestrel, agent, player):
    """Issue 20: "A number a viewer may not know is shown as hidden, never as 0." Kestrel's hit did 3 BODY and
    21 STUN to Agent 1; the GM reads the numbers, a player reads that they are hidden."""
    data = review.build(fought, is_gm=False)
    by = {s.key: s for s in data.summaries}
    k, a1 = by[key(kestrel)], by[key(agent, 1)]
    assert "damage_dealt" in k.hidden and {"damage_taken", "stun_taken"} <= a1.hidden
    assert dict(zip(Summary.COLUMNS, k.cells, strict=False))["damage_dealt"] == (0, True)
    assert not review.build(fought, is_gm=True).has_hidden
    page = phone_of(client, player).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content
    row = re.search(r"<tr><th scope=\"row\">Kestrel</th>(.*?)</tr>", page.decode()).group(1)
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert cells[5] == '<span class="hidden-figure">hidden</span>'  # Damage dealt
    assert "No damage chart: the damage in this fight is the GM's to know." in html.unescape(page.decode())


def test_the_review_page_and_exports_of_a_hero_encounter(fought, client, gm, player, campaign):
    page = phone_of(client, gm).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    assert "Turn 1" in page and "Segment 12" in page and "Phases used" in page and "STUN taken" in page
    for fmt, writer in exports.WRITERS.items():
        out = io.StringIO()
        assert writer(Encounter.objects.get(pk=fought.pk), True, out) == fought.events.count(), fmt
    out = io.StringIO()
    exports.write_json(Encounter.objects.get(pk=fought.pk), True, out)
    copy = exports.import_encounter(campaign, gm, json.loads(out.getvalue()))
    assert store.load_state(copy) == store.load_state(fought)
    body = phone_of(client, player).get(reverse("encounter_log", args=[fought.campaign_id, fought.pk]))
    assert body.status_code == 200
    text = body.content.decode()
    assert "21 STUN" not in text and "needed" not in text and SECRET_NUMBERS not in text


# --- queries ----------------------------------------------------------------------------------------------------------


def test_queries_per_action_do_not_grow_with_combatants(
    client, campaign, gm, player, kestrel, bulwark, agent, django_capture_on_commit_callbacks
):
    def queries_for(quantity):
        encounter = build(campaign, gm, [kestrel, bulwark], agent, quantity=quantity)
        begin(encounter, gm)
        phone = phone_of(client, player)
        with CaptureQueriesContext(connection) as act_q:
            with django_capture_on_commit_callbacks(execute=False):
                response = post(phone, encounter, "act", actor=key(kestrel), kind="half", text="Move")
        assert notice(response) == ""
        with CaptureQueriesContext(connection) as render_q:
            encounter.refresh_from_db()
            state = store.load_state(encounter)
            fragments.for_gm(encounter, state)
            fragments.for_players(encounter, state)
            fragments.me_html(encounter, state, player.pk)
        return len(act_q), len(render_q)

    assert queries_for(2) == queries_for(20)


# --- the websocket ----------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_websocket_brings_each_phone_its_phase_and_never_a_gm_fact(
    campaign, gm, player, other_player, kestrel, bulwark, agent, sockets, close_db_connections
):
    from tests.combat.test_consumers import act as ws_act
    from tests.combat.test_consumers import receive, receive_update, strip_until

    encounter = await sync_to_async(build)(campaign, gm, [kestrel, bulwark], agent)
    opened = []
    for user in (gm, player, other_player):
        socket, connected, _ = await sockets(user, encounter)
        assert connected
        opened.append(socket)
    gm_socket, kestrel_socket, bulwark_socket = opened
    [gm_first] = await receive(gm_socket, 1, then_quiet=False)
    await strip_until(gm_socket, encounter.pk, {"ana": True, "ben": True})  # both phones joined
    [k_first] = await receive(kestrel_socket, 1)
    [b_first] = await receive(bulwark_socket, 1)
    assert "Begin combat: segment 12 of turn 1" in gm_first and SECRET_NUMBERS in gm_first
    assert "<h2>Kestrel</h2>" in k_first and "<h2>Bulwark</h2>" in b_first
    frames = [k_first, b_first]

    async def step(user, name, data, dice=()):
        await ws_act(user, encounter, name, data, f"ws-{name}-{len(frames)}", ScriptedDice(dice))
        [gm_frame] = await receive(gm_socket, 1, then_quiet=False)
        k_frames = await receive_update(kestrel_socket, encounter.pk, then_quiet=False)
        b_frames = await receive_update(bulwark_socket, encounter.pk, then_quiet=False)
        frames.extend(k_frames + b_frames)
        return gm_frame, "".join(k_frames), "".join(b_frames)

    gm_frame, k_html, b_html = await step(gm, "next_segment", {})
    assert 'data-your-turn="1"' in k_html and "Your phase!" in k_html
    assert 'data-your-turn="0"' in b_html and "Abort to a defence" in b_html
    gm_frame, k_html, b_html = await step(
        player,
        "attack",
        {"actor": key(kestrel), "target": key(agent, 1), "dice": 6, "against": "pd"},
        [3, 4, 5, 6, 6, 5, 4, 3, 2],
    )
    assert "STUN 6/27" in gm_frame and "Agent 1 is Stunned" in k_html
    gm_frame, k_html, b_html = await step(other_player, "abort", {"actor": key(bulwark), "action": "block"})
    assert "Bulwark aborts to Block" in k_html and "aborted: the next phase is spent" in b_html
    for frame in frames:
        assert_no_gm_fact(frame, encounter)
    for socket in opened:
        assert await socket.receive_nothing(timeout=0.3)
