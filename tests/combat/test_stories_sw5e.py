"""Issue 20's stories and highlights for SW5e starships: the hand-worked fight of the review test in
tests/combat/test_sw5e_table.py (the Red Talon deals 9 to the Lantern; Tess's crew deals 30 to the Red Talon)."""

import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from combat import review, stories
from combat.models import Encounter, EncounterEvent
from ships.models import Ship
from tests.combat.test_sw5e_phone import lantern_first
from tests.combat.test_sw5e_table import (  # noqa: F401
    build,
    enc,
    key,
    lantern,
    ok,
    oru,
    sid,
    talon,
    tess,
    two_ship_turns,
    vrask,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fought(enc, gm, player, other_player, tess, oru, vrask, lantern, talon):  # noqa: F811
    two_ship_turns(enc, gm, player, other_player, tess, oru, vrask, lantern, talon)
    return Encounter.objects.get(pk=enc.pk)


def _build(encounter, gm):
    return stories.build(encounter, review.build(encounter, is_gm=gm))


def test_sw5e_stories_and_highlights(fought, tess, vrask, lantern, talon):  # noqa: F811
    """Issue 20: "Per character: ... damage dealt and taken, ... pools spent and gained (... power dice ...)" and
    "Highlights: the biggest hit, the closest call ... the turn that swung the fight" — a ship's health is its hull."""
    s = _build(fought, True)
    cards = {c.summary.key: c for c in s.cards}
    t, v = cards[key(tess)], cards[key(vrask)]
    assert (t.summary.damage_dealt, t.summary.figures["power_dice_spent"], t.turns) == (30, 2, 1)  # her crew turn
    assert (v.summary.figures["power_dice_spent"], cards[sid(talon)].summary.damage_dealt) == (2, 9)
    assert (cards[sid(lantern)].turns, cards[sid(lantern)].summary.damage_taken) == (1, 9)  # the ship's turn
    h = {x.title: x for x in s.highlights}
    assert h["The biggest hit"].text == "Tess hit Red Talon for 30 hull and shield points."
    # The Lantern's 40 hull and 20 shields lose 9: the lowest any ship still flying came down to.
    assert (
        h["The closest call"].text
        == "Lantern came down to 51 hull and shield points and was still standing at the end."
    )
    assert h["The turn that swung the fight"].text == (
        "Round 1, Lantern's turn: their opponents lost 30 hull and shield points in all."
    )
    assert "The luckiest roll" not in h and s.no_luck == stories.NO_ODDS  # no check in this fight


def test_a_players_sw5e_highlights_leave_out_the_enemy_ships_numbers(fought, lantern, talon):  # noqa: F811
    """Issue 20: "Never a GM-only fact to a player": the Red Talon's hull and shields are the GM's to know (its
    numbers are not public), so a player's closest call can only be a ship of theirs; damage dealt is public."""
    gm = {x.title: x for x in _build(fought, True).highlights}
    mine = {x.title: x for x in _build(fought, False).highlights}
    assert mine["The biggest hit"].text == gm["The biggest hit"].text
    assert mine["The biggest hit"].moment == gm["The biggest hit"].moment  # the same seq: the same moment
    assert mine["The closest call"].text.startswith("Lantern came down to 51")


@pytest.fixture
def shots(client, gm, player, other_player, campaign, tess, oru, lantern, talon):  # noqa: F811
    """Against the Red Talon's AC 12 (deflection armour, Dex +4): Oru fires the Lantern's laser cannons (+5 2d6+2),
    his d20 shows 9 (14: a hit); Tess fires its turbolaser (+3 1d8), hers shows 5 (8: a miss)."""
    Ship.objects.filter(pk=lantern.pk).update(weapons="laser cannons (+5 2d6+2), turbolaser (+3 1d8)")
    Ship.objects.filter(pk=talon.pk).update(armour="deflection", dex_mod=4)
    client.force_login(gm)
    enc = build(client, campaign, [tess, oru], {lantern: "ready", talon: "ready"})
    client.logout()
    lantern_first(enc, gm, player, other_player, tess, oru, talon)
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    fire = {"action": "fire", "target": sid(talon)}
    ok(enc, other_player, "take_action", dice=[9, 4, 2], actor=key(oru), weapon="laser cannons", **fire)
    ok(enc, other_player, "end_crew_turn", actor=key(oru))
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "take_action", dice=[5], actor=key(tess), weapon="turbolaser", **fire)
    return Encounter.objects.get(pk=enc.pk)


