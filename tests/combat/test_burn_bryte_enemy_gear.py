"""Burn Bryte gear for enemies, shield recharge and Draining on a miss, with scripted dice (issue 18).

Rules notes (../shared/rules/burn-bryte.md): attacks deal 1 damage "unless a weapon or ability says more (Extra
Damage 2; Charge N: 2 if the roll used ≥ N dice; Draining: may deal 2 by taking 1 unblockable; Burst N: every
creature within N squares of a point, one roll)"; "Shields (if any) absorb first"; Phase 3: every enemy "resolves
its declared action". The published weapon qualities (Roll20 compendium, Burn Bryte, "Weapon Qualities") add:
Charge deals 2 "when the character wielding the weapon makes a skill roll to attack on their turn" with enough
dice, and Draining: "When you hit with this weapon, you can choose to deal 2 damage. When you activate this
quality, you take 1 damage, which cannot be absorbed by Shield Health Levels."
"""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import burn_bryte as bb
from combat.rules.burn_bryte.review import facts
from combat.rules.core import RuleError, replay
from tests.combat.test_burn_bryte_rules import Table, enemy, pc
from tests.conftest import examples

BLASTER = bb.Weapon(name="heavy blaster", damage=2)


def fight(boss_weapon=BLASTER, shield=0, boss_shield=0, **settings):
    """Luwe (shield `shield`) and Furo against a boss (3 HL, `boss_weapon`) and a grunt; Phase 1 of round 1."""
    luwe = replace(pc("luwe", "Luwe", Ranged=10), shield=shield, shield_max=max(shield, 2))
    boss = replace(enemy("boss", "Boss", 3), weapon=boss_weapon, shield=boss_shield, shield_max=boss_shield)
    fighters = (luwe, pc("furo", "Furo", owner=2, Athletics=8), boss, enemy("grunt", "Grunt"))
    return Table(bb.initial_state(fighters, 3, {"surprise": "none", **settings}))


def to_phase_3(t, text="fires", **declare):
    """The boss declares against Luwe, the grunt against Furo; both PCs are skipped; Phase 3 starts."""
    t.do(bb.Declare(enemy="boss", target="luwe", text=text, **declare))
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.SkipTurn(pc="luwe"))
    t.do(bb.SkipTurn(pc="furo"))
    t.do(bb.StartEnemies())
    return t


def words(t, gm=True):
    state = replay(bb.evolve, t.initial, t.log[:-1])
    return bb.describe(state, t.log[-1].event, gm)


# --- 1. an enemy's declared attack names its weapon and deals its damage --------------------------------------


def test_an_enemys_declared_attack_names_its_weapon_and_extra_damage_deals_2_through_the_shield():
    """Notes: attacks deal 1 "unless a weapon ... says more (Extra Damage 2 ...)"; "Shields (if any) absorb first".
    The boss's heavy blaster (Extra Damage 2) hits Luwe (shield 1): the shield takes 1, one Health Level goes."""
    t = fight(shield=1)
    [declared] = t.do(bb.Declare(enemy="boss", target="luwe", text="fires"))
    assert declared.weapon == "heavy blaster"
    assert words(t) == "Boss declares: fires with heavy blaster against Luwe."
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.SkipTurn(pc="luwe"))
    t.do(bb.SkipTurn(pc="furo"))
    t.do(bb.StartEnemies())
    [resolved] = t.do(bb.Resolve(declaration=1, outcome="hit"))  # the GM's one tap: damage from the weapon
    assert resolved.damage == 2
    luwe = t.state.fighter("luwe")
    assert (luwe.shield, luwe.health) == (0, 2)
    assert words(t) == "Boss's fires (heavy blaster) hits Luwe for 2 Health Levels. Luwe's shield absorbs 1."
    assert facts(replay(bb.evolve, t.initial, t.log[:-1]), resolved).damage == (("boss", "luwe", 2),)


def test_an_unarmed_declaration_deals_1_and_names_no_weapon():
    """Notes: an attack deals 1 damage unless a weapon says more: a declaration made without the weapon."""
    t = to_phase_3(fight(), text="shoves", unarmed=True)
    assert t.state.declaration(1).weapon == ""
    t.do(bb.Resolve(declaration=1, outcome="hit"))
    assert t.state.fighter("luwe").health == 2
    assert words(t) == "Boss's shoves hits Luwe for 1 Health Level."


