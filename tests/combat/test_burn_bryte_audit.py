"""Burn Bryte gaps an audit found (issue 18), each with scripted dice and the seed's or notes' words: a PC dropped
by their own Burst, a Burst waiting for its area, extra damage from an ability or Nova, changing a defended
declaration, and the GM's screen buying an extra attack in Phase 2 and spending a PC's Nova points."""

import re
from dataclasses import replace

import pytest

from campaigns.models import Character
from combat import services
from combat.rules import burn_bryte as bb
from combat.rules.core import RuleError
from tests.combat.helpers import act, state_of, valid_sheet
from tests.combat.helpers import combatant_key as key
from tests.combat.test_burn_bryte_gear import fight, words
from tests.combat.test_burn_bryte_gm_turns import form_data, gm_page, last_words
from tests.combat.test_burn_bryte_phone import (  # noqa: F401 (fixtures)
    enc,
    furo,
    go,
    luwe,
    me,
    sniper,
    to_phase_2,
)
from tests.combat.test_burn_bryte_rules import Table, declare_all, start  # noqa: F401 (fixture)

GRENADE = bb.Weapon(name="grenade", burst=1)


def refused(t, command, sentence, faces=()):
    """`command` is refused with exactly `sentence`, and nothing changes."""
    before = t.state
    with pytest.raises(RuleError) as error:
        t.do(command, faces=faces)
    assert str(error.value) == sentence
    assert t.state == before


# --- 1. a PC's own Burst drops them: the turn ends ----------------------------------------------------------------


def test_a_pc_dropped_by_their_own_burst_ends_their_turn():
    """Notes: "At 0 Health Levels a creature takes no actions"; "Burst N: every creature within N squares of a
    point". Luwe's grenade (with 2 extra from a Nova ability) bursts beside her: the GM puts her in the area."""
    t = fight(weapon=GRENADE)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", extra_damage=2), faces=[1, 2])
    placed, ended = t.do(bb.PlaceBurst(targets=("boss", "luwe")))
    assert isinstance(ended, bb.TurnEnded) and ended.down
    assert words(t) == "Luwe's turn ends: at 0 Health Levels they take no actions."
    state = t.state
    assert (state.fighter("luwe").health, state.turn, state.fighter("boss").health) == (0, "", 0)
    refused(t, bb.EndTurn(actor="luwe"), "It is not Luwe's turn.")
    t.do(bb.ClaimTurn(actor="furo"))  # the round goes on
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.StartEnemies())
    assert t.state.phase == 1 and t.state.round == 2  # the PCs surprised: round 1 has no Phase 3


def test_a_shield_that_saves_the_roller_from_their_own_burst_leaves_the_turn_running():
    """Notes: "Shields (if any) absorb first." Luwe's shield takes the 1: she stays up and keeps her turn."""
    t = fight(weapon=GRENADE, shield=1)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    [placed] = t.do(bb.PlaceBurst(targets=("boss", "luwe")))
    assert t.state.turn == "luwe" and t.state.fighter("luwe").health == 3


# --- 4. a Burst waiting for its area holds the round ----------------------------------------------------------------


def test_phase_3_and_the_next_round_wait_for_a_burst_to_be_placed():
    """Notes: "Burst N: every creature within N squares of a point, one roll": the GM says who is in the area
    before the enemies resolve, or the hit would be lost and every other PC's Burst refused."""
    t = fight(weapon=GRENADE)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.SkipTurn(pc="furo"))
    waiting = "Luwe's Burst is waiting for the GM to say who is in its area: apply it before {}."
    refused(t, bb.StartEnemies(), waiting.format("Phase 3"))
    t.do(bb.PlaceBurst(targets=("boss",)))
    t.do(bb.StartEnemies())
    assert t.state.round == 2
    # A state from an older log, with a Burst still waiting in Phase 3: the next round waits too.
    roll = bb.Roll("luwe", "Ranged", 10, 2, faces=(1, 2), intent="attack", target="", damage=1, burst=1)
    t = Table(replace(t.state, phase=3, pending_burst=roll))
    refused(t, bb.NextRound(), waiting.format("the next round"))


# --- 3. damage comes from the weapon; a player adds only an ability's or Nova's extra ---------------------------------


