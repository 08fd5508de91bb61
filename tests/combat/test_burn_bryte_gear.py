"""Burn Bryte gear with scripted dice (issue 18): personal shields, weapon traits (Extra Damage, Charge N, Draining,
Burst N) and the party's ship in the fight. Each cites ../shared/rules/burn-bryte.md (the seed says only "Unless an
attack has its damage boosted by a weapon, special ability, or Nova ability, it deals 1 damage to one target")."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import burn_bryte as bb
from combat.rules.core import RuleError, replay
from tests.combat.test_burn_bryte_rules import Table, enemy, pc
from tests.conftest import examples

UNARMED = bb.Weapon()


def fight(weapon=UNARMED, ship=("Ark", 2, 3), shield=0, health=3, **settings):
    """Luwe (Ranged d10, Knowledge d8, the weapon) against a boss (3 HL) and a grunt (2 HL); Luwe's turn."""
    luwe = replace(pc("luwe", "Luwe", Ranged=10, Knowledge=8), weapon=weapon, shield=shield, shield_max=shield)
    luwe = replace(luwe, health=health)
    fighters = (luwe, pc("furo", "Furo", owner=2, Athletics=8), enemy("boss", "Boss", 3), enemy("grunt", "Grunt"))
    t = Table(bb.initial_state(fighters, 3, {"surprise": "pcs", **settings}, ship=ship))
    if t.state.phase == 2:
        t.do(bb.ClaimTurn(actor="luwe"))
    return t


def words(t, gm=True):
    state = replay(bb.evolve, t.initial, t.log[:-1])
    return bb.describe(state, t.log[-1].event, gm)


def test_a_personal_shield_absorbs_an_attack_before_health_levels():
    """Notes, Health: "damage removes them, never below 0. Shields (if any) absorb first." The boss hits Luwe
    (shield 1) for 2: the shield takes 1, one Health Level goes."""
    t = fight(shield=1, surprise="none")
    t.do(bb.Declare(enemy="boss", target="luwe", text="claw"))
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.SkipTurn(pc="furo"))  # Phase 3 waits for every PC
    t.do(bb.StartEnemies())
    t.do(bb.Resolve(declaration=1, outcome="hit", damage=2))
    luwe = t.state.fighter("luwe")
    assert (luwe.shield, luwe.health) == (0, 2)
    assert words(t) == "Boss's claw hits Luwe for 2 Health Levels. Luwe's shield absorbs 1."
    assert bb.write_back(t.state)["luwe"]["shield"] == 0  # the spent shield stays spent on the sheet


def test_an_unarmed_attack_deals_1_and_extra_damage_2_deals_2():
    """Notes: "Attacks deal 1 damage to one target on success unless a weapon or ability says more (Extra Damage
    2 ...)". The damage comes from the sheet's weapon; an ability's extra damage adds to it."""
    t = fight()
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    assert t.state.fighter("boss").health == 2
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", extra_damage=1), faces=[1, 2, 3])
    assert t.state.fighter("boss").health == 0
    t = fight(weapon=bb.Weapon(name="heavy blaster", damage=2))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    assert t.state.fighter("boss").health == 1
    assert words(t) == (
        "Luwe rolls Ranged to attack Boss with heavy blaster at complexity 2: 2d10 show 1, 2; the roll succeeds. "
        "Boss takes 2 damage."
    )


def test_the_gm_setting_keeps_typed_damage():
    """Setting typed_damage (default off): the GM who plays with damage typed on each attack keeps it."""
    t = fight(weapon=bb.Weapon(name="blaster", damage=2), typed_damage=True)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", damage=1), faces=[1, 2])
    assert t.state.fighter("boss").health == 2  # typed 1, though the blaster has Extra Damage 2


def test_charge_deals_2_only_when_the_roll_used_at_least_n_dice():
    """Notes: "Charge N: 2 if the roll used ≥ N dice". Charge 3: the first roll (2 dice) deals 1, the second
    (3 dice) deals 2."""
    t = fight(weapon=bb.Weapon(name="arc lance", charge=3))
    [first] = t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2])
    assert first.roll.damage == 1 and t.state.fighter("boss").health == 2
    [second] = t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[1, 2, 3])
    assert second.roll.damage == 2 and t.state.fighter("boss").health == 0