def test_charge_never_adds_for_an_enemy_that_rolls_no_dice():
    """Compendium, Charge: 2 damage "when the character wielding the weapon makes a skill roll to attack on their
    turn using" at least N dice. Enemies resolve in Phase 3 without a roll: a Charge 2 rifle deals 1."""
    t = to_phase_3(fight(boss_weapon=bb.Weapon(name="charge rifle", charge=2)))
    [resolved] = t.do(bb.Resolve(declaration=1, outcome="hit"))
    assert resolved.damage == 1
    assert bb.enemy_hit_damage(bb.Weapon(charge=2), drain=False) == (1, 0)


def test_an_enemys_draining_deals_2_and_costs_it_1_that_its_shield_does_not_block():
    """Notes: "Draining: may deal 2 by taking 1 unblockable". The boss (shield 2) drains its siphon: Luwe takes 2,
    the boss loses a Health Level past its full shield."""
    t = to_phase_3(fight(boss_weapon=bb.Weapon(name="siphon", draining=True), boss_shield=2))
    [resolved] = t.do(bb.Resolve(declaration=1, outcome="hit", drain=True))
    assert (resolved.damage, resolved.drained) == (2, 1)
    boss = t.state.fighter("boss")
    assert (boss.shield, boss.health) == (2, 2)
    assert t.state.fighter("luwe").health == 1
    assert words(t) == (
        "Boss's fires (siphon) hits Luwe for 2 Health Levels. Boss takes 1 unblockable damage (Draining)."
    )
    before = replay(bb.evolve, t.initial, t.log[:-1])
    assert facts(before, resolved).damage == (("boss", "luwe", 2), ("", "boss", 1))


def test_draining_is_refused_for_an_enemy_weapon_without_it():
    t = to_phase_3(fight())
    before = t.state
    with pytest.raises(RuleError, match="Boss's heavy blaster is not Draining."):
        t.do(bb.Resolve(declaration=1, outcome="hit", drain=True))
    assert t.state == before


def test_an_enemys_burst_hits_every_creature_the_gm_names_in_the_area():
    """Notes: "Burst N: every creature within N squares of a point, one roll" (for an enemy, no roll): the GM names
    who is in the area when the attack resolves; each takes the weapon's damage, shields first."""
    t = to_phase_3(fight(boss_weapon=bb.Weapon(name="grenade", burst=2), shield=1))
    [resolved] = t.do(bb.Resolve(declaration=1, outcome="hit", targets=("luwe", "furo", "grunt")))
    assert resolved.targets == ("luwe", "furo", "grunt")
    assert [t.state.fighter(k).health for k in ("luwe", "furo", "grunt")] == [3, 2, 1]
    assert t.state.fighter("luwe").shield == 0
    assert (
        words(t) == "Boss's fires (grenade) bursts over Luwe, Furo, Grunt for 1 damage each. Luwe's shield absorbs 1."
    )
    before = replay(bb.evolve, t.initial, t.log[:-1])
    assert facts(before, resolved).damage == (("boss", "luwe", 1), ("boss", "furo", 1), ("boss", "grunt", 1))


def test_a_burst_left_unnamed_hits_the_declared_target_and_an_area_needs_a_burst_weapon():
    t = to_phase_3(fight(boss_weapon=bb.Weapon(name="grenade", burst=2)))
    t.do(bb.Resolve(declaration=1, outcome="hit"))
    assert t.state.fighter("luwe").health == 2
    t = to_phase_3(fight())
    before = t.state
    with pytest.raises(RuleError, match="Only a Burst weapon hits an area."):
        t.do(bb.Resolve(declaration=1, outcome="hit", targets=("luwe", "furo")))
    assert t.state == before


def test_typed_damage_keeps_the_gms_value_and_a_value_other_than_1_overrides_the_weapon():
    """Setting typed_damage (default off): the GM who types damage keeps it; otherwise 1 lets the weapon decide and
    any other value (0 for a harmless action) is the GM's override, as before weapons."""
    t = to_phase_3(fight(typed_damage=True))
    t.do(bb.Resolve(declaration=1, outcome="hit", damage=1))
    assert t.state.fighter("luwe").health == 2  # typed 1, though the blaster has Extra Damage 2
    t = to_phase_3(fight())
    t.do(bb.Resolve(declaration=1, outcome="hit", damage=3))
    t.do(bb.Resolve(declaration=2, outcome="hit", damage=0))
    assert (t.state.fighter("luwe").health, t.state.fighter("furo").health) == (0, 3)


# --- 2. the GM recharges a personal shield -----------------------------------------------------------------------