def test_sw5e_luck_against_the_exact_odds_of_each_shot(shots):
    """Issue 20: "the luckiest and unluckiest rolls against their odds". A 1 always misses and a 20 always hits (the
    GM's default critical rule); d20 + 5 reaches AC 12 on a 7 or more: 14 faces of 20, 70%; d20 + 3 on a 9 or more:
    12 of 20, 60%."""
    s = _build(shots, True)
    h = {x.title: x.text for x in s.highlights}
    assert h["The luckiest roll"] == "Oru succeeded against a 70% chance."
    assert h["The unluckiest roll"] == "Tess failed with a 60% chance of success."
    assert s.no_luck == ""


def test_a_player_never_learns_an_npc_ships_ac_from_the_odds(shots, client, player):
    """The Red Talon's AC is the GM's to know (enemy numbers hidden), so a shot at it carries no odds for players:
    no luck highlight, and the page says why rather than give the AC away as a percentage."""
    s = _build(shots, False)
    assert {x.title for x in s.highlights}.isdisjoint({"The luckiest roll", "The unluckiest roll"})
    assert s.no_luck == stories.NO_ODDS
    client.force_login(player)
    page = client.get(reverse("encounter_log", args=[shots.campaign_id, shots.pk])).content.decode()
    assert "70%" not in page and "chance" not in page


def test_sw5e_stories_count_the_conditions_each_ship_suffered(shots, gm, lantern, talon, tess):  # noqa: F811
    """Issue 20: "conditions suffered": the GM's 65 damage takes the Lantern (40 hull, 20 shields) to 0 hull points:
    disabled, with a level of system damage; 2,000 does the same to the Red Talon. A player reads that the Talon is
    disabled (the log tells everyone) but not its system damage, one of its numbers."""
    ok(shots, gm, "damage", ship=sid(lantern), amount=65, by=sid(talon))
    ok(shots, gm, "damage", ship=sid(talon), amount=2000, by=key(tess))
    fought = Encounter.objects.get(pk=shots.pk)
    cards = {c.summary.key: c for c in _build(fought, True).cards}
    assert cards[sid(lantern)].conditions == cards[sid(talon)].conditions == {"Disabled": 1, "System damage": 1}
    assert cards[key(tess)].conditions == {}
    mine = {c.summary.key: c for c in _build(fought, False).cards}
    assert mine[sid(lantern)].conditions_text == "Disabled, System damage"
    assert mine[sid(talon)].conditions == {"Disabled": 1}


@pytest.fixture
def crew_turns(enc, gm, player, other_player, tess, oru, vrask, lantern, talon):  # noqa: F811
    """Two rounds of crew turns. Round 1: the Red Talon's (Vrask's crew turn: 2 power dice, 9 damage to the Lantern),
    then the Lantern's (Tess's: 2 power dice, 30 damage; Oru's: he patches the hull, d8 5 + 1, but 40 hull stops at
    its 45: 5 back). Round 2: each ship stores its power die again, Vrask and Tess take a turn and end it."""
    two_ship_turns(enc, gm, player, other_player, tess, oru, vrask, lantern, talon)
    ok(enc, player, "end_crew_turn", actor=key(tess))
    ok(enc, other_player, "start_crew_turn", actor=key(oru))
    ok(enc, other_player, "take_action", dice=[5], actor=key(oru), action="patch")
    ok(enc, other_player, "end_crew_turn", actor=key(oru))
    ok(enc, player, "end_ship_turn", actor=key(tess))
    ok(enc, gm, "distribute_power", central=1)
    ok(enc, gm, "start_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_crew_turn", actor=key(vrask))
    ok(enc, gm, "end_ship_turn")
    ok(enc, player, "distribute_power", actor=key(tess), central=1)
    ok(enc, player, "start_crew_turn", actor=key(tess))
    ok(enc, player, "end_crew_turn", actor=key(tess))
    return Encounter.objects.get(pk=enc.pk)


def _clock(encounter, seconds):
    """The log's clock, hand-set: entry n was written at `seconds[n]` seconds."""
    start = timezone.now()
    for seq, at in seconds.items():
        EncounterEvent.objects.filter(encounter=encounter, seq=seq).update(created_at=start + timedelta(seconds=at))