def test_draining_deals_2_and_costs_the_attacker_1_that_no_shield_blocks():
    """Notes: "Draining: may deal 2 by taking 1 unblockable". Luwe's shield does not stop the cost."""
    t = fight(weapon=bb.Weapon(name="leech knife", draining=True), shield=2)
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", drain=True), faces=[4, 5])
    assert t.state.fighter("boss").health == 1
    luwe = t.state.fighter("luwe")
    assert (luwe.health, luwe.shield) == (2, 2)
    assert words(t).endswith("Boss takes 2 damage. Luwe takes 1 unblockable damage (Draining).")


def test_draining_is_refused_for_a_weapon_without_it():
    t = fight(weapon=bb.Weapon(name="blaster"))
    before = t.state
    with pytest.raises(RuleError, match="not Draining"):
        t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss", drain=True), faces=[1, 2])
    assert t.state == before


def test_burst_is_one_roll_and_the_gm_picks_every_creature_in_the_area():
    """Notes: "Burst N: every creature within N squares of a point, one roll". One hit; the GM puts the boss,
    the grunt and (friendly fire) Furo in the area; each takes the weapon's damage."""
    t = fight(weapon=bb.Weapon(name="grenade", burst=2))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="boss"), faces=[7, 3])
    assert t.state.pending_burst is not None and t.state.fighter("boss").health == 3  # nobody hit yet
    assert "Burst 2: the GM says who is in the area; 1 damage each." in words(t)
    with pytest.raises(RuleError, match="Burst's area"):
        t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack"), faces=[1, 2, 3])
    t.do(bb.PlaceBurst(targets=("boss", "grunt", "furo")))
    assert [t.state.fighter(k).health for k in ("boss", "grunt", "furo")] == [2, 1, 2]
    assert t.state.pending_burst is None
    assert words(t) == "Luwe's Burst hits Boss, Grunt, Furo for 1 damage each."
    with pytest.raises(RuleError, match="No Burst attack"):
        t.do(bb.PlaceBurst(targets=("boss",)))


def test_the_ship_loses_mi_health_levels_and_goes_dark_at_0():
    """Notes, Ship: "the Magical Intelligence's Health Levels and the Livability Rating ... At 0 MI Health Levels
    the ship goes dark." By default (GM setting off) a dark ship changes nothing else: Livability still caps."""
    t = fight(ship=("Ark", 2, 3))
    t.do(bb.DamageShip(change=-1))
    assert words(t) == "Ark's MI loses 1 Health Level (1/3)."
    t.do(bb.DamageShip(change=-1))
    assert t.state.ship_dark and words(t) == "Ark's MI loses 1 Health Level (0/3). The ship goes dark."
    with pytest.raises(RuleError, match="already gone dark"):
        t.do(bb.DamageShip(change=-1))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    assert t.state.advantages == 1
    t.do(bb.DamageShip(change=2))
    assert not t.state.ship_dark and t.state.ship_health == 2


def test_a_dark_ship_gives_no_room_when_the_gm_so_rules():
    """Setting ship_dark_no_room: Livability caps the Advantage pool and Nova points; a dark ship gives none."""
    t = fight(ship=("Ark", 1, 3), ship_dark_no_room=True)
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2])
    assert t.state.advantages == 1
    t.do(bb.DamageShip(change=-1))
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="advantage"), faces=[1, 2, 3])
    assert t.state.advantages == 1  # kept, but no new one
    with pytest.raises(RuleError, match="caps Nova points at 0"):
        t.do(bb.AdjustNova(target="luwe", change=1))


def test_no_ship_means_no_ship_damage():
    t = fight(ship=("", 0, 0))
    with pytest.raises(RuleError, match="No ship"):
        t.do(bb.DamageShip(change=-1))