def test_the_gm_recharges_a_shield_to_full_or_by_n_never_past_its_maximum():
    """Notes: "Shields (if any) absorb first"; nothing in them refills a shield, so the GM does (logged, undoable):
    Luwe's spent shield (0/2) goes up by 1, then to full; a second full recharge is refused."""
    t = fight()
    [first] = t.do(bb.RechargeShield(target="luwe", points=1))
    assert (first.points, t.state.fighter("luwe").shield) == (1, 1)
    assert words(t) == words(t, gm=False) == "The GM recharges Luwe's shield by 1 (1/2)."
    [full] = t.do(bb.RechargeShield(target="luwe"))
    assert (full.points, t.state.fighter("luwe").shield) == (1, 2)
    before = t.state
    with pytest.raises(RuleError, match="Luwe's shield is already full."):
        t.do(bb.RechargeShield(target="luwe", points=5))
    with pytest.raises(RuleError, match="Furo has no personal shield."):
        t.do(bb.RechargeShield(target="furo"))
    assert t.state == before
    t.undo_last()
    assert t.state.fighter("luwe").shield == 1
    assert bb.recharged(shield=1, shield_max=3, points=5) == 2  # by N, capped at the maximum
    assert facts(replay(bb.evolve, t.initial, t.log[:1]), t.log[1].event).extra == {"shield_recharged": 1}


# --- 3. Draining on a miss: the GM's setting -----------------------------------------------------------------


def luwe_drains(faces, **settings):
    """Luwe (Ranged d10, a Draining whip, shield 2) attacks the boss with Draining on her turn."""
    t = fight(shield=2, surprise="pcs", **settings)
    whip = bb.Weapon(name="drain whip", draining=True)
    t = Table(
        replace(t.initial, fighters=tuple(replace(f, weapon=whip) if f.id == "luwe" else f for f in t.initial.fighters))
    )
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", drain=True), faces=faces)
    return t


def test_by_default_draining_costs_nothing_when_the_roll_fails():
    """Setting draining_on_miss, default off: "When you hit with this weapon, you can choose to deal 2 damage":
    a failed roll deals nothing and costs nothing."""
    t = luwe_drains([4, 4])
    assert t.state.fighter("luwe").health == 3
    assert words(t) == (
        "Luwe rolls Ranged to attack Boss with drain whip at complexity 2: 2d10 show 4, 4; the roll fails on doubles."
    )
    t = luwe_drains([1, 2])  # a hit pays, past the shield
    luwe = t.state.fighter("luwe")
    assert (luwe.shield, luwe.health, t.state.fighter("boss").health) == (2, 2, 1)


def test_with_the_setting_on_draining_costs_its_1_on_a_miss_too_and_only_once():
    """Setting draining_on_miss on: choosing Draining before the roll costs the 1 even if the roll fails; an
    Advantage reroll that rescues the roll does not make Luwe pay again."""
    t = luwe_drains([4, 4], draining_on_miss=True)
    luwe = t.state.fighter("luwe")
    assert (luwe.shield, luwe.health) == (2, 2)
    assert words(t).endswith("the roll fails on doubles. Luwe takes 1 unblockable damage (Draining).")
    roll = t.log[-1].event
    assert facts(replay(bb.evolve, t.initial, t.log[:-1]), roll).damage == (("", "luwe", 1),)
    t = Table(replace(t.initial, advantages=1))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", drain=True), faces=[4, 4])
    t.do(bb.SpendAdvantage(actor="luwe", die=0), faces=[1])  # rescued: the hit lands, the 1 is not taken twice
    assert (t.state.fighter("luwe").health, t.state.fighter("boss").health) == (2, 1)


def test_a_hit_whose_draining_takes_the_attacker_to_0_ends_their_turn():
    """Notes: "At 0 Health Levels a creature takes no actions": Luwe at 1 Health Level drains on a hit and drops to
    0 (gaining the least severe condition); her turn ends there, and the GM picks who goes next."""
    t = fight(shield=2, surprise="pcs")
    whip = bb.Weapon(name="drain whip", draining=True)
    fighters = tuple(replace(f, weapon=whip, health=1) if f.id == "luwe" else f for f in t.initial.fighters)
    t = Table(replace(t.initial, fighters=fighters))
    t.do(bb.ClaimTurn(actor="luwe"))
    events = t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", drain=True), faces=[1, 2])
    assert [e.kind for e in events] == ["skill_rolled", "turn_ended"]
    assert t.state.turn == "" and t.state.fighter("luwe").down and t.state.fighter("luwe").took_turn
    assert t.state.fighter("luwe").conditions.neg_minor == "?"