def test_a_typed_damage_is_refused_and_an_ability_or_nova_extra_adds_to_the_weapon():
    """Seed: "Unless an attack has its damage boosted by a weapon, special ability, or Nova ability, it deals 1
    damage to one target." With typed_damage off (the default), damage comes from the weapon; an ability's or
    Nova's extra is added, bounded, and the log shows it."""
    t = fight(weapon=bb.Weapon(name="blaster"))
    attack = bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss")
    refused(
        t,
        replace(attack, damage=10),
        "Damage comes from Luwe's weapon (blaster), not typed: add an ability's or Nova's extra damage instead "
        "(up to 3).",
        faces=[1, 2],
    )
    refused(t, replace(attack, extra_damage=4), "Extra damage from an ability or Nova is from 0 to 3.", faces=[1, 2])
    refused(
        t,
        bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage", extra_damage=1),
        "Extra damage from an ability or Nova adds to an attack.",
        faces=[1, 2],
    )
    [rolled] = t.do(replace(attack, extra_damage=1, note="Star Lance"), faces=[1, 2])
    assert rolled.roll.damage == 2 and t.state.fighter("boss").health == 1
    assert words(t) == (
        "Luwe rolls Ranged to attack Boss with blaster at complexity 2: 2d10 show 1, 2; the roll succeeds — Star "
        "Lance. Boss takes 2 damage (1 extra from an ability or Nova)."
    )


def test_with_typed_damage_on_the_typed_damage_stands():
    """Setting typed_damage: the GM who plays with damage typed on each attack keeps it."""
    t = fight(weapon=bb.Weapon(name="blaster"), typed_damage=True)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", damage=3), faces=[1, 2])
    assert t.state.fighter("boss").health == 0


def test_the_phone_adds_an_extra_in_a_fold_and_a_hand_made_damage_is_refused(enc, gm, player, luwe, furo, npc):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    page = me(enc, player)
    fold = re.search(rf'<details id="extra-damage-{key(luwe)}"[^>]*>(.*?)</details>', page, re.S)
    assert fold and "data-keep-open" in fold.group(0)
    assert 'name="extra_damage" value="0" min="0" max="3"' in fold.group(1)
    target = key(npc, 2)
    data = {"actor": key(luwe), "skill": "Ranged", "intent": "attack", "target": target}
    result = services.submit(enc.pk, player, "skill_roll", {**data, "damage": "10"}, "hand-made", from_form=True)
    assert not result.ok and result.error.startswith("Damage comes from Luwe's weapon (unarmed), not typed")
    assert state_of(enc).fighter(target).health == state_of(enc).fighter(target).health_max
    go(enc, player, "skill_roll", faces=[3, 5], extra_damage="1", **data)
    assert state_of(enc).fighter(target).health == state_of(enc).fighter(target).health_max - 2
    assert last_words(enc)[0].endswith("Nivick 2 takes 2 damage (1 extra from an ability or Nova).")


# --- 5. a defended declaration cannot be changed ---------------------------------------------------------------------


def test_changing_a_declaration_already_defended_is_refused_and_costs_nothing(start):
    """Seed, Active Defense: "If the skill roll succeeds, the targeted character avoids the attack": the attack
    does nothing, so the Collapse point to change it (DEFAULT 1) would buy nothing."""
    t = Table(start)
    declare_all(t)
    t.do(bb.ClaimTurn(actor="balla"))
    t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="defend", target="1"), faces=[3, 7])
    assert t.state.declaration(1).defended
    refused(
        t,
        bb.ChangeDeclaration(declaration=1, target="luwe", text="laser pistol"),
        "Nivick boss's laser sword was already defended against: it does nothing in Phase 3, so it cannot be changed.",
    )
    assert t.state.collapse == 2
    t.do(bb.ChangeDeclaration(declaration=3, target="luwe", text="knife"))  # an undefended one still changes
    assert t.state.collapse == 1


def test_the_gms_change_form_offers_no_defended_declaration(enc, gm, player, luwe, furo, npc):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "skill_roll", faces=[3, 5], actor=key(luwe), skill="Ranged", intent="defend", target="2")
    choices = re.search(r'<select id="gm-ch-decl" name="declaration">(.*?)</select>', gm_page(enc), re.S).group(1)
    assert re.findall(r'<option value="(\d+)">', choices) == ["1", "3"]


# --- 2. the GM's screen buys an extra attack in Phase 2 ---------------------------------------------------------------


