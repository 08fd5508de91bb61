"""Burn Bryte positions at the table (issue 18), through the services as the phone and the GM's screen post them:
the GM places everyone, the phone shows Luwe's square and each enemy's distance beside its attack, a move to a
square and an out-of-range attack are checked, and in Phase 3 the GM sees an out-of-range declared attack, moves
the enemy and preselects a Burst's area."""

import re

import pytest

from campaigns.models import Character
from combat import fragments, services
from tests.combat.helpers import act as go
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import page_text as text
from tests.combat.helpers import state_of as state
from tests.combat.helpers import submit, valid_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def luwe(campaign, player):
    sheet = valid_sheet("burn_bryte", skill_melee=8, skill_ranged=6, skill_athletics=8)
    return Character.objects.create(campaign=campaign, name="Luwe", owner=player, system="burn_bryte", stats=sheet)


@pytest.fixture
def enc(campaign, gm, luwe, npc):
    encounter = services.create_encounter(campaign, gm, name="Dock", model="burn_bryte", pcs=[luwe], enemies=[(npc, 2)])
    return services.start_encounter(encounter, gm)


def test_the_phone_shows_squares_and_distances_and_a_move_and_a_shot_are_checked(enc, gm, player, luwe, npc):
    gm_screen = fragments.gm_html(enc, state(enc))
    assert 'id="gm-positions"' in gm_screen and 'value="place"' in gm_screen
    go(enc, gm, "place", fighter=key(luwe), to="a1")
    go(enc, gm, "place", fighter=key(npc, 1), to="A2")
    go(enc, gm, "place", fighter=key(npc, 2), to="H1")
    refusal = submit(enc, gm, "place", fighter=key(npc, 2), to="A2")
    assert refusal.error == "A2 is taken by Nivick 1."
    go(enc, gm, "declare", enemy=key(npc, 1), target=key(luwe), text="claws")
    go(enc, gm, "declare", enemy=key(npc, 2), target=key(luwe), text="spits")
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))

    phone = text(fragments.me_html(enc, state(enc), player.pk))
    assert "speed 5 · on A1" in phone
    assert "Attack Nivick 1 1 square" in phone  # Melee d8 is the likelier attack: adjacent reaches
    assert "Attack Nivick 2 7 squares: out of Melee range" in phone
    assert "Move to (up to 5 squares, free)" in phone and "Free move (squares)" not in phone
    table = text(fragments.table_html(enc, state(enc), gm=False))
    assert "Luwe A1" in table and "Nivick 2 H1" in table

    refusal = submit(enc, player, "skill_roll", actor=key(luwe), skill="Melee", intent="attack", target=key(npc, 2))
    assert refusal.error == "Nivick 2 is 7 squares away: Luwe's Melee attack reaches adjacent squares."
    refusal = submit(enc, player, "free_move", actor=key(luwe), to="G1")
    assert refusal.error == "G1 is 6 squares away; Luwe's free move reaches 5 (roll a skill to move further)."
    go(enc, player, "free_move", actor=key(luwe), to="F1")
    assert "Luwe moves 5 squares to F1 (free move)." in text(fragments.table_html(enc, state(enc), gm=False))
    phone = text(fragments.me_html(enc, state(enc), player.pk))
    assert "Move to" not in phone  # the free move is used and no roll has granted more
    go(enc, player, "skill_roll", faces=(1, 2), actor=key(luwe), skill="Athletics", intent="move")
    phone = text(fragments.me_html(enc, state(enc), player.pk))
    assert "Move to (up to 5 squares, rolled)" in phone
    go(enc, player, "free_move", actor=key(luwe), to="G1")  # beside Nivick 2
    go(enc, player, "skill_roll", faces=(1, 2, 3), actor=key(luwe), skill="Melee", intent="attack", target=key(npc, 2))
    go(enc, player, "end_turn", actor=key(luwe))
    go(enc, gm, "start_enemies")

    gm_screen = text(fragments.gm_html(enc, state(enc)))
    assert "Nivick 1 : claws → Luwe out of range (6 squares)" in gm_screen
    assert "Nivick 1 (A2, 5 left)" in gm_screen
    go(enc, gm, "move_enemy", enemy=key(npc, 1), to="E2")
    go(enc, gm, "resolve", declaration=1, outcome="hit", damage=1)
    log = text(fragments.table_html(enc, state(enc), gm=False))
    assert "Nivick 1 moves 4 squares to E2." in log
    assert "claws hits Luwe for 1 Health Level." in log  # 2 squares after the move: in reach, no range note


def test_the_gms_burst_form_preselects_everyone_within_the_area(campaign, gm, player, npc):
    sheet = valid_sheet("burn_bryte", skill_ranged=8, weapon_name=["grenade"], weapon_burst=1)
    ana = Character.objects.create(campaign=campaign, name="Ana", owner=player, system="burn_bryte", stats=sheet)
    enc = services.create_encounter(campaign, gm, name="Yard", model="burn_bryte", pcs=[ana], enemies=[(npc, 3)])
    enc = services.start_encounter(enc, gm)
    for who, square in ((key(ana), "A1"), (key(npc, 1), "D4"), (key(npc, 2), "E5"), (key(npc, 3), "G4")):
        go(enc, gm, "place", fighter=who, to=square)
    for n in (1, 2, 3):
        go(enc, gm, "declare", enemy=key(npc, n), target=key(ana))
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(ana))
    assert "Burst point (optional square" in fragments.me_html(enc, state(enc), player.pk)
    go(enc, player, "skill_roll", faces=(1, 2), actor=key(ana), skill="Ranged", intent="attack", target=key(npc, 1))
    gm_screen = fragments.gm_html(enc, state(enc))
    checked = set(re.findall(r'name="targets" value="([^"]+)" checked', gm_screen))
    assert checked == {key(npc, 1), key(npc, 2)}  # Nivick 3 is 3 squares from the point, Ana 3 too
    assert "Ticked: everyone within 1 square of Nivick 1 on D4" in text(gm_screen)