@pytest.mark.parametrize("on_miss,drained,health", [(False, 0, 3), (True, 1, 2)])
def test_an_enemys_draining_on_a_missed_attack_follows_the_setting(on_miss, drained, health):
    """The same setting for an enemy whose declared Draining attack misses (out of range)."""
    t = to_phase_3(fight(boss_weapon=bb.Weapon(name="siphon", draining=True), draining_on_miss=on_miss))
    [resolved] = t.do(bb.Resolve(declaration=1, outcome="missed", drain=True))
    assert (resolved.damage, resolved.drained) == (0, drained)
    assert t.state.fighter("boss").health == health
    assert t.state.fighter("luwe").health == 3


def test_the_setting_is_offered_with_the_notes_words_as_its_default():
    [setting] = [s for s in bb.SETTINGS if s.key == "draining_on_miss"]
    assert setting.default is False
    assert '"may deal 2 by taking 1 unblockable"' in setting.help


# --- every new command in random play ---------------------------------------------------------------------------

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            [*("declare", "declare", "phase", "phase", "phase", "phase"), "resolve", "drain", "burst", "miss"]
            + ["recharge", "attack", "undo"]
        ),
        st.integers(0, 3),
        st.integers(0, 10_000),
    ),
    min_size=4,
    max_size=60,
)


@settings(max_examples=examples(100), deadline=None)
@given(ACTIONS, st.booleans())
def test_random_enemy_gear_play_replays_and_a_refused_command_changes_nothing(actions, on_miss):
    """Resolving with weapons, Draining and Burst areas, recharging shields and Draining PCs keep the engine's
    promises: replay equals the live state, a refusal changes nothing, shields stay within their maxima."""
    import random as _r  # tests only: picks faces for scripted dice

    weapon = bb.Weapon(name="splash siphon", damage=2, draining=True, burst=1)
    t = fight(boss_weapon=weapon, shield=1, boss_shield=1, draining_on_miss=on_miss)
    luwe = bb.Weapon(name="drain whip", draining=True)
    t = Table(
        replace(t.initial, fighters=tuple(replace(f, weapon=luwe) if f.id == "luwe" else f for f in t.initial.fighters))
    )
    keys = ["luwe", "furo", "boss", "grunt"]
    for what, who, seed in actions:
        rng = _r.Random(seed)
        s = t.state
        try:
            if what == "declare":
                undeclared = [e for e in ("boss", "grunt") if not any(d.enemy == e for d in s.declarations)]
                enemy_key = (undeclared or ["boss"])[0]
                t.do(bb.Declare(enemy=enemy_key, target=keys[seed % 2], unarmed=seed % 3 == 0))
            elif what == "phase":
                if s.phase == 1:
                    t.do(bb.StartPlayers())
                elif s.phase == 2 and s.turn:
                    t.do(bb.EndTurn(actor=s.turn) if not s.pending_failure else bb.ResolveFailure())
                elif s.phase == 2 and s.pcs_left():
                    f = s.pcs_left()[0]
                    t.do(bb.ClaimTurn(actor=f.id) if f.id == keys[who % 2] else bb.SkipTurn(pc=f.id))
                elif s.phase == 2:
                    t.do(bb.StartEnemies())
                else:
                    t.do(bb.NextRound())
            elif what in ("resolve", "drain", "burst", "miss") and s.declarations:
                d = s.declarations[seed % len(s.declarations)]
                area = tuple(keys[: who + 1]) if what == "burst" else ()
                outcome = "missed" if what == "miss" else "hit"
                t.do(bb.Resolve(declaration=d.id, outcome=outcome, drain=what in ("drain", "miss"), targets=area))
            elif what == "recharge":
                t.do(bb.RechargeShield(target=keys[who], points=seed % 3))
            elif what == "attack" and s.turn:
                f = s.fighter(s.turn)
                skill = sorted(f.skills)[0]
                n = s.complexity(f, skill)
                command = bb.SkillRoll(
                    actor=s.turn, skill=skill, intent="attack", target="boss", drain=s.turn == "luwe"
                )
                t.do(command, faces=[rng.randint(1, f.skills[skill]) for _ in range(n)])
            elif what == "undo" and t.log:
                t.undo_last()
                continue
        except RuleError:
            assert t.state == s  # refused: nothing changed
        now = t.state
        assert replay(bb.evolve, t.initial, t.log) == now
        for f in now.fighters:
            assert 0 <= f.health <= f.health_max
            assert 0 <= f.shield <= max(f.shield_max, 0)
        # A PC at 0 Health Levels takes no actions: their turn is over unless a failed roll awaits the GM.
        assert not now.turn or not now.fighter(now.turn).down or now.pending_failure
        if t.log and t.log[-1].event.kind != "undone":
            before = replay(bb.evolve, t.initial, t.log[:-1])
            for gm in (True, False):
                assert bb.describe(before, t.log[-1].event, gm) != ""  # a sentence, or nothing for players