def test_the_sheet_gives_the_weapon_and_the_shield():
    stats = {"weapon_name": ["arc lance"], "weapon_damage": 2, "weapon_charge": 3, "weapon_burst": 0}
    f = bb.fighter_from_sheet("x", "X", "pc", 1, {**stats, "weapon_draining": True, "shield": 2, "shield_max": 3}, ())
    assert f.weapon == bb.Weapon(name="arc lance", damage=2, charge=3, draining=True)
    assert (f.shield, f.shield_max) == (2, 3)
    assert f.weapon.label() == "arc lance (Extra Damage 2, Charge 3, Draining)"


GEAR_ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            ["attack", "drain", "burst", "place", "ship", "repair", "end", "claim", "undo", "extra", "skip", "phase"]
        ),
        st.integers(0, 3),
        st.integers(0, 10_000),
    ),
    min_size=4,
    max_size=40,
)


@settings(max_examples=examples(100), deadline=None)
@given(GEAR_ACTIONS)
def test_random_gear_play_replays_and_a_refused_command_changes_nothing(actions):
    """The gear's commands keep the engine's promises: replay equals the live state, a refusal changes nothing."""
    import random as _r  # tests only: picks faces for scripted dice

    weapon = bb.Weapon(name="splash gun", damage=1, charge=3, draining=True, burst=1)
    t = fight(weapon=weapon, shield=1, health=2, ship_dark_no_room=True)  # Luwe is soon down to her own Burst
    keys = ["boss", "grunt", "luwe", "furo"]
    for what, who, seed in actions:
        rng = _r.Random(seed)
        s, logged = t.state, len(t.log)
        try:
            if what in ("attack", "drain", "burst", "extra") and s.turn:
                f = s.fighter(s.turn)
                skill = "Ranged" if "Ranged" in f.skills else "Athletics"
                n = s.complexity(f, skill)
                target = "" if what == "burst" else keys[who % 2]
                extra = who if what == "extra" else 0  # an ability's or Nova's extra damage (0 to 3)
                command = bb.SkillRoll(
                    actor=s.turn, skill=skill, intent="attack", target=target, drain=what == "drain", extra_damage=extra
                )
                t.do(command, faces=[rng.randint(1, f.skills[skill]) for _ in range(n)])
            elif what == "place":
                t.do(bb.PlaceBurst(targets=tuple((keys * 2)[seed % 4 : seed % 4 + who + 1])))  # the roller too, often
            elif what in ("ship", "repair"):
                t.do(bb.DamageShip(change=-1 if what == "ship" else 1))
            elif what == "end" and s.turn:
                t.do(bb.EndTurn(actor=s.turn) if not s.pending_failure else bb.ResolveFailure())
            elif what == "claim":
                t.do(bb.ClaimTurn(actor=["luwe", "furo"][who % 2]))
            elif what == "skip":
                t.do(bb.SkipTurn(pc=["luwe", "furo"][who % 2]))
            elif what == "phase":  # the round moves on: refused while a Burst waits for its area
                if s.phase == 1:
                    for enemy in ("boss", "grunt"):
                        if not s.fighter(enemy).down and not any(d.enemy == enemy for d in s.declarations):
                            t.do(bb.Declare(enemy=enemy, target=["luwe", "furo"][who % 2]))
                    t.do(bb.StartPlayers())
                elif s.phase == 2:
                    t.do(bb.StartEnemies())
                else:
                    for d in s.declarations:
                        if not d.outcome:
                            t.do(bb.Resolve(declaration=d.id, outcome="hit"))
                    t.do(bb.NextRound())
            elif what == "undo" and t.log:
                t.undo_last()
                continue
        except RuleError:
            assert len(t.log) != logged or t.state == s  # refused: nothing changed (a phase step is several commands)
        st_ = t.state
        assert replay(bb.evolve, t.initial, t.log) == st_
        assert 0 <= st_.ship_health <= st_.ship_health_max
        # A PC at 0 Health Levels is never the one acting (a failed roll waits for the GM, who ends the turn).
        assert not st_.turn or not st_.fighter(st_.turn).down or st_.pending_failure
        # A Burst waiting for its area never outlives Phase 2.
        assert st_.pending_burst is None or st_.phase == 2
        for f in st_.fighters:
            assert 0 <= f.health <= f.health_max and 0 <= f.shield <= max(f.shield_max, 1)