def test_sw5e_crew_members_take_turns_and_their_times_count(crew_turns, tess, oru, vrask, lantern):  # noqa: F811
    """Issue 20: "turns taken ... and the real time each player took on their turns (median and longest)": a crew
    member's turn runs from "starts their turn" to "ends their turn". The log: 8-11 Vrask's (t=20 … 50: 30 s),
    15-18 Tess's (t=70 … 130: 60 s), 19-22 Oru's (t=140 … 160: 20 s); round 2: 27-28 Vrask's (t=190, 200: 10 s),
    32-33 Tess's (t=220, 240: 20 s). Tess: median of 60 and 20 is 40, longest 60."""
    seconds = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 10, 7: 15, 8: 20, 9: 30, 10: 40, 11: 50, 12: 55, 13: 60, 14: 65}
    seconds |= {15: 70, 16: 100, 17: 110, 18: 130, 19: 140, 20: 150, 21: 151, 22: 160, 23: 165, 24: 170, 25: 175}
    seconds |= {26: 180, 27: 190, 28: 200, 29: 205, 30: 210, 31: 215, 32: 220, 33: 240}
    _clock(crew_turns, seconds)
    for gm in (True, False):  # crew turns are public
        cards = {c.summary.key: c for c in _build(crew_turns, gm).cards}
        t, o, v = cards[key(tess)], cards[key(oru)], cards[key(vrask)]
        assert (t.turns, t.turn_seconds, t.median_seconds, t.longest_seconds) == (2, [60.0, 20.0], 40.0, 60.0)
        assert (o.turns, o.turn_seconds, o.median_seconds, o.longest_seconds) == (1, [20.0], 20.0, 20.0)
        assert (v.turns, v.turn_seconds) == (2, [30.0, 10.0])
        assert cards[sid(lantern)].turns == 2  # the ship's own turns


def test_sw5e_stories_show_power_dice_gained_and_healing(crew_turns, client, gm, player, tess, oru, lantern, talon):  # noqa: F811
    """Issue 20: "healing, pools spent and gained (... power dice ...)": each ship stored 1 power die a round (2 in
    all); Oru's patch healed 5. The Red Talon's power is one of its numbers: a player's summary says hidden, never
    0, and a player reads no story of the Red Talon or its crew."""
    cards = {c.summary.key: c for c in _build(crew_turns, True).cards}
    assert (
        cards[sid(lantern)].summary.figures
        == cards[sid(talon)].summary.figures
        == {
            "power_dice_spent": 0,
            "power_dice_gained": 2,
        }
    )
    assert (cards[key(oru)].healing, cards[key(tess)].summary.figures["power_dice_spent"]) == (5, 2)
    mine = {c.summary.key: c for c in _build(crew_turns, False).cards}
    assert mine[sid(lantern)].summary.figures["power_dice_gained"] == 2 and mine[key(oru)].healing == 5
    assert {"power_dice_spent", "power_dice_gained"} <= mine[sid(talon)].summary.hidden
    assert mine[sid(talon)].summary.figures["power_dice_gained"] == 0  # never counted for a player
    url = reverse("encounter_log", args=[crew_turns.campaign_id, crew_turns.pk])
    for user in (gm, player):
        client.force_login(user)
        page = html.unescape(client.get(url).content.decode())
        stories_html = page[page.index('id="stories"') : page.index('id="charts-h"')]
        start = stories_html.index(">Oru</h3>")
        assert "<dt>Healing</dt><dd>5</dd>" in stories_html[start : stories_html.index("</article>", start)]
        start = stories_html.index(">Lantern</h3>")
        assert "<dt>Power dice gained</dt><dd>2</dd>" in stories_html[start : stories_html.index("</article>", start)]
        assert (">Red Talon</h3>" in stories_html) == (user == gm) and (">Vrask</h3>" in stories_html) == (user == gm)
        talon_row = re.search(r'<th scope="row">Red Talon</th>(.*?)</tr>', page).group(1)
        assert talon_row.count('<span class="hidden-figure">hidden</span>') >= (0 if user == gm else 2)
        assert ("hidden-figure" in talon_row) == (user != gm)
