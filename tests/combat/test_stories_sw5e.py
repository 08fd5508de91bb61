"""Issue 20's stories and highlights for SW5e starships: the hand-worked fight of the review test in
tests/combat/test_sw5e_table.py (the Red Talon deals 9 to the Lantern; Tess's crew deals 30 to the Red Talon)."""

import pytest
from django.urls import reverse

from combat import review, stories
from combat.models import Encounter
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
    assert (t.summary.damage_dealt, t.summary.figures, t.turns) == (30, {"power_dice_spent": 2}, 0)
    assert (v.summary.figures, cards[sid(talon)].summary.damage_dealt) == ({"power_dice_spent": 2}, 9)
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