def test_the_gm_buys_an_extra_attack_in_phase_2_from_the_screen(enc, gm, player, luwe, furo, npc):
    """Notes: "Spend 1 for one extra declared attack by one enemy (in Phase 1, or in Phase 2 while at least one
    PC still has a turn to take)"."""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    page = gm_page(enc)
    assert "Extra attacks can still be bought." in page
    fold = re.search(r'<details class="card" id="gm-extra-attack" data-keep-open>(.*?)</details>', page, re.S)
    assert fold and "Declare the extra attack" in fold.group(1)
    data = form_data(page, "declare")
    assert data == {"extra": "on", "text": "attacks", "unarmed": "on"}  # "unarmed" is a checkbox, left unticked
    del data["unarmed"]
    go(enc, gm, "declare", enemy=key(npc, 1), target=key(luwe), **{**data, "text": "lunges"})
    state = state_of(enc)
    assert state.collapse == 1 and state.declarations[-1].extra and state.declarations[-1].text == "lunges"
    go(enc, gm, "declare", enemy=key(npc, 2), target=key(furo), **data)
    assert "gm-extra-attack" not in gm_page(enc)  # no Collapse point left to buy one with
    assert "Extra attacks can still be bought" not in gm_page(enc)


# --- 6. the GM's screen spends a PC's Nova points ------------------------------------------------------------------


def test_the_gm_spends_a_pcs_nova_points_with_the_phones_rules(enc, gm, player, luwe, furo, npc):
    """Seed: "Nova abilities can be activated at any time in combat [...] Nova abilities that require a skill roll
    can only be used during the activating character's turn." Luwe has 1 Nova point."""
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    page = gm_page(enc)
    fold = re.search(r'<details class="card" id="gm-nova" data-keep-open>(.*?)</details>', page, re.S).group(1)
    assert re.findall(r'<option value="([^"]+)">([^<]+)</option>', fold) == [(key(luwe), "Luwe (1 Nova)")]
    assert 'name="roll" value="on"' in fold and "Spend Nova" in fold
    data = {"actor": key(luwe), "points": "1", "note": "Star Lance", "roll": "on"}
    result = services.submit(enc.pk, gm, "spend_nova", data, "gm-nova-early", from_form=True)
    assert not result.ok and result.error == "A Nova ability that needs a skill roll is used on Luwe's own turn."
    assert state_of(enc).fighter(key(luwe)).nova_points == 1
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, gm, "spend_nova", **data)
    assert last_words(enc) == ["Luwe spends 1 Nova point on an ability with a skill roll: Star Lance."]
    assert state_of(enc).fighter(key(luwe)).nova_points == 0
    assert "gm-nova" not in gm_page(enc)  # nobody has a Nova point left


@pytest.fixture
def bomber(campaign, player):
    sheet = valid_sheet("burn_bryte", skill_ranged=8, weapon_name=["grenade"], weapon_burst=1)
    return Character.objects.create(campaign=campaign, name="Bomber", owner=player, system="burn_bryte", stats=sheet)


def test_the_gms_burst_form_ticks_an_adjacent_roller_and_applying_it_ends_their_turn(
    campaign, gm, player, bomber, furo, npc
):
    """Notes: "Burst N: every creature within N squares of a point"; "At 0 Health Levels a creature takes no
    actions". Bomber throws a Burst 1 grenade (with a Nova's 2 extra) at the Nivick beside her."""
    encounter = services.create_encounter(
        campaign, gm, name="Close", model="burn_bryte", pcs=[bomber, furo], enemies=[(npc, 1)]
    )
    enc = services.start_encounter(encounter, gm)
    go(enc, gm, "place", fighter=key(bomber), to="C3")
    go(enc, gm, "place", fighter=key(npc, 1), to="D3")
    go(enc, gm, "declare", enemy=key(npc, 1), target=key(furo), text="claws")
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(bomber))
    data = {"actor": key(bomber), "skill": "Ranged", "intent": "attack", "target": key(npc, 1), "extra_damage": 2}
    go(enc, player, "skill_roll", faces=[2, 5], **data)
    page = gm_page(enc)
    ticked = re.findall(r'name="targets" value="([^"]+)" checked>', page)
    assert sorted(ticked) == sorted([key(bomber), key(npc, 1)])
    act(enc, gm, "place_burst", targets=ticked)  # as the GM's screen posts the ticked boxes
    ended, burst = last_words(enc, 2)
    assert ended == "Bomber's turn ends: at 0 Health Levels they take no actions."
    assert burst == (
        "Bomber's Burst hits Nivick, Bomber for 3 damage each. Bomber drops to 0 Health Levels and gains a minor "
        "negative condition."
    )
    state = state_of(enc)
    assert state.turn == "" and state.fighter(key(bomber)).down
    page = gm_page(enc)
    assert "Skip this round" in page  # the round goes on: the GM may pick or skip Furo
